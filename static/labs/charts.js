// Draw every Plotly figure on the page that is not drawn yet. Each figure's JSON sits
// in a <script type="application/json"> inside <figure class="chart">, written by Django.
// A running experiment's fragment is swapped every second with a new chart in it: before
// htmx removes the old one, Plotly.purge drops its listeners (a responsive plot listens to
// window resizes), so a minute of redraws does not leave sixty dead plots listening.
(function () {
  function drawCharts(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("figure.chart:not(.drawn)").forEach(function (box) {
      var data = box.querySelector("script[type='application/json']");
      var plot = box.querySelector(".plot");
      if (!data || !plot) return;
      var fig = JSON.parse(data.textContent);
      window.Plotly.newPlot(plot, fig.data, fig.layout, { responsive: true, displaylogo: false });
      box.classList.add("drawn");
    });
  }
  function purgeCharts(root) {
    if (!window.Plotly || !root || !root.querySelectorAll) return;
    root.querySelectorAll("figure.chart.drawn .plot").forEach(function (plot) {
      window.Plotly.purge(plot);
    });
  }
  document.addEventListener("DOMContentLoaded", function () { drawCharts(document); });
  document.addEventListener("htmx:beforeSwap", function (event) { purgeCharts(event.detail.target); });
  document.addEventListener("htmx:afterSettle", function (event) { drawCharts(event.detail.elt.parentNode || document); });
})();
