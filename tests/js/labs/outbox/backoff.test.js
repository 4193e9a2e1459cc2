import { describe, expect, it } from "vitest";

import { BASE_MS, CEILING_MS, backoff, fullJitter } from "../../../../static/labs/outbox/backoff.js";

describe("backoff", () => {
  it("doubles from 1 s and stops at the 60 s ceiling", () => {
    const schedule = Array.from({ length: 10 }, (_, n) => backoff(n));
    expect(schedule).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000]);
    expect([BASE_MS, CEILING_MS]).toEqual([1000, 60000]);
  });

  it("stays at the ceiling however many tries have failed", () => {
    expect(backoff(1100)).toBe(60000);
    expect(backoff(30, 100, 3200)).toBe(3200); // Lesson 13's lab: 100 ms doubling to 3,200 ms
  });

  it("refuses a try number that is not a whole number from 0", () => {
    expect(() => backoff(-1)).toThrow(RangeError);
    expect(() => backoff(1.5)).toThrow(/whole number/);
  });
});

describe("fullJitter", () => {
  it("draws the wait between zero and the backoff: the draw scales it", () => {
    expect(fullJitter(3, () => 0)).toBe(0);
    expect(fullJitter(3, () => 0.5)).toBe(4000);
    expect(fullJitter(3, () => 0.999999)).toBe(7999);
    expect(fullJitter(9, () => 0.25)).toBe(15000); // a quarter of the 60 s ceiling
  });

  it("spreads a class's waits out: 500 phones after the same failure do not come back together", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    const waits = Array.from({ length: 500 }, () => fullJitter(4, random)); // backoff 16 s
    const busiest = Math.max(...countPer(waits, 1000));
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...waits)).toBeLessThan(16000);
    expect(busiest).toBeLessThan(60); // about 500 / 16 in any one second, never all 500
  });
});

function countPer(waits, width) {
  const counts = new Map();
  for (const w of waits) counts.set(Math.floor(w / width), (counts.get(Math.floor(w / width)) || 0) + 1);
  return [...counts.values()];
}
