// Text widths in the fonts Plotly draws with, measured on a canvas (the one DOM need of
// title.js's and legend.js's sums, which take these functions as arguments).
const PLOTLY_FAMILY = "'Open Sans', verdana, arial, sans-serif";
const canvas = document.createElement("canvas").getContext("2d");

function widthIn(font, text) {
  canvas.font = font;
  return canvas.measureText(text).width;
}

// A title line's width in the chart's 17 px title font (its family, else Plotly's).
export function titleWidth(family) {
  return function (text) {
    return widthIn("17px " + (family || PLOTLY_FAMILY), text) * 1.08; // the SVG font may be a little wider
  };
}

// A legend entry's words' width in Plotly's 12 px legend font.
export function legendWidth(family) {
  return function (text) { return widthIn("12px " + (family || PLOTLY_FAMILY), text); };
}
