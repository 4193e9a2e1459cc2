import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// static/labs/predict.js is a classic script: it is run here with a document that only
// takes listeners, and its pure helpers are read from the window it fills in.
const SOURCE = readFileSync(new URL("../../../static/labs/predict.js", import.meta.url), "utf8");

function predict() {
  const window = {};
  const document = { addEventListener: () => {} };
  new Function("window", "document", SOURCE)(window, document);
  return window.labPredict;
}

// The ids the server takes (labs/web/predict.py, EARLY_SHAPE).
const SERVER_SHAPE = /^[a-z0-9-]{6,40}$/;

describe("A guess given before any result (issue 34)", () => {
  const { givenEarly, earlyId } = predict();

  it("is one that lets the first draft go while no result is shown", () => {
    expect(givenEarly(false, undefined, false)).toBe(true); // the drag's ask, or typed before
  });

  it("is never one sent with Run, one after a guess or a skip, or one beside a result", () => {
    expect(givenEarly(true, undefined, false)).toBe(false); // Run carries its guess itself
    expect(givenEarly(false, "skipped", false)).toBe(false); // typed after the ask's skip
    expect(givenEarly(false, "answered", false)).toBe(false); // asked once a visit
    expect(givenEarly(false, undefined, true)).toBe(false); // a chart is on the page
  });

  it("gets an id the server takes, whatever the moment and the random part", () => {
    const moments = [0, 1, 1765000000000, 1765000000000.7, 8.64e15];
    const randoms = [0, 1e-12, 0.5, 0.999999999999];
    for (const now of moments) {
      for (const r of randoms) {
        const id = earlyId(now, () => r);
        expect(id, `${now}, ${r}`).toMatch(SERVER_SHAPE);
      }
    }
    expect(earlyId(1765000000000, () => 0.25)).not.toBe(earlyId(1765000000000, () => 0.75));
  });
});
