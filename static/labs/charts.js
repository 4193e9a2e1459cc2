// Draw every Plotly figure on the page that is not drawn yet. Each figure's JSON sits
// in a <script type="application/json"> inside <figure class="chart">, written by Django.
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
  document.addEventListener("DOMContentLoaded", function () { drawCharts(document); });
  document.addEventListener("htmx:afterSettle", function (event) { drawCharts(event.detail.elt.parentNode || document); });
})();
