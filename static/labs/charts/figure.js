// A chart's figure as it will be drawn at its box's width: its JSON (a
// <script type="application/json"> inside <figure class="chart">, written by Django), its
// title wrapped, its legend settled, the faint "before" lines under it; and the box's
// place held at that height until it is drawn.
import { memoryOf } from "./before_panel.js";
import { remember, withBefore } from "./before.js";
import { legendFamily, settleLegend } from "./legend.js";
import { CONFIG } from "./locale.js";
import { legendWidth, titleWidth } from "./measure.js";
import { loadingWords } from "./page_data.js";
import { PHONE_PX, fitTitle, titleFamily } from "./title.js";

function fitTitleHere(layout, width, toolbar) {
  return fitTitle(layout, width, toolbar, titleWidth(titleFamily(layout)));
}

// As tall as it will be drawn: with the lines its title wraps into at this width, in the
// page's fonts (measured again once they have come).
export function placeHeight(box, plot, fig) {
  const layout = Object.assign({}, fig.layout);
  layout.title = layout.title && Object.assign({}, layout.title);
  const width = plot.clientWidth || box.clientWidth;
  fitTitleHere(layout, width, width >= PHONE_PX);
  const cap = heightCap(box);
  plot.style.height = Math.round(Math.min(layout.height || 450, cap || Infinity)) + "px";
}

// The chart's place, as tall as the chart will be, saying it is coming.
export function holdPlace(box, plot, fig) {
  if (plot.querySelector(".chart-wait") || box.classList.contains("drawn")) return;
  if (!plot.style.height) placeHeight(box, plot, fig);
  const note = document.createElement("p");
  note.className = "chart-wait";
  note.textContent = loadingWords;
  plot.appendChild(note);
}

// On the lab's stage (stage.js, site.css --chart-max-h) a chart is at most this tall, so
// on a phone the controls keep most of the screen beneath it.
export function heightCap(box) {
  if (!box.closest || !box.closest(".stage-chart")) return 0;
  const most = parseFloat(getComputedStyle(box).getPropertyValue("--chart-max-h"));
  return most > 0 ? Math.max(200, Math.min(most, window.innerHeight * 0.38)) : 0;
}

function figureOf(box, plot) {
  const fig = JSON.parse(box.querySelector("script[type='application/json']").textContent);
  const width = plot.clientWidth || box.clientWidth;
  const toolbar = width >= PHONE_PX;
  const extra = fitTitleHere(fig.layout, width, toolbar);
  if (extra && plot.style.height) plot.style.height = fig.layout.height + "px";
  const cap = heightCap(box);
  if (cap && (fig.layout.height || 450) > cap) {
    fig.layout.height = Math.round(cap);
    plot.style.height = fig.layout.height + "px";
  }
  fig.config = Object.assign({ displayModeBar: toolbar ? "hover" : false }, CONFIG);
  fig.width = width;
  return fig;
}

// The figure to draw, its traces (`all`) with the "before" lines, remembered as the
// chart's newest result.
export function figureToDraw(box, plot) {
  const fig = figureOf(box, plot), memory = memoryOf(box);
  if (memory) remember(memory, fig.data);
  const all = withBefore(memory, fig.data, fig.layout.barmode);
  settleLegend(fig.layout, all, fig.width, legendWidth(legendFamily(fig.layout)));
  return { fig: fig, all: all };
}
