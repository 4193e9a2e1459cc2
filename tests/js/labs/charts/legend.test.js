import { describe, expect, it } from "vitest";

import {
  legendEntries,
  legendFamily,
  legendRows,
  settleLegend,
} from "../../../../static/labs/charts/legend.js";

// A stand-in for the canvas: every character 10 px wide.
const tenEach = (text) => text.length * 10;
const line = (name, more) => Object.assign({ type: "scatter", name }, more);

describe("legendEntries", () => {
  it("names the lines the legend shows, in order", () => {
    const traces = [line("queue"), line("hidden", { visible: false }), line("served"),
      line("quiet", { showlegend: false }), { y: [1] }];
    expect(legendEntries({}, traces)).toEqual(["queue", "served", "trace 4"]);
  });

  it("shows a single line only when it asks to be shown", () => {
    expect(legendEntries({}, [line("queue")])).toEqual([]);
    expect(legendEntries({}, [line("queue", { showlegend: true })])).toEqual(["queue"]);
  });

  it("cannot foresee groups, other trace types, two-line names or a hidden legend", () => {
    expect(legendEntries({}, [line("a"), line("b", { legendgroup: "before" })])).toBeNull();
    expect(legendEntries({}, [line("a"), { type: "heatmap", name: "b" }])).toBeNull();
    expect(legendEntries({}, [line("a"), line("b<br>c")])).toBeNull();
    expect(legendEntries({ showlegend: false }, [line("a"), line("b")])).toBeNull();
  });
});

describe("legendRows", () => {
  it("is one row when every entry (40 px symbol + words) and 5 px gaps fit", () => {
    expect(legendRows(["a", "b"], 106, tenEach)).toBe(1); // 50 + 5 + 50
    expect(legendRows(["a", "b"], 105, tenEach)).toBe(2);
  });

  it("packs columns as wide as the widest entry", () => {
    // widths 70, 50, 60: columns of 75 px, two to a row wider than 75 + 70 px
    expect(legendRows(["aaa", "b", "cc"], 146, tenEach)).toBe(2);
    expect(legendRows(["aaa", "b", "cc"], 145, tenEach)).toBe(3);
  });

  it("measures the words without their markup", () => {
    expect(legendRows(["<b>ab</b>", "c"], 116, tenEach)).toBe(1); // 60 + 5 + 50
    expect(legendRows(["<b>ab</b>", "c"], 115, tenEach)).toBe(2);
  });
});

describe("settleLegend", () => {
  const below = () => ({
    legend: { orientation: "h", y: -0.3 },
    xaxis: { title: { text: "time (s)" } },
    margin: { l: 60, r: 20, b: 50 },
  });
  const twoLines = [line("queue"), line("served")]; // 90 and 100 px entries

  it("hangs the legend at the chart's foot, the margin room for one row and the axis", () => {
    const layout = below();
    settleLegend(layout, twoLines, 390, tenEach);
    expect(layout).toEqual({
      legend: { orientation: "h", y: 0, yref: "container", yanchor: "bottom" },
      xaxis: { title: { text: "time (s)" }, automargin: true },
      margin: { l: 60, r: 20, b: 73 }, // 44 axis + 19 row + 10 padding
    });
  });

  it("counts a row more when the entries do not fit in one, and no axis title's line", () => {
    const layout = below();
    settleLegend(layout, twoLines, 200, tenEach); // 120 px between the margins
    expect(layout.margin.b).toBe(92); // 44 + 2 × 19 + 10
    const untitled = below();
    untitled.xaxis = {};
    settleLegend(untitled, twoLines, 390, tenEach);
    expect(untitled.margin.b).toBe(51); // 22 + 19 + 10
  });

  it("keeps a larger bottom margin, Plotly's 80 by default, and the layout's own width", () => {
    const layout = below();
    delete layout.margin;
    settleLegend(layout, twoLines, 390, tenEach);
    expect(layout.margin).toEqual({ l: 80, r: 80, b: 80 });
    const fixed = Object.assign(below(), { width: 200 });
    settleLegend(fixed, twoLines, 1000, tenEach);
    expect(fixed.margin.b).toBe(92);
  });

  it("leaves the margin to Plotly when it cannot foresee the legend", () => {
    const grouped = below();
    settleLegend(grouped, [line("before", { legendgroup: "before" }), ...twoLines], 390, tenEach);
    expect(grouped.legend.yref).toBe("container");
    expect(grouped.xaxis.automargin).toBe(true);
    expect(grouped.margin).toEqual({ l: 60, r: 20, b: 50 });
    const slanted = below();
    slanted.xaxis.tickangle = -45;
    settleLegend(slanted, twoLines, 390, tenEach);
    expect(slanted.margin).toEqual({ l: 60, r: 20, b: 50 });
  });

  it("leaves alone a legend that is not horizontal below a numeric axis", () => {
    const cases = [
      { legend: { orientation: "v", y: -0.3 } },
      { legend: { orientation: "h", y: 1.02 } },
      { legend: { orientation: "h", y: -0.3, yref: "container" } },
      { legend: { orientation: "h", y: -0.3 }, xaxis: { type: "category" } },
      {},
    ];
    for (const layout of cases) {
      const before = JSON.stringify(layout);
      settleLegend(layout, twoLines, 390, tenEach);
      expect(JSON.stringify(layout)).toBe(before);
    }
    const noWidth = below();
    settleLegend(noWidth, twoLines, 0, tenEach);
    expect(noWidth).toEqual(below());
  });
});

describe("legendFamily", () => {
  it("is the legend's font, else the layout's, else none (Plotly's)", () => {
    expect(legendFamily({ legend: { font: { family: "Serif" } }, font: { family: "Sans" } }))
      .toBe("Serif");
    expect(legendFamily({ legend: {}, font: { family: "Sans" } })).toBe("Sans");
    expect(legendFamily({})).toBeUndefined();
  });
});
