// A lab that answers as its controls move (labs/web/views/drafts.py, labs/runs/drafts.py).
//
// While a control moves (a finger or a mouse dragging a slider, keys held), the form's
// values are posted at a steady pace: the first change at once, then at most one post every
// PACE_MS, and never two at once for a panel — a value that comes while a post is in flight
// waits for its answer, and values passed over meanwhile are never sent (the server, for its
// part, deletes a student's draft still queued when a newer one comes: labs.runs.drafts).
// When the hand lets go (the `change` of a slider a pointer held), its value goes at once,
// past the pace and beside a post in flight, on the panel's second hidden element (kept for
// the release, so nothing is aborted: htmx logs an abort as an error); an answer lands if it
// is newer than the last one taken, so an older answer that comes after a newer one is
// dropped (issue 40: the release no longer waits out the answer in flight, bench/drag.py
// --release-at-once), and one that comes first still shows: on a loaded site, where each
// answer comes after the next post went, "only the newest lands" showed nothing until the
// hand stopped (bench/class_drag.py). The last value is always the last one sent. The hidden .auto-run elements do the posts; the answer is a
// draft run's body, swapped into the hidden .incoming holder, and every field's message
// slot, swapped in place out of band (a refused value says why beside its field and nothing
// runs). A queued body polls itself there; once it is finished it lands: it takes the place
// of the body shown, with the shown charts moved into it and redrawn on the same elements
// (charts.js: Plotly.react, the previous lines left faint), and "What changed" written under
// its headline from the two runs' words (data-facts, written by the server). The first
// change with no guess given waits for the guess or an explicit skip (predict.js's
// labPredict.mayGo). Run never aborts a draft in flight either: its answer is dropped.
// A post that gets no answer, or has no link to go on, is taken by the outbox (outbox.js),
// which says so (`outbox:kept`): a draft is a view, not a record, so its panel is free at
// once. The next value is posted as usual and takes the kept one's place; the outbox keeps
// only the newest, sends it when the link is back, and lands its answer only while it is
// the panel's newest post (`data-draft-post`), so the chart ends on the slider's value.
// Each post carries its number and a random id of this page load (`draft_post`,
// `draft_page`; an outbox's kept draft keeps them in its body), so the server can tell an
// older post that arrives second (labs.runs.draft_order): it answers that one 204 with
// `Draft-Superseded: true`, deleting and starting nothing, and the answer is dropped here
// like an older one, unsaid; the newer post's answer brings the chart.
(function () {
  var PACE_MS = 220; // during a drag, one post per this long (and one at a time)
  var sent = {}, facts = {}, lastAt = {}, timers = {}, posted = {}, taken = {};
  var held = null; // the slider a pointer holds: its `change` is the hand letting go
  var page = null; // this page load's id, made at its first post

  // A random id for this page load: 32 hex digits (getRandomValues works on plain http://,
  // where randomUUID is missing). A reload makes a new one, so its numbers start again.
  // Pure, for tests/js/labs/drafts.test.js.
  function pageId(source) {
    var bytes = new Uint8Array(16);
    if (source && source.getRandomValues) source.getRandomValues(bytes);
    else for (var i = 0; i < bytes.length; i += 1) bytes[i] = Math.floor(Math.random() * 256);
    return Array.prototype.map.call(bytes, function (b) { return (b < 16 ? "0" : "") + b.toString(16); }).join("");
  }
  window.labDraftPageId = pageId;
  // The fields a post sends beside the form's values: its place in this page's order.
  function order(pageOf, post) {
    return { draft_page: pageOf, draft_post: String(post) };
  }
  window.labDraftOrder = order;

  // Which element posts now: "usual" when it is free, "release" when the hand let go with
  // the usual post in flight, else null (the value goes when a post's answer comes). Pure,
  // so tests/js/labs/drafts.test.js reads it.
  function lane(usualFlying, releaseFlying, letGo) {
    if (!usualFlying) return "usual";
    if (letGo && !releaseFlying) return "release";
    return null;
  }
  window.labDraftLane = lane;
  // Whether post number `post`'s answer may take the holder, the newest taken being `taken`
  // (0: none yet). Pure, for tests/js/labs/drafts.test.js.
  function takes(post, taken) {
    return post > taken;
  }
  window.labDraftTakes = takes;
  // What becomes of an answer: "take" it, "drop" it (older than the last taken), or it was
  // "superseded" on the server (a newer post of this page got there first): dropped too,
  // without counting as taken, as it brings nothing. Pure, for the tests.
  function answer(post, taken, superseded) {
    if (superseded) return "superseded";
    return takes(post, taken) ? "take" : "drop";
  }
  window.labDraftAnswer = answer;
  function supersededAnswer(xhr) {
    return !!(xhr && xhr.getResponseHeader && xhr.getResponseHeader("Draft-Superseded") === "true");
  }
  function poster(panel, which) {
    return panel.querySelector(which === "release" ? ".auto-run.at-release" : ".auto-run:not(.at-release)");
  }
  function flying(panel, which) {
    var elt = poster(panel, which);
    return !!(elt && elt.dataset.flying);
  }

  function panelOf(node) { return node && node.closest && node.closest(".lab-panel[data-auto-run]"); }
  // The lab's values only: a prediction (labs/predict.html) belongs to the next Run (the
  // post carries it all the same: a guess given before any result is kept from it, predict.js).
  function values(form) {
    var data = new FormData(form);
    data.delete("csrfmiddlewaretoken");
    form.querySelectorAll(".predict [name]").forEach(function (field) { data.delete(field.name); });
    return new URLSearchParams(data).toString();
  }
  function status(panel, on) {
    var note = panel.querySelector(".draft-status");
    if (note) note.hidden = !on;
  }
  function ready(panel) {
    if (panel.dataset.draftsReady) return;
    panel.dataset.draftsReady = "1";
    // A panel swapped in after Run starts from the values it was run with.
    sent[panel.id] = values(panel.querySelector("form.lab-form"));
    var body = panel.querySelector(".results .run-body[data-facts]:not([data-compared])");
    if (body) compare(panel, body);
  }
  // Post the form's newest values, if they are new, a post may go (`lane`) and the pace
  // allows; `letGo`: the hand let go, so past the pace and beside a post in flight.
  function changed(panel, letGo) {
    clearTimeout(timers[panel.id]);
    if (panel.dataset.ran) return;
    var which = lane(flying(panel, "usual"), flying(panel, "release"), !!letGo);
    if (!which) {
      if (letGo) panel.dataset.letGo = "1"; // goes as soon as an answer comes
      return; // sent when the answer comes
    }
    letGo = letGo || !!panel.dataset.letGo;
    var wait = (lastAt[panel.id] || 0) + PACE_MS - Date.now();
    if (wait > 0 && !letGo) {
      timers[panel.id] = setTimeout(function () { changed(panel); }, wait);
      return;
    }
    var form = panel.querySelector("form.lab-form"), now = values(form);
    delete panel.dataset.letGo;
    if (now === sent[panel.id]) return;
    // The first move with no guess waits for one, or for "Skip this time" (predict.js),
    // which then calls this again: nothing is posted before.
    if (window.labPredict && !window.labPredict.mayGo(panel, function () { changed(panel, letGo); }, false)) return;
    var elt = poster(panel, which);
    sent[panel.id] = now;
    lastAt[panel.id] = Date.now();
    posted[panel.id] = (posted[panel.id] || 0) + 1;
    elt.dataset.post = posted[panel.id]; // its answer lands only if no newer post went
    page = page || pageId(window.crypto);
    elt.setAttribute("hx-vals", JSON.stringify(order(page, posted[panel.id]))); // sent with it
    panel.dataset.draftPost = posted[panel.id]; // the same for a kept one's (outbox.js)
    elt.dataset.flying = "1";
    status(panel, true);
    window.htmx.trigger(elt, "lab:changed");
  }
  function onEdit(event) {
    var panel = panelOf(event.target);
    if (!panel || !event.target.closest("form.lab-form")) return;
    if (event.target.matches("button") || event.target.closest(".predict")) return;
    var letGo = event.type === "change" && event.target === held;
    if (letGo) held = null;
    changed(panel, letGo);
  }
  document.addEventListener("input", onEdit);
  document.addEventListener("change", onEdit);
  // A pointer (mouse, finger, pen) takes a slider: the `change` that follows is its release
  // (keys held on a slider change it at every step, and keep the pace).
  document.addEventListener("pointerdown", function (event) {
    held = event.target.matches && event.target.matches("input[type=range]") ? event.target : null;
  }, true);
  // "Reset to the lesson's values" sets the boxes without an event (forms.js).
  document.addEventListener("click", function (event) {
    if (!event.target.closest("[data-reset-form]")) return;
    var panel = panelOf(event.target);
    if (panel) changed(panel);
  });

  // The field messages came back out of band: mark their fields, open a folded group.
  function marks(panel) {
    panel.querySelectorAll("form.lab-form details.group .field").forEach(function (field) {
      var message = field.querySelector(".error");
      var bad = !!(message && !message.hidden && message.textContent.trim());
      field.classList.toggle("has-error", bad);
      var box = field.querySelector("input:not([type=range]):not([type=hidden]), select, textarea");
      if (box) {
        if (bad) box.setAttribute("aria-invalid", "true");
        else box.removeAttribute("aria-invalid");
      }
      var group = field.closest("details");
      if (bad && group && !group.open) group.open = true;
    });
  }

  // "What changed: jitter (none → full) — busiest 10 ms slot (500 → 81 jobs)". Each value
  // pair in brackets after its name: a ticked box read "Also run 20 seeds no → yes",
  // which a student took for "don't also run 20 seeds". Every word comes from the two runs'
  // facts (labs/web/changes.py); "" when no value moved. `same`: the words for "no figure
  // changed". Pure, so tests/js/labs/drafts.test.js reads it against random facts.
  function whatChanged(was, now, same) {
    var before = {};
    was.params.forEach(function (p) { before[p[0]] = p[2]; });
    var moved = now.params.filter(function (p) { return p[0] in before && before[p[0]] !== p[2]; });
    if (!moved.length) return "";
    var figs = {};
    was.figures.forEach(function (f) { figs[f[0]] = f[2]; });
    var went = now.figures.filter(function (f) { return f[0] in figs && figs[f[0]] !== f[2]; }).slice(0, 4);
    var parts = moved.map(function (p) { return p[1] + " (" + before[p[0]] + " → " + p[2] + ")"; });
    var results = went.map(function (f) { return f[1] + " (" + figs[f[0]] + " → " + f[2] + ")"; });
    return parts.join(", ") + " — " + (results.length ? results.join(" · ") : same);
  }
  window.labWhatChanged = whatChanged;
  function say(body, was, now, panel) {
    var words = whatChanged(was, now, panel.dataset.changedSame);
    if (!words) return;
    var line = document.createElement("p");
    line.className = "what-changed";
    var title = document.createElement("strong");
    title.textContent = panel.dataset.changedTitle + " ";
    line.appendChild(title);
    line.appendChild(document.createTextNode(words));
    var headline = body.querySelector(".headline");
    if (headline) headline.after(line);
  }
  function compare(panel, body) {
    if (!body.dataset.facts) return;
    var now = JSON.parse(body.dataset.facts);
    if (facts[panel.id]) say(body, facts[panel.id], now, panel);
    facts[panel.id] = now;
    body.dataset.compared = "1";
  }

  function showKeyFigure(panel, body) {
    var bar = panel.querySelector(".lab-bar .key-figure");
    if (!bar) return;
    bar.querySelector(".label").textContent = body.dataset.keyValue ? body.dataset.keyLabel : "";
    bar.querySelector("strong").textContent = body.dataset.keyValue || "";
  }

  // The finished body takes the place of the one shown; the shown charts move into it.
  function land(panel, body) {
    var results = panel.querySelector(".results");
    var area = results.querySelector(".run-area");
    if (!area) {
      area = document.createElement("div");
      area.className = "run-area";
      var placeholder = results.querySelector(".placeholder");
      if (placeholder) placeholder.replaceWith(area);
      else results.prepend(area);
    }
    // The main chart comes back from its stage to its place, so the charts keep their order.
    if (window.labStage) window.labStage.unstage(panel);
    var old = area.querySelector(".run-body");
    var drawn = old ? Array.prototype.slice.call(old.querySelectorAll("figure.chart.drawn")) : [];
    var moved = [];
    body.querySelectorAll("figure.chart").forEach(function (fig, i) {
      var was = drawn[i];
      if (!was) return;
      was.querySelector("script[type='application/json']").textContent =
        fig.querySelector("script[type='application/json']").textContent;
      var label = fig.querySelector(".plot").getAttribute("aria-label");
      was.querySelector(".plot").setAttribute("aria-label", label);
      fig.replaceWith(was);
      moved.push(was);
    });
    if (old) {
      window.labCharts.purge(old); // the charts left over (a result with fewer of them)
      old.replaceWith(body);
    } else {
      area.prepend(body);
      // The page before any run showed the lesson's values "in production": the run's
      // body now shows its own.
      results.querySelectorAll(":scope > .in-production").forEach(function (d) { d.remove(); });
    }
    compare(panel, body);
    window.htmx.process(body);
    if (window.labStage) window.labStage.stage(panel, false); // redrawn just below
    window.labCharts.redrawAll(moved);
    window.labCharts.draw(panel); // the body's charts and the one on the stage
    showKeyFigure(panel, body);
    status(panel, false);
  }

  document.addEventListener("htmx:afterSettle", function (event) {
    var elt = event.detail.elt;
    var holder = elt && elt.closest && elt.closest(".incoming");
    if (!holder) {
      // A panel swapped whole (after Run): take up its values and its run's words.
      document.querySelectorAll(".lab-panel[data-auto-run]").forEach(function (panel) {
        ready(panel);
        var body = panel.querySelector(".results .run-body[data-facts]:not([data-compared])");
        if (body) compare(panel, body);
      });
      return;
    }
    var panel = panelOf(holder);
    if (!panel) return;
    marks(panel);
    var body = holder.querySelector(".run-body");
    if (!body) { status(panel, false); return; } // refused: the messages say why
    if (body.matches(".status-queued, .status-running")) return; // it polls, in the holder
    land(panel, body);
  });
  // A draft's post has its answer (or failed): the newest values go next, if they moved.
  document.addEventListener("htmx:afterRequest", function (event) {
    var elt = event.detail.elt;
    // Run's post failed and left its panel in place: drafts go on.
    if (elt.matches && elt.matches("form.lab-form") && elt.isConnected) {
      var same = panelOf(elt);
      if (same) delete same.dataset.ran;
      return;
    }
    if (!elt.matches || !elt.matches(".auto-run")) return;
    var panel = panelOf(elt);
    if (!panel) return;
    delete elt.dataset.flying;
    if (!event.detail.successful && !event.detail.xhr.status) status(panel, false);
    changed(panel);
  });
  // The outbox took a post htmx will not answer (outbox.js). A draft's panel goes on at
  // once: the value that waited for this answer goes now, or the next move's. If the
  // browser would not store it, the values are posted again next time. A Run kept with no
  // link: the value waiting for the pace is not posted after it.
  document.addEventListener("outbox:kept", function (event) {
    var elt = event.target;
    var panel = panelOf(elt);
    if (!panel) return;
    if (elt.matches("form.lab-form")) {
      clearTimeout(timers[panel.id]);
      return;
    }
    if (!elt.matches(".auto-run")) return;
    delete elt.dataset.flying;
    status(panel, false);
    if (!event.detail || !event.detail.kept) {
      delete sent[panel.id];
      return;
    }
    changed(panel);
  });
  // Run wins over a draft still in flight: the draft's answer is dropped, not landed on the
  // new panel (and not aborted: an abort is no error, and htmx would log it as one).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!form.matches || !form.matches("form.lab-form")) return;
    var panel = panelOf(form);
    if (!panel) return;
    clearTimeout(timers[panel.id]);
    panel.dataset.ran = "1";
  });
  // An answer takes the holder only if its post is newer than the last one taken (the
  // release's may come first; then the older one is dropped, and a queued body an older
  // answer left there polling is replaced by the newer one).
  // htmx fires beforeSwap on the target (the holder): the poster is the request's element.
  // A superseded answer (204, nothing in it) is never taken: its afterRequest frees the
  // element and the next value goes, as for any answer.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var config = event.detail.requestConfig;
    var elt = config && config.elt;
    if (!elt || !elt.matches || !elt.matches(".auto-run")) return;
    var panel = panelOf(elt);
    var post = Number(elt.dataset.post);
    if (!elt.isConnected || !panel || panel.dataset.ran) {
      event.detail.shouldSwap = false;
      return;
    }
    var what = answer(post, taken[panel.id] || 0, supersededAnswer(event.detail.xhr));
    if (what === "take") taken[panel.id] = post;
    else event.detail.shouldSwap = false;
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".lab-panel[data-auto-run]").forEach(ready);
  });
})();
