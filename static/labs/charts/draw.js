// Draw one chart whose place is held (figure.js), then move its words clear (declutter.js)
// and say so: a page's own script (the class overlay's highlighting) hooks in on
// "chart:drawn".
import { showClear } from "./before_panel.js";
import { declutter } from "./declutter.js";
import { figureToDraw } from "./figure.js";

export function announceDrawn(box) {
  showClear(box);
  box.dispatchEvent(new CustomEvent("chart:drawn", { bubbles: true }));
}

export function drawOne(box) {
  if (box.classList.contains("drawn") || !box.isConnected) return;
  const data = box.querySelector("script[type='application/json']");
  const plot = box.querySelector(".plot");
  if (!data || !plot) return;
  const wait = plot.querySelector(".chart-wait");
  if (wait) wait.remove();
  const { fig, all } = figureToDraw(box, plot);
  window.Plotly.newPlot(plot, all, fig.layout, fig.config);
  declutter(plot);
  box.classList.add("drawn");
  announceDrawn(box);
}
