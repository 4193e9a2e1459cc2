// The phone's outbox: actions kept while the link is down, each sent until the site answers.
//
// An action is what a POST would have carried (url, body, headers) with the idempotency key
// made when it was made: however often it is sent, the site acts on it once
// (labs/web/idempotency.py). Kept in the browser's storage (`localStore`), so a reload or a
// closed tab loses nothing; sent only for the account that made it (a shared phone).
// A newer action with the same `replaces` tag takes the place of an older one, even one on
// its way: a slider moved five times offline sends its last value, as hx-sync
// "this:replace" does online. Each failed send waits a backoff with full jitter
// (backoff.js) before the next. No DOM and no clock of its own: the page passes `now`,
// `random` and the `send` function.
//
// A slider's draft is a view, not a record: the outbox keeps only the newest per panel
// (its `replaces` tag), and only for the page that made it (its `view`, this outbox's
// `view`). A newer value posted with the link up takes its place (`drop`); a draft another
// page kept (reloaded or closed since, or another tab) is dropped unsent, as its answer
// could land nowhere; and an answer lands only while its draft is still the newest value
// its page posted (`isNewest`). Runs and hand-ins have neither tag nor view: all of them
// are kept until the site answers.

import { fullJitter } from "./backoff.js";

/** A store over localStorage (or anything with getItem/setItem): a JSON list under `name`. */
export function localStore(storage, name) {
  return {
    read() {
      try {
        const items = JSON.parse(storage.getItem(name) || "[]");
        return Array.isArray(items) ? items : [];
      } catch {
        return [];
      }
    },
    write(items) {
      try {
        storage.setItem(name, JSON.stringify(items));
        return true;
      } catch {
        return false; // storage full or refused
      }
    },
  };
}

export class Outbox {
  constructor(store, { now = Date.now, random = Math.random, view = null } = {}) {
    this.store = store;
    this.now = now;
    this.random = random;
    this.view = view; // the page this outbox runs in: its drafts are the ones it sends
    this.inFlight = new Set();
  }

  /** Every kept action, oldest first. */
  list(user) {
    const items = this.store.read();
    return user === undefined ? items : items.filter((item) => item.user === user);
  }

  /** Keep an action, due at once; false if the browser would not store it. An older action
   * with its `replaces` tag goes, even one on its way (whose answer is then not wanted). */
  add(action) {
    const now = this.now();
    const items = this.store.read().filter(
      (item) => item.key !== action.key && !(action.replaces && item.replaces === action.replaces),
    );
    items.push({ ...action, attempts: 0, dueAt: now, madeAt: now });
    return this.store.write(items);
  }

  /** Forget the actions tagged `replaces` (a newer value went with the link up); the keys
   * forgotten, so the page can stop those on their way. */
  drop(replaces) {
    const items = this.store.read();
    const gone = items.filter((item) => item.replaces === replaces).map((item) => item.key);
    if (gone.length) this.store.write(items.filter((item) => item.replaces !== replaces));
    return gone;
  }

  /** Forget the drafts that another page kept (an action with another `view`): that page
   * was reloaded or closed, so their answers could land nowhere. Another tab's too: at
   * worst its chart waits for the slider's next move. The number forgotten. */
  dropOtherViews() {
    if (this.view === null) return 0;
    const items = this.store.read();
    const mine = items.filter((item) => !item.view || item.view === this.view);
    if (mine.length < items.length) this.store.write(mine);
    return items.length - mine.length;
  }

  /** When the next of `user`'s actions is due (ms since the epoch), or null if none is kept. */
  nextDue(user) {
    const due = this.list(user).map((item) => item.dueAt);
    return due.length ? Math.min(...due) : null;
  }

  /** The link is back: the backoff starts again, each action due within a first jittered wait. */
  linkBack() {
    const now = this.now();
    this.store.write(
      this.store.read().map((item) => ({
        ...item,
        attempts: 0,
        dueAt: Math.min(item.dueAt, now + fullJitter(0, this.random)),
      })),
    );
  }

  /** Send `user`'s due actions in the order they were made: `send(item)` resolves "sent" or
   * "retry" (a throw is a "retry"). Sent ones leave the outbox; the others wait their
   * backoff. An action is never sent before an older one still kept (not yet due, on its
   * way or just failed): a slider's draft made before Run reaches the site, and answers,
   * before that Run, as it would have with the link up. Other pages' drafts are dropped
   * first (`dropOtherViews`). Resolves [key, outcome] in order: "sent", "retry", or
   * "dropped" for an action a newer one replaced while it was on its way, unanswered. */
  async flush(user, send) {
    this.dropOtherViews();
    const now = this.now();
    const outcomes = [];
    for (const item of this.list(user)) {
      if (item.dueAt > now || this.inFlight.has(item.key)) break;
      this.inFlight.add(item.key);
      let outcome;
      try {
        outcome = (await send(item)) === "sent" ? "sent" : "retry";
      } catch {
        outcome = "retry";
      } finally {
        this.inFlight.delete(item.key);
      }
      if (outcome === "sent") this.remove(item.key);
      else if (this.has(item.key)) this.postpone(item.key);
      else outcome = "dropped";
      outcomes.push([item.key, outcome]);
      if (outcome !== "sent") break;
    }
    return outcomes;
  }

  has(key) {
    return this.store.read().some((item) => item.key === key);
  }

  remove(key) {
    this.store.write(this.store.read().filter((item) => item.key !== key));
  }

  postpone(key) {
    const now = this.now();
    this.store.write(
      this.store.read().map((item) =>
        item.key === key
          ? { ...item, attempts: item.attempts + 1, dueAt: now + fullJitter(item.attempts, this.random) }
          : item,
      ),
    );
  }
}

/** Whether a kept draft's answer may land: made by the page `view`, and still the newest
 * value its panel posted (`newest`: the panel's last post number, null when Run has taken
 * the panel since). Any other kept action (a Run) lands wherever its place still is. */
export function isNewest(item, view, newest) {
  if (!item.view) return true;
  return item.view === view && newest != null && String(item.post) === String(newest);
}
