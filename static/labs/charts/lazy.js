// The charts a page opens with are drawn as they come within a screen's height of the
// screen, and plotly.js is run for the first such chart: a phone's run page has its
// charts two or more screens down, and drawing them all at load (plotly.js's start, then
// a long task per chart) kept it from answering a tap for seconds. Until then a chart
// keeps its place, at its height, saying it is coming, so nothing below moves when it is
// drawn. Charts that come later (a run's answer after Run, a live reading every second, a
// draft's) are what the student waits for: drawn at once, near or not. Charts are drawn
// one per task, so a page with several answers a tap between two of them.
import { drawOne } from "./draw.js";
import { holdPlace, placeHeight } from "./figure.js";
import { registerLocale } from "./locale.js";
import { fetchPlotly, withPlotly } from "./plotly_loader.js";

const NEAR = "100% 0px 100% 0px";
const near = [];
let drawing = false;
const watcher = window.IntersectionObserver ? new IntersectionObserver(function (seen) {
  const come = seen.filter(function (e) { return e.isIntersecting; }).map(function (e) { return e.target; });
  come.forEach(function (box) { watcher.unobserve(box); });
  drawSoon(come);
}, { rootMargin: NEAR }) : null;

function isNear(box) {
  const r = box.getBoundingClientRect(), h = window.innerHeight;
  return (r.width > 0 || r.height > 0) && r.bottom >= -h && r.top <= 2 * h;
}

function drawSoon(boxes) {
  if (!boxes.length) return;
  boxes.forEach(function (box) { if (near.indexOf(box) < 0) near.push(box); });
  const started = !!window.Plotly;
  withPlotly(function () {
    registerLocale();
    if (drawing) return;
    drawing = true;
    // One chart per task: the browser handles a tap or a key between two charts, and
    // between plotly.js's start (its own long task) and the first chart. With plotly.js
    // running already, the first is drawn at once (a live chart must not blink).
    const next = function () {
      const box = near.shift();
      if (box) drawOne(box);
      if (near.length) setTimeout(next, 0); else drawing = false;
    };
    if (started) next(); else setTimeout(next, 0);
  });
}

// Draw the charts under `root` not drawn yet: all at once, or (`asNeared`, a page's
// first load) each as it nears the screen.
export function drawCharts(root, asNeared) {
  // A draft's answer waiting to land (drafts.js) is drawn where it lands, not here.
  const boxes = Array.prototype.filter.call(
    root.querySelectorAll("figure.chart:not(.drawn)"),
    function (box) { return !box.closest(".incoming"); }
  );
  if (!boxes.length) return;
  boxes.forEach(function (box) {
    const data = box.querySelector("script[type='application/json']");
    const plot = box.querySelector(".plot");
    if (data && plot) holdPlace(box, plot, JSON.parse(data.textContent));
  });
  if (document.fonts) document.fonts.ready.then(function () {
    boxes.forEach(function (box) {
      const data = box.querySelector("script[type='application/json']");
      const plot = box.querySelector(".plot");
      if (data && plot && !box.classList.contains("drawn")) {
        placeHeight(box, plot, JSON.parse(data.textContent));
      }
    });
  });
  const now = boxes.filter(function (box) { return !asNeared || !watcher || isNear(box); });
  boxes.forEach(function (box) { if (now.indexOf(box) < 0) watcher.observe(box); });
  if (now.length) drawSoon(now); else fetchPlotly();
}

// Everything on paper: a page printed draws the charts not yet reached.
export function drawAll() {
  if (!window.Plotly) return;
  document.querySelectorAll("figure.chart:not(.drawn)").forEach(function (box) {
    if (box.closest(".incoming")) return;
    if (watcher) watcher.unobserve(box);
    drawOne(box);
  });
}

// A running experiment's fragment is swapped every second with a new chart in it: before
// htmx removes the old one, Plotly.purge drops its listeners (a responsive plot listens to
// window resizes), so a minute of redraws does not leave sixty dead plots listening.
export function purgeCharts(root) {
  if (!root || !root.querySelectorAll) return;
  if (watcher) root.querySelectorAll("figure.chart:not(.drawn)").forEach(function (box) { watcher.unobserve(box); });
  if (!window.Plotly) return;
  root.querySelectorAll("figure.chart.drawn .plot").forEach(function (plot) {
    window.Plotly.purge(plot);
  });
}
