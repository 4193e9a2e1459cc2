// A drawn chart whose JSON was replaced by a new result's (drafts.js): drawn again on
// the same element with Plotly.react, so it changes in place rather than flashing blank.
import { forgetBefore } from "./before.js";
import { memories } from "./before_panel.js";
import { declutter } from "./declutter.js";
import { announceDrawn } from "./draw.js";
import { figureToDraw } from "./figure.js";
import { withPlotly } from "./plotly_loader.js";

export function redraw(box, then) {
  box.classList.add("redrawing"); // until its words are measured and moved clear
  withPlotly(function () {
    const plot = box.querySelector(".plot");
    if (!plot || !box.isConnected) return then && then();
    const { fig, all } = figureToDraw(box, plot);
    // Measured once the new layout is drawn (react may finish a frame later).
    window.Plotly.react(plot, all, fig.layout, fig.config).then(function () {
      declutter(plot);
      box.classList.remove("redrawing");
      announceDrawn(box);
      if (then) then();
    });
  });
}

// Several charts of one new result, one per task, the one the student is looking at
// first: all in one task, the chart in view waited for every chart below it.
export function redrawAll(boxes) {
  const middle = window.innerHeight / 2;
  function away(box) {
    const r = box.getBoundingClientRect();
    return r.bottom < 0 || r.top > window.innerHeight ? 1e6 + Math.abs(r.top - middle) : r.top;
  }
  const queue = Array.prototype.slice.call(boxes).sort(function (a, b) {
    return away(a) - away(b);
  });
  (function next() {
    const box = queue.shift();
    if (box) redraw(box, function () { setTimeout(next, 0); });
  })();
}

// The panel's "clear" button: its charts drawn again without their "before" lines.
export function listenForClearBefore() {
  document.addEventListener("click", function (event) {
    const button = event.target.closest("[data-clear-before]");
    if (!button) return;
    const panel = button.closest(".lab-panel");
    forgetBefore(memories, panel.id);
    redrawAll(panel.querySelectorAll(".results figure.chart.drawn, .stage-chart figure.chart.drawn"));
    button.hidden = true;
  });
}
