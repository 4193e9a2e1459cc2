import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";

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

describe("A post's place in the page's order", () => {
  const window = loaded();
  // What labs/web/draft_order_form.py accepts.
  const PAGE_SHAPE = /^[A-Za-z0-9_-]{8,64}$/;

  it("makes a page id the server reads, with or without crypto, a new one each page", () => {
    const ids = [globalThis.crypto, { getRandomValues: (b) => globalThis.crypto.getRandomValues(b) }, undefined]
      .map((source) => window.labDraftPageId(source));
    for (const id of ids) expect(id).toMatch(PAGE_SHAPE);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("sends the page and the post's number as the form's two fields", () => {
    expect(window.labDraftOrder("ab12cd34ef56", 7)).toEqual({ draft_page: "ab12cd34ef56", draft_post: "7" });
  });

  it("drops a superseded answer whatever its number, and never counts it as taken", () => {
    const answer = window.labDraftAnswer;
    for (const [post, taken] of [[1, 0], [5, 4], [2, 3]]) expect(answer(post, taken, true)).toBe("superseded");
    expect(answer(5, 4, false)).toBe("take");
    expect(answer(3, 4, false)).toBe("drop");
  });
});

// A page as drafts.js sees it, no more: a panel with its two posters, its form and its
// status note; listeners kept by type, so a test fires htmx's events at them in the order
// a loaded site gives them.
function fakePage() {
  const listeners = {};
  const document = { addEventListener: (type, fn) => (listeners[type] ||= []).push(fn) };
  const fire = (type, event) => (listeners[type] || []).forEach((fn) => fn(event));
  const node = (is, parent, finds = {}) => ({
    is, parent, finds, dataset: {}, attributes: {}, isConnected: true, hidden: true,
    matches(selector) { return is.includes(selector); },
    closest(selector) { return this.matches(selector) ? this : parent ? parent.closest(selector) : null; },
    querySelector(selector) { return finds[selector] || null; },
    querySelectorAll() { return []; },
    setAttribute(name, value) { this.attributes[name] = String(value); },
  });
  const panel = node([".lab-panel[data-auto-run]"], null);
  panel.id = "lab-drain";
  const form = node(["form.lab-form"], panel);
  form.values = [["per_worker", "150"]];
  const slider = node(["input[type=range]"], form);
  const usual = node([".auto-run"], panel);
  const release = node([".auto-run", ".auto-run.at-release"], panel);
  const note = node([], panel);
  Object.assign(panel.finds, {
    ".auto-run:not(.at-release)": usual, ".auto-run.at-release": release,
    "form.lab-form": form, ".draft-status": note,
  });
  // The form's values as FormData would give them (there is no DOM here).
  class FormData {
    constructor(f) { this.entries = f.values.slice(); }
    delete(name) { this.entries = this.entries.filter(([n]) => n !== name); }
    [Symbol.iterator]() { return this.entries[Symbol.iterator](); }
  }
  const triggered = [];
  const vals = (elt) => (elt.attributes["hx-vals"] ? JSON.parse(elt.attributes["hx-vals"]) : {});
  const window = { htmx: { trigger: (elt) => triggered.push({ elt, vals: vals(elt) }) } };
  new Function("window", "document", "FormData", SOURCE)(window, document, FormData);
  const move = (value, letGo) => {
    form.values = [["per_worker", String(value)]];
    if (letGo) fire("pointerdown", { target: slider });
    fire(letGo ? "change" : "input", { type: letGo ? "change" : "input", target: slider });
  };
  const xhr = (status, superseded) => ({
    status, getResponseHeader: (name) => (name === "Draft-Superseded" && superseded ? "true" : null),
  });
  // htmx's beforeSwap then afterRequest for the post `elt` made; whether it would swap.
  const answer = (elt, status, superseded) => {
    const detail = { requestConfig: { elt }, xhr: xhr(status, superseded), shouldSwap: status !== 204 };
    fire("htmx:beforeSwap", { detail });
    fire("htmx:afterRequest", { detail: { elt, xhr: detail.xhr, successful: true } });
    return detail.shouldSwap;
  };
  return { panel, usual, release, note, triggered, move, answer };
}

describe("A superseded answer on the page", () => {
  it("numbers every post with this page's id, the release's too", () => {
    const page = fakePage();
    page.move(160, false); // the usual element posts it
    page.move(170, true); // let go beside it: the release's element
    expect(page.triggered.map((t) => [t.elt, t.vals.draft_post])).toEqual([[page.usual, "1"], [page.release, "2"]]);
    const [first, second] = page.triggered.map((t) => t.vals.draft_page);
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(second).toBe(first);
  });

  it("is dropped unsaid, frees its element for the next value, and leaves the newer to land", () => {
    const errors = [];
    const saved = console.error;
    console.error = (...args) => errors.push(args);
    try {
      vi.useFakeTimers();
      const page = fakePage();
      page.move(160, false);
      page.move(170, true);
      // The server took post 2 first; post 1, arriving second, was superseded.
      expect(page.answer(page.usual, 204, true)).toBe(false);
      expect(page.usual.dataset.flying).toBeUndefined();
      expect(page.note.hidden).toBe(false); // post 2 is still on its way
      // The hand takes the slider again: its value goes on the freed element, at the pace.
      page.move(180, false);
      vi.advanceTimersByTime(220);
      expect(page.triggered.at(-1).elt).toBe(page.usual);
      expect(page.triggered.at(-1).vals.draft_post).toBe("3");
      expect(page.answer(page.release, 200, false)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      console.error = saved;
      vi.useRealTimers();
    }
  });

  it("never counts as taken, so an answer it overtook still lands", () => {
    const page = fakePage();
    page.move(160, false); // post 1
    page.move(170, true); // post 2
    // Post 2 came back superseded (a post after it was taken) before post 1's answer.
    expect(page.answer(page.release, 204, true)).toBe(false);
    expect(page.answer(page.usual, 200, false)).toBe(true);
  });
});
