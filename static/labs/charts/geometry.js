// Sums on the boxes of what a chart drew (getBoundingClientRect's shape: left, right, top,
// bottom, width, height), for declutter.js. Pure: the boxes come from the caller.

// Whether two drawn boxes cover each other by more than a pixel (no box: no).
export function overlap(a, b) {
  return a && b && a.width && b.width && a.left < b.right - 1 && b.left < a.right - 1 &&
    a.top < b.bottom - 1 && b.top < a.bottom - 1;
}

// Pixels to move a note sideways so that it sits inside the plot: a note half over the
// plot's left or right edge (a window's note centred near the start) sat on the axis's
// tick labels. 0 when it is inside, wholly outside, or wider than the plot.
export function pushInside(box, plotLeft, plotWidth) {
  const plotRight = plotLeft + plotWidth;
  if (!box || !box.width || box.width >= plotWidth) return 0;
  if (box.left < plotLeft - 1 && box.right > plotLeft) return plotLeft - box.left + 2;
  if (box.right > plotRight + 1 && box.left < plotRight) return plotRight - box.right - 2;
  return 0;
}

// The same box moved `push` pixels to the right.
export function shifted(box, push) {
  return { left: box.left + push, right: box.right + push, top: box.top, bottom: box.bottom,
    width: box.width, height: box.height };
}

// Pixels to move a note up (positive: Plotly's yshift) clear of every box it lands on;
// but never above the plot's top, where the chart's title hangs (a phone's two-line
// Marathi title met a lifted note there): then down (negative) instead. 0: nothing to move.
export function liftClear(box, others, plotTop) {
  let lift = 0, drop = 0;
  others.forEach(function (other) {
    if (overlap(box, other)) {
      lift = Math.max(lift, box.bottom - other.top + 2);
      drop = Math.max(drop, other.bottom - box.top + 2);
    }
  });
  return box && lift && box.top - lift < plotTop ? -drop : lift;
}
