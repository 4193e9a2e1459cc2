// "Before" lines: on a lab page that re-runs as its controls move (data-before-word on
// the panel), each chart keeps the previous result's lines, faint and dotted, under the
// new ones, labelled in the page's language; the bar's button clears them. Kept per
// panel and chart position, so they survive the panel being swapped after Run.
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

// The previous result becomes "before" when the new one differs from it and has the
// same kinds of lines (another chart in that place is not a "before").
export function remember(memory, data) {
  const text = JSON.stringify(data);
  if (memory.now && memory.now.text !== text) {
    const was = memory.now.data;
    const same = scatterLines(was).length === scatterLines(data).length && scatterLines(data).length;
    memory.before = same ? was : null;
  }
  memory.now = { text: text, data: data };
}

// The "before" lines as faint traces (none without a memory or a "before").
export function faint(memory) {
  if (!memory || !memory.before) return [];
  return scatterLines(memory.before).map(function (t, i) {
    const name = (t.name || "") + " (" + memory.word + ")";
    return {
      type: "scatter", x: t.x, y: t.y, xaxis: t.xaxis, yaxis: t.yaxis,
      mode: t.mode || "lines", name: memory.word, showlegend: i === 0, legendgroup: "before",
      line: { color: FAINT, width: 1.5, dash: "dot", shape: t.line && t.line.shape },
      marker: { color: FAINT, size: 4 }, opacity: 0.6,
      hovertemplate: "%{x}, %{y}<extra>" + name.replace(/</g, "&lt;") + "</extra>",
    };
  });
}

// Every trace to draw: the faint "before" lines under the new result's.
export function withBefore(memory, data) { return faint(memory).concat(data); }
