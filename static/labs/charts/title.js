// A chart's title, wrapped to the chart's width. Pure: the text's width comes from the
// caller (measure.js in the page, a stand-in in the unit tests), so no DOM is needed here.

// Below this width a chart has no toolbar: zoom boxes are no use under a thumb, and the
// title needs the whole width.
export const PHONE_PX = 600;
// The toolbar (top right, over the title's line) with the few buttons left below.
export const TOOLBAR_PX = 130;
export const TITLE_LINE_PX = 22;

// Break a title into lines no wider than `room` pixels, at spaces.
export function wrap(text, room, widthOf) {
  const lines = [];
  let line = "";
  text.split(/\s+/).forEach(function (word) {
    const next = line ? line + " " + word : word;
    if (line && widthOf(next) > room) { lines.push(line); line = word; } else { line = next; }
  });
  if (line) lines.push(line);
  return lines;
}

// The font family a title is drawn in (the title's own, else the layout's); undefined means
// Plotly's default.
export function titleFamily(layout) {
  const title = layout.title;
  return (title && title.font && title.font.family) || (layout.font && layout.font.family);
}

// A centred title must clear the toolbar on its right (so, by symmetry, as much on its
// left) and the chart's edges: wrap it, and make the top margin room for its lines.
// Changes `layout` in place; returns the pixels added, or undefined when nothing changed.
// `widthOf(text)` measures a title line in the title's font.
export function fitTitle(layout, width, toolbar, widthOf) {
  const title = layout.title;
  if (!title || !title.text || !width) return undefined;
  const room = Math.max(width - 2 * (toolbar ? TOOLBAR_PX : 10), 120);
  const lines = wrap(String(title.text).replace(/<br>/g, " "), room, widthOf);
  if (lines.length < 2) return undefined;
  title.text = lines.join("<br>");
  const extra = (lines.length - 1) * TITLE_LINE_PX;
  layout.margin = Object.assign({}, layout.margin);
  layout.margin.t = (layout.margin.t || 80) + extra;
  if (layout.height) layout.height += extra;
  return extra;
}
