// Draw every Plotly figure on the page that is not drawn yet, as it nears the screen
// (charts/lazy.js), redraw a draft's in place (charts/redraw.js), fit them to paper when
// printed. An ES module: its parts under charts/ are imported, and the pure sums among them
// (title.js, legend.js, before.js, geometry.js) are unit-tested in tests/js/labs/charts/.
// The page's other scripts (drafts.js) reach it through window.labCharts.
import { drawAll, drawCharts, purgeCharts } from "./charts/lazy.js";
import { fetchSoon } from "./charts/plotly_loader.js";
import { listenForClearBefore, redraw, redrawAll } from "./charts/redraw.js";
// Every other part too, though the three above import them: a slow link then fetches them
// all side by side once this file has come, not one import level after another
// (tests/test_page_weight.py fails on a part not named here).
import "./charts/before.js";
import "./charts/before_panel.js";
import "./charts/declutter.js";
import "./charts/draw.js";
import "./charts/figure.js";
import "./charts/geometry.js";
import "./charts/legend.js";
import "./charts/locale.js";
import "./charts/measure.js";
import "./charts/page_data.js";
import "./charts/title.js";

listenForClearBefore();

// A chart is drawn to the screen's width; printed, the page is narrower (and back again).
function fitToPage() {
  if (!window.Plotly) return;
  drawAll();
  document.querySelectorAll("figure.chart.drawn .plot").forEach(function (plot) {
    window.Plotly.Plots.resize(plot);
  });
}
window.matchMedia("print").addEventListener("change", fitToPage);
window.addEventListener("beforeprint", fitToPage);
window.addEventListener("afterprint", fitToPage);

window.labCharts = { draw: drawCharts, redraw: redraw, redrawAll: redrawAll, purge: purgeCharts };
document.addEventListener("DOMContentLoaded", function () { drawCharts(document, true); });
window.addEventListener("load", fetchSoon);
document.addEventListener("htmx:beforeSwap", function (event) { purgeCharts(event.detail.target); });
document.addEventListener("htmx:afterSettle", function (event) {
  drawCharts(event.detail.elt.parentNode || document);
});
