// Draw every Plotly figure on the page that is not drawn yet. Each figure's JSON sits
// in a <script type="application/json"> inside <figure class="chart">, written by Django.
// plotly.js (the official cartesian bundle: scatter, bar and heatmap are all the charts
// use) is fetched the first time a page has a chart to draw, never on pages without one;
// its URL comes from this script's data-plotly attribute, and the browser keeps it.
// A running experiment's fragment is swapped every second with a new chart in it: before
// htmx removes the old one, Plotly.purge drops its listeners (a responsive plot listens to
// window resizes), so a minute of redraws does not leave sixty dead plots listening.
(function () {
  var plotlyUrl = document.currentScript && document.currentScript.dataset.plotly;
  var loading = null;

  function withPlotly(then) {
    if (window.Plotly) { then(); return; }
    if (!plotlyUrl) return;
    if (!loading) {
      loading = [];
      var tag = document.createElement("script");
      tag.src = plotlyUrl;
      tag.onload = function () { var waiting = loading; loading = null; waiting.forEach(function (f) { f(); }); };
      document.head.appendChild(tag);
    }
    loading.push(then);
  }
  function drawCharts(root) {
    var boxes = root.querySelectorAll("figure.chart:not(.drawn)");
    if (!boxes.length) return;
    withPlotly(function () {
      boxes.forEach(function (box) {
        if (box.classList.contains("drawn") || !box.isConnected) return;
        var data = box.querySelector("script[type='application/json']");
        var plot = box.querySelector(".plot");
        if (!data || !plot) return;
        var fig = JSON.parse(data.textContent);
        window.Plotly.newPlot(plot, fig.data, fig.layout, { responsive: true, displaylogo: false });
        box.classList.add("drawn");
      });
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
