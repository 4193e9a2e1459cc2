// "Before" lines: on a lab page that re-runs as its controls move (data-before-word on
// the panel), each chart keeps the previous result's lines and bars, faint, under the
// new ones (above a filled area), labelled in the page's language; the bar's button
// clears them. Kept per panel and chart position, so they survive the panel being
// swapped after Run.
// Pure: the memories are plain objects in a plain store; before_panel.js finds the panel.

// The faint lines are one grey, dotted, and one legend entry ("before") says what they
// are; each one's own name shows on hover. A legend of every line twice would crowd a
// phone's chart onto its notes and axes.
export const FAINT = "#6e7781";

// The memory of one chart position in one panel, made on first use.
export function memoryAt(store, panelId, at, word) {
  const key = panelId + ":" + at;
  return store[key] || (store[key] = { now: null, before: null, word: word });
}

// Whether any chart of the panel has "before" lines to clear.
export function anyBefore(store, panelId) {
  return Object.keys(store).some(function (k) {
    return k.indexOf(panelId + ":") === 0 && store[k].before;
  });
}

// Forget every "before" of the panel (the clear button).
export function forgetBefore(store, panelId) {
  Object.keys(store).forEach(function (k) {
    if (k.indexOf(panelId + ":") === 0) store[k].before = null;
  });
}

export function scatterLines(data) {
  return data.filter(function (t) { return (t.type || "scatter") === "scatter"; });
}

// The traces a chart can show faintly: its lines and its bars.
export function ghostable(data) {
  return data.filter(function (t) {
    const kind = t.type || "scatter";
    return kind === "scatter" || kind === "bar";
  });
}

// The previous result becomes "before" when the new one differs from it and has the
// same kinds of traces (another chart in that place is not a "before").
export function remember(memory, data) {
  const text = JSON.stringify(data);
  if (memory.now && memory.now.text !== text) {
    const was = memory.now.data;
    const kinds = function (d) { return ghostable(d).map(function (t) { return t.type || "scatter"; }).join(); };
    const same = ghostable(data).length && kinds(was) === kinds(data);
    memory.before = same ? was : null;
  }
  memory.now = { text: text, data: data };
}

function hover(t, memory) {
  const name = (t.name || "") + " (" + memory.word + ")";
  return "%{x}, %{y}<extra>" + name.replace(/</g, "&lt;") + "</extra>";
}

// The "before" traces, faint (none without a memory or a "before"): lines grey and dotted;
// bars grey and pale beside the new ones (a grouped chart) or behind them (overlaid); on a
// stacked bar chart a faint bar would sit on top of the new ones, so it has none.
export function faint(memory, barmode) {
  if (!memory || !memory.before) return [];
  const stacked = barmode === "stack" || barmode === "relative";
  return ghostable(memory.before).filter(function (t) {
    return !(t.type === "bar" && stacked);
  }).map(function (t, i) {
    if (t.type === "bar") {
      return {
        type: "bar", x: t.x, y: t.y, xaxis: t.xaxis, yaxis: t.yaxis, orientation: t.orientation,
        name: memory.word, showlegend: i === 0, legendgroup: "before",
        marker: { color: FAINT, line: { color: FAINT, width: 1 } }, opacity: 0.35,
        hovertemplate: hover(t, memory),
      };
    }
    return {
      type: "scatter", x: t.x, y: t.y, xaxis: t.xaxis, yaxis: t.yaxis,
      mode: t.mode || "lines", name: memory.word, showlegend: i === 0, legendgroup: "before",
      line: { color: FAINT, width: 1.5, dash: "dot", shape: t.line && t.line.shape },
      marker: { color: FAINT, size: 4 }, opacity: 0.6,
      hovertemplate: hover(t, memory),
    };
  });
}

function filled(t) { return !!t.fill && t.fill !== "none"; }

// Every trace to draw: the faint "before" traces under the new result's lines and bars but
// above its filled areas (drain's backlog: a faint line under a higher new area was hidden).
// Inserted after the last filled trace, so a "tonexty" fill still fills to its own trace.
export function withBefore(memory, data, barmode) {
  const ghosts = faint(memory, barmode);
  if (!ghosts.length) return data;
  let last = -1;
  data.forEach(function (t, i) { if (filled(t)) last = i; });
  return data.slice(0, last + 1).concat(ghosts, data.slice(last + 1));
}
