// The projector follows the live channel: on each change the live part (its charts
// computed on the server) is fetched again; htmx keeps only the newest fetch. When the run
// ends, the page reloads to trade the controls for the saved run's link, unless the
// teacher's own form is on its way (a reload would cut that request off).
(function () {
  "use strict";
  // The live part comes back on every change; its charts are drawn again on the elements
  // already on the screen (Plotly.react, as a lab's draft is), so a projected chart never
  // blanks between two readings.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var old = event.detail.target;
    if (!old || old.id !== "cx-live" || !window.labCharts || !event.detail.shouldSwap) return;
    var holder = document.createElement("div");
    holder.innerHTML = event.detail.serverResponse;
    var fresh = holder.querySelector("#cx-live");
    if (!fresh) return;
    var drawn = Array.prototype.slice.call(old.querySelectorAll("figure.chart.drawn"));
    var moved = [];
    fresh.querySelectorAll("figure.chart").forEach(function (fig, i) {
      var was = drawn[i];
      if (!was) return;
      var json = "script[type='application/json']";
      was.querySelector(json).textContent = fig.querySelector(json).textContent;
      was.querySelector(".plot").setAttribute("aria-label", fig.querySelector(".plot").getAttribute("aria-label"));
      fig.replaceWith(was);
      moved.push(was);
    });
    event.detail.shouldSwap = false;
    old.replaceWith(fresh);
    window.htmx.process(fresh);
    window.labCharts.redrawAll(moved);
    window.labCharts.draw(fresh); // a chart the last reading did not have
  });
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
