// A dropped link loses nothing: what a student does while the site is out of reach is kept
// on the phone and sent when the link is back (Lesson 13's retry, on their phone).
//
// - Every action that changes something (a Run with its prediction, a slider's draft, an
//   analysis, a hand-in: the KEYED elements) carries an `Idempotency-Key` made when the
//   action is made, so the site acts on it once however often it arrives
//   (labs/web/idempotency.py). A request sent again with the same values (the analysis's
//   autosave, htmx_errors.js) carries the same key.
// - A Run or a draft made with no link (navigator.onLine false), or whose request got no
//   answer, is kept in the outbox (outbox/queue.js) and sent with backoff and full jitter
//   (outbox/backoff.js) until the site answers; the answer lands where htmx would have put
//   it if that part of the page is still there. A hand-in form (form[data-outbox]) submitted
//   with no link is kept the same way; online it goes as a plain form, its key in a field.
//   The element htmx will not answer hears `outbox:kept` (drafts.js frees its panel).
// - A slider's draft is a view, not a record: only the newest value of a panel is kept, for
//   the page that made it. A newer value takes its place (kept too with no link, posted by
//   htmx with the link up) and one on its way is stopped: on a slow school link its answer
//   would only delay the newer one's. A kept draft's answer lands only if it is still the
//   newest value the panel posted and Run has not gone since (drafts.js marks the panel);
//   else it is dropped, unsaid: no banner, no error. So when the link is back the chart
//   shows the slider's value, and no older value lands over a newer one. Its body keeps the
//   number and page id drafts.js gave it, so one that reaches the site after a newer post of
//   its page is answered "superseded" (204, nothing to land) and deletes nothing there.
// - #outbox-status (templates/base.html) says so, in the page's language: kept, and sent.
// - The service worker is registered here too (outbox/service_worker.js).
import { fullJitter } from "./outbox/backoff.js";
import { outcomeOf, shown } from "./outbox/answer.js";
import { newKey } from "./outbox/key.js";
import { Outbox, isNewest, localStore } from "./outbox/queue.js";
import { forgetPages, registerWorker } from "./outbox/service_worker.js";

const HEADER = "Idempotency-Key";
const FIELD = "idempotency_key";
const KEPT = "form.lab-form, .auto-run"; // kept and sent again when they get no answer
const KEYED = KEPT + ", form[data-autosave], [data-outbox]";

const note = document.getElementById("outbox-status");
const user = note ? note.dataset.user || "" : "";
// This page as shown: the drafts it keeps are its own (a reloaded page has another).
const VIEW = newKey();
const box = new Outbox(localStore(window.localStorage, "outbox:v1"), { view: VIEW });
const tried = new WeakMap(); // element -> {body, key} of its last request not yet answered
const postOf = new WeakMap(); // a draft's request (htmx's config) -> its post number (drafts.js)
const stoppers = new Map(); // key -> the AbortController of a kept draft on its way
let timer = null;
let hideTimer = null;
let saying = null; // what the note says now

// htmx_errors.js's waits (an analysis saved again, a poller asked again): full jitter too,
// under its own ceiling of 8 s (a run page waiting a minute to poll would look stuck).
window.labBackoff = (n) => fullJitter(n, Math.random, 1000, 8000);

function say(kind) {
  if (!note || !note.dataset[kind]) return;
  clearTimeout(hideTimer);
  note.textContent = note.dataset[kind];
  note.classList.toggle("back", kind === "sent");
  note.hidden = false;
  saying = kind;
  if (kind === "sent") hideTimer = setTimeout(() => { note.hidden = true; }, 8000);
}

// "Kept on this phone" no longer holds once nothing is (a kept draft gave way to a newer value).
function keptNoMore() {
  if (!note || saying !== "kept" || box.list(user).length) return;
  note.hidden = true;
  saying = null;
}

// The drafts kept for the panel behind `tag` give way to a newer value; one on its way stops.
function dropDrafts(tag) {
  for (const key of box.drop(tag)) stoppers.get(key)?.abort();
}

// The last value a draft's panel posted (drafts.js), or null once Run has taken the panel.
function newestPost(target) {
  const panel = target && target.closest(".lab-panel");
  return panel && !panel.dataset.ran ? panel.dataset.draftPost : null;
}

function encoded(formData) {
  const data = new URLSearchParams();
  for (const [name, value] of formData) if (typeof value === "string") data.append(name, value);
  return data.toString();
}

function csrfToken() {
  try {
    return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || "";
  } catch {
    return "";
  }
}

function schedule() {
  clearTimeout(timer);
  const due = box.nextDue(user);
  if (due === null) return;
  timer = setTimeout(flush, Math.max(0, due - Date.now()));
}

async function send(item) {
  if (navigator.onLine === false) return "retry";
  const stop = item.view ? new AbortController() : null; // a draft may give way on its way
  if (stop) stoppers.set(item.key, stop);
  try {
    let response;
    try {
      response = await fetch(item.url, {
        method: "POST",
        body: item.body,
        credentials: "same-origin",
        signal: stop ? stop.signal : undefined,
        headers: {
          ...item.headers,
          "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8",
          "X-CSRFToken": csrfToken() || item.headers["X-CSRFToken"] || "",
          [HEADER]: item.key,
        },
      });
    } catch {
      return "retry";
    }
    const header = (name) => response.headers.get(name);
    if (outcomeOf(response.status, header) === "retry") return "retry";
    await land(item, response);
    return "sent";
  } finally {
    if (stop) stoppers.delete(item.key);
  }
}

// The answer goes where htmx would have put it, if that part of the page is still here.
async function land(item, response) {
  const text = await response.text();
  const target = item.target && document.querySelector(item.target);
  if (!isNewest(item, VIEW, newestPost(target))) return; // a newer value, or Run, went since
  if (response.headers.get("HX-Redirect") && location.pathname === item.page) {
    location.assign(response.headers.get("HX-Redirect"));
    return;
  }
  if (!target || !text || !shown(response.status) || !window.htmx) return;
  if (target.id && target.id.startsWith("incoming-")) {
    const status = target.closest(".lab-panel")?.querySelector(".draft-status");
    if (status) status.hidden = false; // drafts.js hides it once the body lands
  }
  window.htmx.swap(target, text, { swapStyle: item.swap || "innerHTML" });
}

async function flush() {
  // A draft that gave way on its way is no news: neither sent nor kept.
  const outcomes = (await box.flush(user, send)).filter(([, outcome]) => outcome !== "dropped");
  if (outcomes.some(([, outcome]) => outcome === "sent") && !box.list(user).length) say("sent");
  else if (outcomes.length) say("kept");
  else keptNoMore();
  schedule();
}

function keep(elt, config, key, body) {
  const draft = elt.closest(".auto-run");
  const post = draft ? postOf.get(config) : undefined;
  // A draft that got no answer after a newer value went (on the release's element, or on
  // its own once htmx let it go): not wanted, and its panel already goes on.
  if (draft && post !== draft.closest(".lab-panel")?.dataset.draftPost) return;
  const target = config.target;
  const swapper = elt.closest("[hx-swap]");
  const replaces = draft ? "draft " + config.path : null;
  if (replaces) dropDrafts(replaces);
  const kept = box.add({
    key,
    user,
    url: config.path,
    body,
    page: location.pathname,
    target: target && target.id ? "#" + target.id : null,
    swap: swapper ? swapper.getAttribute("hx-swap") : "innerHTML",
    headers: {
      "HX-Request": "true",
      "HX-Current-URL": location.href,
      ...(target && target.id ? { "HX-Target": target.id } : {}),
    },
    replaces,
    ...(draft ? { view: VIEW, post } : {}),
  });
  // htmx will not answer this element: a draft's panel takes the next value (drafts.js).
  elt.dispatchEvent(new CustomEvent("outbox:kept", { bubbles: true, detail: { kept } }));
  if (!kept) return;
  if (draft) {
    const status = draft.closest(".lab-panel")?.querySelector(".draft-status");
    if (status) status.hidden = true;
  }
  say("kept");
  schedule();
}

// A key for every action; with no link, a Run or a draft is kept instead of sent.
document.addEventListener("htmx:configRequest", (event) => {
  const detail = event.detail;
  const elt = detail.elt;
  if (detail.verb !== "post" || !elt || !elt.closest || !elt.closest(KEYED)) return;
  const body = encoded(detail.formData);
  const last = tried.get(elt);
  const key = last && last.body === body ? last.key : newKey();
  detail.headers[HEADER] = key;
  tried.set(elt, { body, key });
  const draft = elt.closest(".auto-run");
  if (draft) postOf.set(detail, draft.dataset.post);
  if (navigator.onLine === false && elt.closest(KEPT)) {
    event.preventDefault();
    keep(elt, detail, key, body);
  } else if (draft) {
    // A newer value goes with the link up: the one kept for this panel is not wanted.
    dropDrafts("draft " + detail.path);
    keptNoMore();
  }
});

document.addEventListener("htmx:afterRequest", (event) => {
  const xhr = event.detail.xhr;
  if (xhr && xhr.status !== 0 && event.detail.elt) tried.delete(event.detail.elt);
});

// Sent, but no answer came back: it may or may not have arrived; the key settles which.
document.addEventListener("htmx:sendError", (event) => {
  const config = event.detail.requestConfig;
  const elt = event.detail.elt;
  if (!config || config.verb !== "post" || !elt || !elt.closest || !elt.closest(KEPT)) return;
  keep(elt, config, config.headers[HEADER], encoded(config.formData));
});

// A plain form (a hand-in): a key in a field online; kept with no link.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches || !form.matches("form[data-outbox]") || event.defaultPrevented) return;
  const data = new FormData(form, event.submitter || undefined);
  data.delete(FIELD);
  const key = newKey();
  if (navigator.onLine !== false) {
    let field = form.querySelector(`input[name="${FIELD}"]`);
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = FIELD;
      form.append(field);
    }
    field.value = key;
    return;
  }
  event.preventDefault();
  box.add({
    key, user, url: form.action, body: encoded(data), page: location.pathname,
    target: null, swap: null, headers: {}, replaces: null,
  });
  say("kept");
  schedule();
});

// The logout form: the pages this phone kept for this person are forgotten.
document.addEventListener("submit", (event) => {
  if (event.target.matches && event.target.matches("form[action$='/accounts/logout/']")) forgetPages();
});

window.addEventListener("online", () => {
  box.linkBack();
  schedule();
});
window.addEventListener("offline", () => {
  if (box.list(user).length) say("kept");
});

box.dropOtherViews(); // drafts a page before this one kept: that page is gone
if (navigator.onLine === false) say(box.list(user).length ? "kept" : "copy");
else if (box.list(user).length) say("kept");
schedule();
registerWorker();
