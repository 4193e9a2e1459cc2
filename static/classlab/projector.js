// The projector follows the live channel: on each change the live part (its charts
// computed on the server) is fetched again; htmx keeps only the newest fetch. When the run
// ends, the page reloads to trade the controls for the saved run's link, unless the
// teacher's own form is on its way (a reload would cut that request off).
(function () {
  "use strict";
  var root = document.getElementById("cx-projector");
  if (!root || !window.cxLive || root.dataset.status === "ended") return;
  var leaving = false;
  document.addEventListener("submit", function () { leaving = true; });
  window.cxLive(root.dataset.stream, root.dataset.state, function (state) {
    document.body.dispatchEvent(new CustomEvent("cx-state"));
    if (state.status === "ended" && root.dataset.status !== "ended" && !leaving) {
      root.dataset.status = "ended";
      location.reload();
    }
  });
})();
