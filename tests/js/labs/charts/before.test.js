import { describe, expect, it } from "vitest";

import {
  FAINT,
  anyBefore,
  faint,
  forgetBefore,
  memoryAt,
  remember,
  scatterLines,
  withBefore,
} from "../../../../static/labs/charts/before.js";

const queue = (y) => ({ name: "queue", x: [0, 1, 2], y });
const bar = { type: "bar", name: "served", x: ["a"], y: [3] };

describe("memoryAt", () => {
  it("keeps one memory per panel and chart position", () => {
    const store = {};
    const first = memoryAt(store, "lab-1", 0, "before");
    expect(first).toEqual({ now: null, before: null, word: "before" });
    expect(memoryAt(store, "lab-1", 0, "आधी")).toBe(first);
    expect(memoryAt(store, "lab-1", 1, "before")).not.toBe(first);
    expect(Object.keys(store)).toEqual(["lab-1:0", "lab-1:1"]);
  });
});

describe("remember", () => {
  it("makes the previous result 'before' when a new one with as many lines differs", () => {
    const memory = { now: null, before: null, word: "before" };
    const old = [queue([1, 2, 3]), bar];
    remember(memory, old);
    expect(memory.before).toBeNull();
    const next = [queue([1, 4, 9]), bar];
    remember(memory, next);
    expect(memory.before).toBe(old);
    expect(memory.now).toEqual({ text: JSON.stringify(next), data: next });
  });

  it("keeps 'before' when the same result comes again", () => {
    const memory = { now: null, before: null, word: "before" };
    const old = [queue([1, 2, 3])];
    remember(memory, old);
    remember(memory, [queue([1, 4, 9])]);
    remember(memory, [queue([1, 4, 9])]);
    expect(memory.before).toBe(old);
  });

  it("drops 'before' for another kind of chart, or one with no lines", () => {
    const memory = { now: null, before: null, word: "before" };
    remember(memory, [queue([1, 2, 3])]);
    remember(memory, [queue([1, 4, 9]), queue([0, 0, 0])]);
    expect(memory.before).toBeNull();
    const other = { now: null, before: null, word: "before" };
    remember(other, [bar]);
    remember(other, [queue([1, 2, 3])]);
    expect(other.before).toBeNull();
    const none = { now: null, before: null, word: "before" };
    remember(none, [{ type: "heatmap", z: [[1]] }]);
    remember(none, [{ type: "heatmap", z: [[2]] }]);
    expect(none.before).toBeNull();
  });

  it("keeps the previous bars of a bar chart", () => {
    const bars = { now: null, before: null, word: "before" };
    remember(bars, [bar]);
    remember(bars, [Object.assign({}, bar, { y: [4] })]);
    expect(bars.before).toEqual([bar]);
  });
});

describe("faint", () => {
  it("draws the previous lines grey and dotted under one legend entry", () => {
    const memory = {
      now: null,
      word: "before",
      before: [
        { name: "<queue>", x: [0, 1], y: [2, 3], line: { shape: "hv" }, xaxis: "x2", yaxis: "y2" },
        { type: "scatter", x: [0], y: [1], mode: "markers" },
        bar,
      ],
    };
    expect(faint(memory)).toEqual([
      {
        type: "scatter", x: [0, 1], y: [2, 3], xaxis: "x2", yaxis: "y2", mode: "lines",
        name: "before", showlegend: true, legendgroup: "before",
        line: { color: FAINT, width: 1.5, dash: "dot", shape: "hv" },
        marker: { color: FAINT, size: 4 }, opacity: 0.6,
        hovertemplate: "%{x}, %{y}<extra>&lt;queue> (before)</extra>",
      },
      {
        type: "scatter", x: [0], y: [1], xaxis: undefined, yaxis: undefined, mode: "markers",
        name: "before", showlegend: false, legendgroup: "before",
        line: { color: FAINT, width: 1.5, dash: "dot", shape: undefined },
        marker: { color: FAINT, size: 4 }, opacity: 0.6,
        hovertemplate: "%{x}, %{y}<extra> (before)</extra>",
      },
      {
        type: "bar", x: ["a"], y: [3], xaxis: undefined, yaxis: undefined, orientation: undefined,
        name: "before", showlegend: false, legendgroup: "before",
        marker: { color: FAINT, line: { color: FAINT, width: 1 } }, opacity: 0.35,
        hovertemplate: "%{x}, %{y}<extra>served (before)</extra>",
      },
    ]);
  });

  it("leaves the bars out of a stacked bar chart (they would sit on top of the new ones)", () => {
    const memory = { now: null, word: "before", before: [bar, queue([1])] };
    expect(faint(memory, "stack").map((t) => t.type)).toEqual(["scatter"]);
    expect(faint(memory, "group").map((t) => t.type)).toEqual(["bar", "scatter"]);
  });

  it("is nothing without a memory or a 'before'", () => {
    expect(faint(null)).toEqual([]);
    expect(faint({ now: null, before: null, word: "before" })).toEqual([]);
  });
});

describe("withBefore", () => {
  it("puts the faint lines under the new result's", () => {
    const data = [queue([5])];
    const all = withBefore({ now: null, before: [queue([4])], word: "before" }, data);
    expect(all.map((t) => t.name)).toEqual(["before", "queue"]);
    expect(all[1]).toBe(data[0]);
    expect(withBefore(null, data)).toEqual(data);
  });

  it("draws the faint lines above a filled area, after its last filled trace", () => {
    const area = { name: "backlog", x: [0], y: [9], fill: "tozeroy" };
    const data = [area, queue([5])];
    const all = withBefore({ now: null, before: [area, queue([4])], word: "before" }, data);
    expect(all.map((t) => t.name)).toEqual(["backlog", "before", "before", "queue"]);
    expect(all[0]).toBe(area);
    expect(all[1].fill).toBeUndefined();
  });
});

describe("scatterLines", () => {
  it("keeps the scatter traces, a trace with no type being one", () => {
    expect(scatterLines([queue([1]), bar, { type: "scatter" }]).length).toBe(2);
  });
});

describe("anyBefore and forgetBefore", () => {
  it("look at one panel's charts only", () => {
    const store = {};
    memoryAt(store, "lab-1", 0, "before").before = [queue([1])];
    memoryAt(store, "lab-10", 0, "before").before = [queue([2])];
    memoryAt(store, "lab-2", 0, "before");
    expect(anyBefore(store, "lab-1")).toBe(true);
    expect(anyBefore(store, "lab-2")).toBe(false);
    forgetBefore(store, "lab-1");
    expect(anyBefore(store, "lab-1")).toBe(false);
    expect(store["lab-1:0"].before).toBeNull();
    expect(anyBefore(store, "lab-10")).toBe(true);
  });
});
