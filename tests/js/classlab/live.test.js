import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

// static/classlab/live.js is a classic script: it is run here against a window of our own
// (no EventSource, so polling is the channel), a counting fetch and Vitest's clock.
const SOURCE = readFileSync(new URL("../../../static/classlab/live.js", import.meta.url), "utf8");

function load() {
  const listeners = {};
  const window = {
    addEventListener: (name, fn) => { (listeners[name] ||= []).push(fn); },
  };
  const asked = [];
  const fetch = (url) => {
    asked.push(url);
    return Promise.resolve({ text: () => Promise.resolve('{"status": "running"}') });
  };
  new Function("window", "fetch", SOURCE)(window, fetch);
  const fire = (name) => (listeners[name] || []).forEach((fn) => fn());
  return { window, asked, fire };
}

describe("cxLive polling", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("asks once a second, stops while the page unloads, and goes on if it stays", () => {
    const { window, asked, fire } = load();
    window.cxLive("", "/x/CODE/state.json", () => {});
    vi.advanceTimersByTime(3000);
    expect(asked.length).toBe(3);
    fire("beforeunload"); // a reload or a link followed: nothing more is asked
    vi.advanceTimersByTime(2900);
    expect(asked.length).toBe(3);
    vi.advanceTimersByTime(1100); // still here (a download): the reads go on
    expect(asked.length).toBe(4);
  });
});
