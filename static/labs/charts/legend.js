// A horizontal legend below the plot, and the bottom margin it and the x axis's words need.
// Pure: text widths come from the caller (measure.js in the page).
//
// A legend below the plot, placed in fractions of the plot's height, made Plotly draw a
// chart three to five times: once, again for each margin its legend pushed, and again
// for each move `declutter` made to take it off the x axis's title. Instead it hangs at
// the chart's foot (container coordinates) with the x axis's words given their own room
// (automargin), so Plotly itself keeps the two apart; and the bottom margin both need is
// reckoned here, from the legend's rows as Plotly lays them out, so nothing is pushed and
// the chart is drawn once. A reckoning short of the truth costs one more drawing (Plotly
// pushes the margin), never an overlap; one over it leaves a few pixels more below.
import { TITLE_LINE_PX } from "./title.js";

export const AXIS_WORDS_PX = 44; // tick labels and the x axis's title, below the plot (42 measured)
export const LEGEND_ROW_PX = 19; // a one-line entry: 12 px × 1.3, at least 16, plus 3 (Plotly's)
export const LEGEND_PAD_PX = 10; // the legend's own padding, above and below its rows
export const LEGEND_SYMBOL_PX = 40; // an entry's symbol and the gaps around it
export const LEGEND_GAP_PX = 5;

// The names the legend shows, in order; [] when Plotly shows no legend; null when this
// reckoning cannot foresee the legend (groups, other trace types, names on two lines).
export function legendEntries(layout, traces) {
  if (layout.showlegend === false) return null;
  const names = [];
  for (let i = 0; i < traces.length; i++) {
    const t = traces[i];
    if (t.legendgroup || (t.type && ["scatter", "bar", "box"].indexOf(t.type) < 0)) return null;
    if (t.showlegend !== false && t.visible !== false) names.push(String(t.name || "trace " + i));
  }
  const shown = names.length > 1 || traces.some(function (t) { return t.showlegend === true; });
  if (!shown) return [];
  if (names.some(function (n) { return /<br>|\n/i.test(n); })) return null;
  return names;
}

// Rows of a horizontal legend `room` pixels wide, as plotly.js's legend/draw.js packs them:
// all in one row if they fit, else in columns as wide as the widest entry. `widthOf(text)`
// measures an entry's words in the legend's 12 px font.
export function legendRows(names, room, widthOf) {
  const widths = names.map(function (n) {
    return LEGEND_SYMBOL_PX + widthOf(n.replace(/<[^>]+>/g, ""));
  });
  const total = widths.reduce(function (a, b) { return a + b; }, 0);
  if (total + (names.length - 1) * LEGEND_GAP_PX < room) return 1;
  const next = Math.max.apply(null, widths) + LEGEND_GAP_PX;
  let x = 0, rows = 1;
  names.forEach(function (n, i) {
    if (i && next + x - LEGEND_GAP_PX >= room) { rows++; x = 0; }
    x += next;
  });
  return rows;
}

// The font family the legend is drawn in; undefined means Plotly's default.
export function legendFamily(layout) {
  const legend = layout.legend;
  return (legend && legend.font && legend.font.family) || (layout.font && layout.font.family);
}

// Hang a horizontal legend set below the plot (y < 0) at the chart's foot instead, and
// make the bottom margin room for it and the x axis's words. Changes `layout` in place.
export function settleLegend(layout, traces, width, widthOf) {
  const legend = layout.legend;
  const x = layout.xaxis || {};
  width = layout.width || width;
  if (!legend || legend.orientation !== "h" || legend.yref === "container" || !width) return;
  if (!(typeof legend.y === "number" && legend.y < 0) || x.type === "category") return;
  layout.legend = Object.assign({}, legend, { yref: "container", y: 0, yanchor: "bottom" });
  layout.xaxis = Object.assign({}, x, { automargin: true });
  const names = legendEntries(layout, traces);
  if (!names || x.tickangle || x.side === "top") return; // Plotly makes the room itself
  const margin = Object.assign({ l: 80, r: 80, b: 80 }, layout.margin);
  const rows = names.length ? legendRows(names, Math.max(width - margin.l - margin.r, 80), widthOf) : 0;
  const legendPx = rows ? rows * LEGEND_ROW_PX + LEGEND_PAD_PX : 0;
  const titled = x.title && (typeof x.title === "string" || x.title.text);
  const axisPx = titled ? AXIS_WORDS_PX : AXIS_WORDS_PX - TITLE_LINE_PX;
  margin.b = Math.max(margin.b, axisPx + legendPx);
  layout.margin = margin;
}
