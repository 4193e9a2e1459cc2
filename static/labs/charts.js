// Draw every Plotly figure on the page that is not drawn yet, as it nears the screen
// (charts/lazy.js), redraw a draft's in place (charts/redraw.js), fit them to paper when
// printed. An ES module: its parts under charts/ are imported, and the pure sums among them
// (title.js, legend.js, before.js, geometry.js) are unit-tested in tests/js/labs/charts/.
// The page's other scripts (drafts.js) reach it through window.labCharts.
import { drawAll, drawCharts, purgeCharts } from "./charts/lazy.js";
import { fetchSoon } from "./charts/plotly_loader.js";
import { listenForClearBefore, redraw, redrawAll } from "./charts/redraw.js";

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
