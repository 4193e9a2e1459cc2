import { describe, expect, it } from "vitest";

import { fitTitle, titleFamily, wrap } from "../../../../static/labs/charts/title.js";

// A stand-in for the canvas: every character 10 px wide.
const tenEach = (text) => text.length * 10;

describe("wrap", () => {
  it("breaks at the last space that keeps a line within the room", () => {
    expect(wrap("a bb ccc dddd", 60, tenEach)).toEqual(["a bb", "ccc", "dddd"]);
  });

  it("keeps a word wider than the room whole, on its own line", () => {
    expect(wrap("abcdefghij ab", 50, tenEach)).toEqual(["abcdefghij", "ab"]);
  });
});

describe("fitTitle", () => {
  const title = "Queue length over time"; // 220 px

  it("wraps a phone's title to its width less 10 px each side, and grows the chart", () => {
    const margin = { t: 60 };
    const layout = { title: { text: title }, margin, height: 400 };
    expect(fitTitle(layout, 200, false, tenEach)).toBe(22);
    expect(layout.title.text).toBe("Queue length over<br>time");
    expect(layout.margin).toEqual({ t: 82 });
    expect(layout.height).toBe(422);
    expect(margin).toEqual({ t: 60 }); // the figure's own margin object is not changed
  });

  it("lets a phone's title fill all but 10 px each side", () => {
    expect(fitTitle({ title: { text: title } }, 240, false, tenEach)).toBeUndefined();
    expect(fitTitle({ title: { text: title } }, 239, false, tenEach)).toBe(22);
  });

  it("keeps the toolbar's 130 px clear on both sides", () => {
    const withToolbar = { title: { text: title } };
    expect(fitTitle(withToolbar, 400, true, tenEach)).toBe(22); // room 140
    expect(withToolbar.title.text).toBe("Queue length<br>over time");
    expect(withToolbar.margin).toEqual({ t: 102 }); // Plotly's 80 by default
    expect(withToolbar.height).toBeUndefined();
    const without = { title: { text: title } };
    expect(fitTitle(without, 400, false, tenEach)).toBeUndefined(); // room 380
    expect(without).toEqual({ title: { text: title } });
  });

  it("never leaves less than 120 px", () => {
    const layout = { title: { text: "abcdefghijk abcdefghijk" } }; // 110 px words
    expect(fitTitle(layout, 100, false, tenEach)).toBe(22);
    expect(layout.title.text).toBe("abcdefghijk<br>abcdefghijk");
  });

  it("rewraps a title's own line breaks, and leaves one that fits as written", () => {
    const narrow = { title: { text: "Queue<br>length over time" }, margin: { t: 50 } };
    expect(fitTitle(narrow, 150, false, tenEach)).toBe(22); // room 130
    expect(narrow.title.text).toBe("Queue length<br>over time");
    expect(narrow.margin.t).toBe(72);
    const wide = { title: { text: "Queue<br>length" } };
    expect(fitTitle(wide, 1000, false, tenEach)).toBeUndefined();
    expect(wide.title.text).toBe("Queue<br>length");
  });

  it("does nothing without a title or a width", () => {
    expect(fitTitle({}, 300, false, tenEach)).toBeUndefined();
    expect(fitTitle({ title: { text: "" } }, 300, false, tenEach)).toBeUndefined();
    expect(fitTitle({ title: { text: title } }, 0, false, tenEach)).toBeUndefined();
  });
});

describe("titleFamily", () => {
  it("is the title's font, else the layout's, else none (Plotly's)", () => {
    const font = { family: "Noto Sans" };
    expect(titleFamily({ title: { font: { family: "Serif" } }, font })).toBe("Serif");
    expect(titleFamily({ title: { text: "t" }, font })).toBe("Noto Sans");
    expect(titleFamily({ title: { text: "t" } })).toBeUndefined();
    expect(titleFamily({})).toBeUndefined();
  });
});
