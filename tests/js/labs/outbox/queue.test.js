import { beforeEach, describe, expect, it } from "vitest";

import { Outbox, isNewest, localStore } from "../../../../static/labs/outbox/queue.js";
import { outcomeOf, shown } from "../../../../static/labs/outbox/answer.js";
import { newKey } from "../../../../static/labs/outbox/key.js";

// localStorage's two methods over a Map, and a clock the test moves by hand.
function memory() {
  const data = new Map();
  return { getItem: (k) => (data.has(k) ? data.get(k) : null), setItem: (k, v) => data.set(k, v), data };
}

let clock, storage, box;
const action = (key, extra = {}) => ({ key, user: "7", url: "/labs/drain/", body: "a=1", ...extra });

beforeEach(() => {
  clock = 1000;
  storage = memory();
  box = new Outbox(localStore(storage, "outbox:v1"), { now: () => clock, random: () => 0.5 });
});

describe("the outbox", () => {
  it("keeps an action in the browser's storage, due at once, until it is sent", async () => {
    box.add(action("k1"));
    expect(JSON.parse(storage.data.get("outbox:v1"))).toHaveLength(1);
    expect(box.nextDue("7")).toBe(1000);
    const sent = [];
    const outcomes = await box.flush("7", async (item) => { sent.push(item.key); return "sent"; });
    expect(outcomes).toEqual([["k1", "sent"]]);
    expect(sent).toEqual(["k1"]);
    expect(box.list()).toEqual([]);
    expect(box.nextDue("7")).toBe(null);
  });

  it("tries again after a backoff with full jitter, each failure doubling it, up to the ceiling", async () => {
    box.add(action("k1"));
    const waits = [];
    for (let n = 0; n < 9; n += 1) {
      await box.flush("7", async () => "retry");
      const [item] = box.list();
      waits.push(item.dueAt - clock);
      clock = item.dueAt; // the page's timer fires when it is due
    }
    // Half of 1, 2, 4, ... 60 s (the draw is 0.5), capped.
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(box.list()[0].attempts).toBe(9);
  });

  it("sends nothing before it is due, and a thrown send is a retry, not a loss", async () => {
    box.add(action("k1"));
    await box.flush("7", async () => { throw new TypeError("Failed to fetch"); });
    expect(box.list()).toHaveLength(1);
    let calls = 0;
    await box.flush("7", async () => { calls += 1; return "sent"; });
    expect(calls).toBe(0); // due 500 ms later
    clock += 500;
    await box.flush("7", async () => { calls += 1; return "sent"; });
    expect(calls).toBe(1);
    expect(box.list()).toEqual([]);
  });

  it("sends every action once with its own key, oldest first, even when the link drops between them", async () => {
    box.add(action("run"));
    clock += 1;
    box.add(action("draft", { replaces: "draft /labs/drain/draft/" }));
    clock += 1;
    const seen = [];
    await box.flush("7", async (item) => { seen.push(item.key); return item.key === "run" ? "sent" : "retry"; });
    clock += 60000;
    await box.flush("7", async (item) => { seen.push(item.key); return "sent"; });
    await box.flush("7", async (item) => { seen.push(item.key); return "sent"; });
    expect(seen).toEqual(["run", "draft", "draft"]);
    expect(box.list()).toEqual([]);
  });

  it("sends in the order the actions were made, whichever falls due first", async () => {
    box.add(action("draft", { replaces: "draft /labs/drain/draft/" }));
    clock += 1;
    box.add(action("run"));
    const seen = [];
    // The draft failed once: its backoff puts it due after the Run.
    await box.flush("7", async (item) => { seen.push(item.key); return "retry"; });
    expect(box.list()[0].dueAt).toBeGreaterThan(box.list()[1].dueAt);
    clock = box.list()[1].dueAt; // the Run is due, the draft not yet: nothing goes
    await box.flush("7", async (item) => { seen.push(item.key); return "sent"; });
    clock = box.list()[0].dueAt;
    await box.flush("7", async (item) => { seen.push(item.key); return "sent"; });
    expect(seen).toEqual(["draft", "draft", "run"]);
    expect(box.list()).toEqual([]);
  });

  it("keeps only the last of a slider's moves made with no link", () => {
    const tag = "draft /labs/drain/draft/";
    box.add(action("m1", { body: "per_worker=110", replaces: tag }));
    box.add(action("m2", { body: "per_worker=120", replaces: tag }));
    box.add(action("run", { body: "per_worker=120" }));
    box.add(action("m3", { body: "per_worker=130", replaces: tag }));
    expect(box.list().map((item) => item.key)).toEqual(["run", "m3"]);
  });

  it("keeps only the newest move, even when the older one is on its way", async () => {
    const tag = "draft /labs/drain/draft/";
    box.add(action("m1", { replaces: tag }));
    const outcomes = await box.flush("7", async () => {
      box.add(action("m2", { replaces: tag })); // moved again while m1 was being sent
      return "retry"; // the page stopped m1 (no answer): it is not sent again
    });
    expect(outcomes).toEqual([["m1", "dropped"]]);
    expect(box.list().map((item) => item.key)).toEqual(["m2"]);
    expect(box.list()[0].attempts).toBe(0);
  });

  it("forgets a panel's kept move when a newer value goes with the link up, and only it", () => {
    const tag = "draft /labs/drain/draft/";
    box.add(action("run"));
    box.add(action("m1", { replaces: tag }));
    box.add(action("other", { replaces: "draft /labs/fanout/draft/" }));
    expect(box.drop(tag)).toEqual(["m1"]);
    expect(box.list().map((item) => item.key)).toEqual(["run", "other"]);
    expect(box.drop(tag)).toEqual([]);
  });

  it("does not send again a move that gave way on its way; one answered was still sent", async () => {
    const tag = "draft /labs/drain/draft/";
    box.add(action("m1", { replaces: tag }));
    const outcomes = await box.flush("7", async () => {
      box.drop(tag); // a newer value went with the link up while m1 was being sent
      return "retry";
    });
    expect(outcomes).toEqual([["m1", "dropped"]]);
    expect(box.list()).toEqual([]);
    box.add(action("m2", { replaces: tag }));
    expect(await box.flush("7", async () => { box.drop(tag); return "sent"; })).toEqual([["m2", "sent"]]);
  });

  it("sends only its own page's drafts: another page's are dropped unsent, every Run is sent", async () => {
    const tag = "draft /labs/drain/draft/";
    const before = new Outbox(localStore(storage, "outbox:v1"), { now: () => clock, view: "page-1" });
    before.add(action("old-move", { replaces: tag, view: "page-1", post: "3" }));
    before.add(action("run"));
    // The page was reloaded: a new page, the same storage.
    const now = new Outbox(localStore(storage, "outbox:v1"), { now: () => clock, view: "page-2" });
    now.add(action("new-move", { replaces: "draft /labs/fanout/draft/", view: "page-2", post: "1" }));
    const seen = [];
    await now.flush("7", async (item) => { seen.push(item.key); return "sent"; });
    expect(seen).toEqual(["run", "new-move"]);
    expect(now.list()).toEqual([]);
    // An outbox that names no page drops nothing.
    box.add(action("move", { replaces: tag, view: "page-1" }));
    expect(box.dropOtherViews()).toBe(0);
  });

  it("sends an action only for the account that made it (a shared phone)", async () => {
    box.add(action("hers"));
    box.add(action("his", { user: "8" }));
    const seen = [];
    await box.flush("8", async (item) => { seen.push(item.key); return "sent"; });
    expect(seen).toEqual(["his"]);
    expect(box.list().map((item) => item.key)).toEqual(["hers"]);
  });

  it("starts the backoff again when the link is back: due within a first jittered wait", async () => {
    box.add(action("k1"));
    for (let n = 0; n < 6; n += 1) {
      await box.flush("7", async () => "retry");
      clock = box.list()[0].dueAt;
    }
    expect(box.list()[0].dueAt - clock).toBe(0);
    await box.flush("7", async () => "retry");
    expect(box.list()[0].dueAt - clock).toBe(30000);
    box.linkBack();
    expect(box.list()[0].dueAt - clock).toBe(500);
    expect(box.list()[0].attempts).toBe(0);
  });

  it("survives what another tab or an old version left in the storage", () => {
    storage.setItem("outbox:v1", "not json");
    expect(box.list()).toEqual([]);
    storage.setItem("outbox:v1", '{"a": 1}');
    expect(box.list()).toEqual([]);
  });

  it("says so when the browser will not store the action", () => {
    const full = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); } };
    const refused = new Outbox(localStore(full, "outbox:v1"), { now: () => 0 });
    expect(refused.add(action("k1"))).toBe(false);
  });
});

describe("a kept draft's answer", () => {
  const draft = { key: "k", replaces: "draft /labs/drain/draft/", view: "page-2", post: "4" };

  it("lands while its draft is the newest value its page posted", () => {
    expect(isNewest(draft, "page-2", "4")).toBe(true);
    expect(isNewest(draft, "page-2", 4)).toBe(true); // drafts.js's number, or the attribute
  });

  it("is dropped once a newer value went, Run took the panel, or the page is another", () => {
    expect(isNewest(draft, "page-2", "5")).toBe(false);
    expect(isNewest(draft, "page-2", null)).toBe(false); // Run went, or a new panel
    expect(isNewest(draft, "page-2", undefined)).toBe(false);
    expect(isNewest(draft, "page-3", "4")).toBe(false); // reloaded since
  });

  it("does not hold back a Run's answer", () => {
    expect(isNewest({ key: "run" }, "page-2", null)).toBe(true);
  });
});

describe("an answer", () => {
  const headers = (h) => (name) => (name in h ? h[name] : null);

  it("is asked for again when none came, or the site is still working on that key", () => {
    expect(outcomeOf(0, headers({}))).toBe("retry");
    expect(outcomeOf(502, headers({}))).toBe("retry");
    expect(outcomeOf(409, headers({ "Retry-After": "1" }))).toBe("retry");
  });

  it("is final when the site has its word on the action, even a refusal", () => {
    expect(outcomeOf(200, headers({}))).toBe("sent");
    expect(outcomeOf(422, headers({}))).toBe("sent"); // a field's message
    expect(outcomeOf(409, headers({}))).toBe("sent"); // "press Run to start it"
    expect(outcomeOf(429, headers({}))).toBe("sent"); // "you already have 2 runs going"
    expect(shown(422) && shown(200) && shown(503)).toBe(true);
    expect(shown(500)).toBe(false);
  });
});

describe("newKey", () => {
  it("is the browser's UUID where it has one", () => {
    expect(newKey({ randomUUID: () => "x" })).toBe("x");
  });

  it("is a version 4 UUID from random bytes on a plain-http school server", () => {
    const bytes = { getRandomValues: (b) => b.fill(0xff) };
    expect(newKey(bytes)).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
    expect(newKey()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});
