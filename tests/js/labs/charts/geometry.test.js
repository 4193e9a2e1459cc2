import { describe, expect, it } from "vitest";

import { liftClear, overlap, pushInside, shifted } from "../../../../static/labs/charts/geometry.js";

const box = (left, top, width, height) =>
  ({ left, top, width, height, right: left + width, bottom: top + height });

describe("overlap", () => {
  it("is true for boxes that cover each other by more than a pixel", () => {
    expect(overlap(box(0, 0, 50, 20), box(40, 10, 50, 20))).toBe(true);
  });

  it("is false for boxes that only touch, within a pixel", () => {
    expect(overlap(box(0, 0, 50, 20), box(49, 0, 50, 20))).toBe(false);
    expect(overlap(box(0, 0, 50, 20), box(0, 19, 50, 20))).toBe(false);
  });

  it("is false without two drawn boxes", () => {
    expect(overlap(undefined, box(0, 0, 50, 20))).toBeFalsy();
    expect(overlap(box(0, 0, 0, 20), box(0, 0, 50, 20))).toBeFalsy();
  });
});

describe("pushInside", () => {
  // The plot from 100 to 300 px.
  it("moves a note over the left edge right, one over the right edge left, 2 px inside", () => {
    expect(pushInside(box(90, 0, 40, 10), 100, 200)).toBe(12);
    expect(pushInside(box(280, 0, 40, 10), 100, 200)).toBe(-22);
  });

  it("leaves a note inside, within a pixel of an edge, or wholly outside", () => {
    expect(pushInside(box(150, 0, 40, 10), 100, 200)).toBe(0);
    expect(pushInside(box(99.5, 0, 40, 10), 100, 200)).toBe(0);
    expect(pushInside(box(40, 0, 50, 10), 100, 200)).toBe(0);
  });

  it("leaves a note as wide as the plot, or no note", () => {
    expect(pushInside(box(90, 0, 200, 10), 100, 200)).toBe(0);
    expect(pushInside(undefined, 100, 200)).toBe(0);
  });
});

describe("shifted", () => {
  it("moves a box sideways", () => {
    expect(shifted(box(90, 5, 40, 10), 12)).toEqual(box(102, 5, 40, 10));
  });
});

describe("liftClear", () => {
  const note = box(0, 100, 50, 20);
  const label = box(10, 110, 30, 20);

  it("lifts a note 2 px above what it lands on", () => {
    expect(liftClear(note, [label], 50)).toBe(12);
    expect(liftClear(note, [label, box(0, 105, 50, 30)], 50)).toBe(17);
  });

  it("drops it below instead when lifting would take it above the plot's top", () => {
    expect(liftClear(note, [label], 95)).toBe(-32);
  });

  it("leaves a note that lands on nothing", () => {
    expect(liftClear(note, [box(0, 200, 50, 20)], 50)).toBe(0);
    expect(liftClear(note, [], 50)).toBe(0);
  });
});
