// Plotly places a legend below the chart in fractions of the plot's height, and grows the
// bottom margin to fit it, so on a short or narrow chart it lands on the x axis's title; and
// a note written at a level (a deadline, a timeout) can land on a bar's label, or on another
// note. Measure what was drawn and move the legend down, and such a note up, until clear.
import { liftClear, overlap, pushInside, shifted } from "./geometry.js";

function rect(node) { return node && node.getBoundingClientRect(); }

export function declutter(plot) {
  for (let round = 0; round < 3; round++) {
    const update = {}, size = plot._fullLayout && plot._fullLayout._size;
    if (!size || !size.h) return;
    const legend = rect(plot.querySelector(".legend .bg"));
    const title = rect(plot.querySelector(".g-xtitle text"));
    if (overlap(legend, title) && plot._fullLayout.legend.yref === "paper") {
      update["legend.y"] = plot._fullLayout.legend.y - (title.bottom + 6 - legend.top) / size.h;
    }
    const notes = plot.querySelectorAll(".annotation");
    const labels = Array.prototype.map.call(plot.querySelectorAll(".bartext"), rect);
    const placed = [];
    const plotBox = plot.getBoundingClientRect();
    const plotTop = plotBox.top + size.t, plotLeft = plotBox.left + size.l;
    notes.forEach(function (note) {
      const index = Number(note.getAttribute("data-index"));
      const annotation = plot._fullLayout.annotations[index];
      let b = rect(note.querySelector(".annotation-text-g text") || note);
      const push = pushInside(b, plotLeft, size.w);
      if (push) {
        update["annotations[" + index + "].xshift"] = (annotation.xshift || 0) + push;
        b = shifted(b, push);
      }
      const move = liftClear(b, labels.concat(placed), plotTop);
      if (move) update["annotations[" + index + "].yshift"] = (annotation.yshift || 0) + move;
      placed.push(b);
    });
    if (!Object.keys(update).length) return;
    window.Plotly.relayout(plot, update);
  }
}
