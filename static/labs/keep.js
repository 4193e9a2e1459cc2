// A draft (a run the lab started as its controls moved: labs/runs/drafts.py) is kept when
// the student takes a file of it. A JSON or CSV download is kept by the server as it is
// served (labs/web/keeping.py); a chart's PNG is made here in the browser, so its toolbar
// button posts the draft's keep URL (data-keep-url on the run's body). Either way the
// body stops saying it is a draft: the run is in the student's runs now.
(function () {
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; }
    catch { return ""; }
  }
  function kept(body, url) {
    body.classList.remove("draft");
    body.removeAttribute("data-keep-url");
    body.querySelectorAll(".draft-note").forEach(function (note) { note.remove(); });
    // The run's own page offers a "Keep this run" button: it has nothing left to do.
    document.querySelectorAll("form.keep-draft").forEach(function (form) {
      if (form.getAttribute("action") === url) form.remove();
    });
  }
  function keep(body) {
    var url = body.dataset.keepUrl;
    fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf(), "HX-Request": "true" },
    }).then(function (response) { if (response.ok) kept(body, url); });
  }
  // A download link (in the body, or among the run page's facts above it) names its run:
  // the server keeps it as it answers. A chart's PNG button is the first of its toolbar
  // (charts.js: CONFIG.modeBarButtons); seen while capturing, before Plotly starts the PNG.
  var DOWNLOAD = /\/runs\/([0-9a-f-]{36})\.(csv|json)$/;
  document.addEventListener("click", function (event) {
    if (!event.target.closest) return;
    var link = event.target.closest("a[href]");
    var file = link && DOWNLOAD.exec(link.pathname);
    if (file) {
      var named = document.getElementById("run-" + file[1]);
      if (named && named.dataset.keepUrl) kept(named, named.dataset.keepUrl);
      return;
    }
    // The lab's main chart sits on its stage, out of its body (stage.js): its body is the
    // panel's shown one.
    var staged = event.target.closest(".stage-chart");
    var panel = staged && staged.closest(".lab-panel");
    var body = panel ? panel.querySelector(".results .run-body[data-keep-url]")
      : event.target.closest(".run-body[data-keep-url]");
    if (body && event.target.closest(".modebar-group:first-child > .modebar-btn:first-child")) {
      keep(body);
    }
  }, true);
})();
