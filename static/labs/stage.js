// The lab's main chart on its stage (templates/labs/lab.html): moved up from the run's body
// to the place beside the controls, so the chart and the control being moved are in one
// glance — on a phone the stage holds the top of the screen while the controls scroll
// beneath it; from 1000 px it opens the results column. A running experiment's live chart
// holds the place while the run goes, unless the run has an operator panel: then the chart
// stays beside that panel, whose switches are what the student moves. Where a run has several charts the student picks the
// main one ("Show this chart at the top", remembered per lab in this browser).
//
// The chart leaves a marker (.chart-home) where it was, so drafts.js can put it back before
// a new result lands and the charts keep their order; each chart of the body carries its
// place (data-at) for the faint "before" lines (charts/before_panel.js).
(function () {
  "use strict";
  function slug(panel) { return panel.id.replace(/^lab-/, ""); }
  function chosen(panel) {
    try { return Number(window.localStorage.getItem("main-chart:" + slug(panel))) || 0; }
    catch { return 0; }
  }
  function choose(panel, at) {
    try { window.localStorage.setItem("main-chart:" + slug(panel), String(at)); } catch { /* private mode: not remembered */ }
  }
  function bodyOf(panel) { return panel.querySelector(".results .run-body"); }

  // The staged chart goes back to its place in the body (or away, if its body is gone).
  function unstage(panel) {
    var slot = panel.querySelector(".stage-chart");
    if (!slot) return;
    var home = panel.querySelector(".results .chart-home");
    slot.querySelectorAll("figure.chart").forEach(function (fig) {
      fig.classList.remove("main");
      if (home) {
        home.replaceWith(fig);
        home = null;
      } else {
        if (window.labCharts) window.labCharts.purge(slot);
        fig.remove();
      }
    });
    panel.querySelectorAll(".results .chart-home").forEach(function (h) { h.remove(); });
    panel.classList.remove("staged");
  }

  function pickButton(panel, fig) {
    if (fig.querySelector(".make-main") || fig.classList.contains("live")) return;
    var words = panel.querySelector(".stage").dataset.mainWords;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "secondary small make-main";
    button.textContent = words;
    fig.appendChild(button);
  }

  // `fresh`: the chart is drawn again for its new place (not when drafts.js redraws it next).
  function stage(panel, fresh) {
    var slot = panel.querySelector(".stage-chart"), body = bodyOf(panel);
    unstage(panel);
    if (!slot || !body) return;
    var live = body.querySelector("figure.chart.live");
    // A live run with an operator panel: the controls being moved are the panel's, so its
    // chart stays beside them in the body until the run ends.
    var operated = body.matches(".status-queued, .status-running") &&
      panel.querySelector(".results .control-panel");
    if (live && operated) return;
    var figs = Array.prototype.slice.call(body.querySelectorAll("figure.chart:not(.live)"));
    figs.forEach(function (fig, i) { fig.dataset.at = String(i); pickButton(panel, fig); });
    var fig = live || figs[Math.min(chosen(panel), figs.length - 1)];
    if (!fig) return;
    var home = document.createElement("div");
    home.className = "chart-home";
    home.hidden = true;
    fig.before(home);
    slot.appendChild(fig);
    fig.classList.add("main");
    panel.classList.add("staged");
    if (fresh === false || !window.labCharts) return;
    if (fig.classList.contains("drawn")) window.labCharts.redraw(fig);
    else window.labCharts.draw(slot);
  }

  // The stage's height, for the controls' scroll margin (a field brought into view is not
  // put under the sticky stage) and for the sticky bar of a wide screen.
  function measure(panel) {
    var stageBox = panel.querySelector(".stage");
    if (!stageBox) return;
    var sticky = getComputedStyle(stageBox).position === "sticky";
    panel.style.setProperty("--stage-h", (sticky ? stageBox.offsetHeight : 0) + "px");
  }
  var watcher = window.ResizeObserver ? new ResizeObserver(function (seen) {
    seen.forEach(function (e) { var p = e.target.closest(".lab-panel"); if (p) measure(p); });
  }) : null;
  function ready(panel) {
    if (panel.dataset.stageReady) return;
    panel.dataset.stageReady = "1";
    var stageBox = panel.querySelector(".stage");
    if (watcher && stageBox) watcher.observe(stageBox);
    measure(panel);
  }

  function all(fresh) {
    document.querySelectorAll(".lab-panel").forEach(function (panel) {
      if (!panel.querySelector(".stage-chart")) return;
      ready(panel);
      var slot = panel.querySelector(".stage-chart"), body = bodyOf(panel);
      var staged = slot.querySelector("figure.chart");
      // Already the main chart of the body shown: nothing to move.
      if (staged && body && panel.querySelector(".results .chart-home") &&
          body.contains(panel.querySelector(".results .chart-home"))) return;
      stage(panel, fresh);
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest(".make-main");
    if (!button) return;
    var panel = button.closest(".lab-panel"), fig = button.closest("figure.chart");
    choose(panel, Number(fig.dataset.at));
    var slot = panel.querySelector(".stage-chart");
    var was = slot.querySelector("figure.chart");
    stage(panel, true);
    if (was && was.classList.contains("drawn") && window.labCharts) window.labCharts.redraw(was);
    var now = slot.querySelector("figure.chart");
    if (now) now.scrollIntoView({ block: "nearest" });
  });
  document.addEventListener("DOMContentLoaded", function () { all(true); });
  document.addEventListener("htmx:afterSettle", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.closest && elt.closest(".incoming")) return; // a draft's answer, not landed yet
    all(true);
  });
  window.addEventListener("resize", function () {
    document.querySelectorAll(".lab-panel").forEach(measure);
  });
  window.labStage = { stage: stage, unstage: unstage };
})();
