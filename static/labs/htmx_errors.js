// When an htmx request fails, the student sees it, and the page carries on once the site is back.
//
// - Every failed request (no answer at all: htmx:sendError; a 5xx: htmx:responseError) shows
//   the banner #connection-status, in the page's language (its data-* attributes); the first
//   request that gets an answer again says so and hides it.
// - A poller that replaces itself (hx-trigger "load delay:…", the run page) would stop for
//   good after one failed request: its old element's load trigger never fires again. It is
//   asked again here, 1, 2, 4, then every 8 s, until an answer swaps a new poller in.
//   "every 1s" pollers keep polling by themselves.
// - An autosaving form (form[data-autosave], the analysis of a before/after pair) keeps what
//   was typed in localStorage until the server has answered 200 for exactly that text; a
//   failed save says "not saved" (never the last "saved at"), and is tried again; text left
//   in this browser is put back into the form when the page opens, and saved.
(function () {
  "use strict";
  var WAITS_MS = [1000, 2000, 4000, 8000];
  var failing = false;

  function banner() {
    return document.getElementById("connection-status");
  }

  function show(kind) {
    var el = banner();
    if (!el) return;
    el.textContent = el.dataset[kind] || "";
    el.classList.toggle("back", kind === "back");
    el.hidden = false;
  }

  function failed(kind) {
    failing = true;
    show(kind);
  }

  function answered() {
    if (!failing) return;
    failing = false;
    show("back");
    setTimeout(function () {
      var el = banner();
      if (el && !failing) el.hidden = true;
    }, 5000);
  }

  function wait(n) {
    // outbox.js sets the phone's backoff with full jitter (static/labs/outbox/backoff.js).
    if (window.labBackoff) return window.labBackoff(n);
    return WAITS_MS[Math.min(n, WAITS_MS.length - 1)];
  }

  function selfPoller(elt) {
    return elt && elt.getAttribute && elt.getAttribute("hx-get") &&
      /^\s*load\b/.test(elt.getAttribute("hx-trigger") || "");
  }

  function askAgain(elt) {
    var n = elt.dataset.pollFailures ? Number(elt.dataset.pollFailures) : 0;
    elt.dataset.pollFailures = String(n + 1);
    setTimeout(function () {
      if (!elt.isConnected) return;
      window.htmx.ajax("GET", elt.getAttribute("hx-get"), {
        source: elt, target: elt, swap: elt.getAttribute("hx-swap") || "outerHTML",
      });
    }, wait(n));
  }

  // Autosave ---------------------------------------------------------------------------------

  function autosaveForm(elt) {
    return elt && elt.closest ? elt.closest("form[data-autosave]") : null;
  }

  function storeKey(form) {
    return "unsaved:" + form.getAttribute("hx-post");
  }

  function valuesOf(form) {
    var out = {};
    form.querySelectorAll("textarea[name], input[type=text][name]").forEach(function (field) {
      out[field.name] = field.value;
    });
    return JSON.stringify(out);
  }

  function keepHere(form) {
    try {
      localStorage.setItem(storeKey(form), valuesOf(form));
    } catch { /* storage full or refused: the save itself still goes on */ }
  }

  function forget(form) {
    try {
      localStorage.removeItem(storeKey(form));
    } catch { /* nothing kept */ }
  }

  function sayOnForm(form, kind) {
    var status = form.querySelector(".analysis-status");
    if (!status) return;
    status.textContent = form.dataset[kind] || "";
    status.classList.toggle("error", kind === "notSaved");
  }

  function saveAgainLater(form) {
    var n = form.dataset.saveFailures ? Number(form.dataset.saveFailures) : 0;
    form.dataset.saveFailures = String(n + 1);
    clearTimeout(form._saveAgain);
    form._saveAgain = setTimeout(function () {
      if (form.isConnected) window.htmx.trigger(form, "submit");
    }, wait(n));
  }

  function restore(form) {
    var kept;
    try {
      kept = localStorage.getItem(storeKey(form));
    } catch {
      return;
    }
    if (!kept) return;
    if (kept === valuesOf(form)) {
      forget(form);
      return;
    }
    var values = JSON.parse(kept);
    Object.keys(values).forEach(function (name) {
      var field = form.elements.namedItem(name);
      if (field && "value" in field) field.value = values[name];
    });
    sayOnForm(form, "restored");
    window.htmx.trigger(form, "submit");
  }

  document.addEventListener("input", function (evt) {
    var form = autosaveForm(evt.target);
    if (!form) return;
    keepHere(form);
    sayOnForm(form, "unsaved");
  });

  // Events ------------------------------------------------------------------------------------

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var form = autosaveForm(evt.detail.elt);
    if (form) form.dataset.sending = valuesOf(form);
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail.xhr;
    if (!xhr || xhr.status === 0 || xhr.status >= 500) return;
    answered();
    var elt = evt.detail.elt;
    if (elt && elt.dataset) delete elt.dataset.pollFailures;
    var form = autosaveForm(elt);
    if (!form) return;
    delete form.dataset.saveFailures;
    // Saved: forget the local copy, unless more was typed while the save was on its way.
    if (xhr.status === 200 && form.dataset.sending === valuesOf(form)) forget(form);
  });

  function onFailure(kind) {
    return function (evt) {
      failed(kind);
      var elt = evt.detail.elt;
      var form = autosaveForm(elt);
      if (form) {
        keepHere(form);
        sayOnForm(form, "notSaved");
        saveAgainLater(form);
      } else if (selfPoller(elt)) {
        askAgain(elt);
      }
    };
  }

  document.addEventListener("htmx:sendError", onFailure("sendError"));
  document.addEventListener("htmx:responseError", onFailure("responseError"));

  function restoreAll() {
    document.querySelectorAll("form[data-autosave]").forEach(restore);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", restoreAll);
  } else {
    restoreAll();
  }
})();
