import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// static/labs/drafts.js is a classic script: it is run here with a document that only
// takes listeners, and its "What changed" words are read from the window it fills in.
const SOURCE = readFileSync(new URL("../../../static/labs/drafts.js", import.meta.url), "utf8");

function loaded() {
  const window = {};
  const document = { addEventListener: () => {} };
  new Function("window", "document", SOURCE)(window, document);
  return window;
}

function whatChanged() {
  return loaded().labWhatChanged;
}

// A small seeded generator (mulberry32): the same 2,000 cases on every run.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Two runs' facts as labs/web/changes.py writes them: [name, label, words] rows; values
// from a few words each, so that some stay and some move; a row may be missing on one side.
function factsPair(random) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const rows = (prefix, n, words) => Array.from({ length: n }, (_, i) =>
    [`${prefix}${i}`, `label ${prefix}${i}`, pick(words)]);
  const side = (n, m) => ({
    params: rows("p", n, ["1", "2", "no", "yes", "50, 800"]),
    figures: rows("f", m, ["0", "1,500", "7.5 %", "—"]),
  });
  const was = side(1 + Math.floor(random() * 4), Math.floor(random() * 7));
  const now = side(1 + Math.floor(random() * 4), Math.floor(random() * 7));
  return { was, now };
}

describe("What changed", () => {
  const changed = whatChanged();

  it("names every value that moved, with its two runs' words, and nothing else", () => {
    const random = generator(20261207);
    for (let n = 0; n < 2000; n += 1) {
      const { was, now } = factsPair(random);
      const line = changed(was, now, "no figure changed");
      const before = new Map(was.params.map(([name, , words]) => [name, words]));
      const moved = now.params.filter(([name, , words]) => before.has(name) && before.get(name) !== words);
      if (!moved.length) {
        expect(line).toBe("");
        continue;
      }
      const [values, figures] = line.split(" — ");
      for (const [name, label, words] of now.params) {
        const said = `${label} (${before.get(name)} → ${words})`;
        const didMove = moved.some(([m]) => m === name);
        expect(values.includes(said), `${said} in "${values}"`).toBe(didMove);
      }
      const figuresBefore = new Map(was.figures.map(([name, , words]) => [name, words]));
      const went = now.figures.filter(([name, , words]) =>
        figuresBefore.has(name) && figuresBefore.get(name) !== words);
      if (!went.length) {
        expect(figures).toBe("no figure changed");
      } else {
        const said = went.slice(0, 4).map(([name, label, words]) =>
          `${label} (${figuresBefore.get(name)} → ${words})`);
        expect(figures).toBe(said.join(" · "));
      }
    }
  });
});

describe("Which element posts", () => {
  const lane = loaded().labDraftLane;

  it("posts on the usual element whenever it is free, the hand down or let go", () => {
    for (const releaseFlying of [false, true]) {
      for (const letGo of [false, true]) expect(lane(false, releaseFlying, letGo)).toBe("usual");
    }
  });

  it("sends the value let go at beside a post in flight, never two beside it", () => {
    expect(lane(true, false, true)).toBe("release");
    expect(lane(true, true, true)).toBe(null); // it goes when an answer comes
  });

  it("keeps one post at a time while the hand is down", () => {
    expect(lane(true, false, false)).toBe(null);
    expect(lane(true, true, false)).toBe(null);
  });
});

describe("Which answer takes the holder", () => {
  const takes = loaded().labDraftTakes;

  // Answers in the order they come; how many land, the newest taken kept as drafts.js does.
  function landed(order) {
    let taken = 0;
    return order.filter((post) => {
      if (!takes(post, taken)) return false;
      taken = post;
      return true;
    });
  }

  it("shows each answer on a loaded site, where every answer comes after the next post went", () => {
    // posts 1..6 on two elements; answer k comes once post k + 1 has gone
    expect(landed([1, 2, 3, 4, 5, 6])).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("drops an older answer that comes after a newer one, and ends on the newest", () => {
    expect(landed([2, 1])).toEqual([2]);
    expect(landed([1, 3, 2, 5, 4])).toEqual([1, 3, 5]);
  });
});
