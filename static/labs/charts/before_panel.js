// Where a chart's "before" memory lives on the page (before.js holds the sums): per lab
// panel that re-runs as its controls move (data-before-word) and the chart's position in
// the run's body; and the panel's button that clears them, shown while any is kept.
import { anyBefore, memoryAt } from "./before.js";

export const memories = {};

// The chart's memory, or null outside a panel that keeps "before" lines.
export function memoryOf(box) {
  const panel = box.closest(".lab-panel[data-before-word]"), body = box.closest(".run-body");
  // A chart on the lab's stage (stage.js) is out of its body: it carries its place.
  if (!panel || (!body && box.dataset.at === undefined)) return null;
  const at = box.dataset.at !== undefined ? Number(box.dataset.at)
    : Array.prototype.indexOf.call(body.querySelectorAll("figure.chart"), box);
  return memoryAt(memories, panel.id, at, panel.dataset.beforeWord);
}

export function showClear(box) {
  const panel = box.closest(".lab-panel");
  const button = panel && panel.querySelector("[data-clear-before]");
  if (!button) return;
  button.hidden = !anyBefore(memories, panel.id);
}
