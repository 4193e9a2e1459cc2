// The projector follows the live channel: the status line at once, then the live part
// (its charts computed on the server) fetched again; htmx keeps only the newest fetch.
(function () {
  "use strict";
  var root = document.getElementById("cx-projector");
  if (!root || !window.cxLive || root.dataset.status === "ended") return;
  window.cxLive(root.dataset.stream, root.dataset.state, function (state) {
    document.body.dispatchEvent(new CustomEvent("cx-state"));
    if (state.status === "ended" && root.dataset.status !== "ended") {
      root.dataset.status = "ended";
      location.reload();  // the controls go and the saved run's link comes
    } else if (state.status === "running" && root.dataset.status === "waiting") {
      root.dataset.status = "running";
      location.reload();  // the Start button goes
    }
  });
})();
