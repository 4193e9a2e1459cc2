// Predict first: the slider beside a prediction's number box fills it (and follows it).
// Without JavaScript the slider stays hidden and the box is typed in, and nothing asks.
//
// The first Run, or the first move of a control that re-runs the lab (drafts.js), with no
// guess given is held: the prompt's ask shows (words from templates/labs/predict.html, in
// the page's language), focus moves to the question, and what was held goes ahead after an
// explicit "Skip this time" (sent with Run as prediction_skipped=1 and kept with the run:
// labs.web.predict) or a guess (a held draft at once; a held Run at the next press, so a
// number being typed is never sent half-written). Asked once per visit of the page: after a
// guess or a skip, later drags and Runs go ahead (an assignment that requires a guess asks
// each time there is none: the server refuses it anyway).
//
// A guess that lets the first draft go (given at its ask, or typed before the first drag)
// was given before any result was on the page, though Run carries it only later: it gets
// an id in the form's prediction_early field, which every draft's post carries, so the
// server keeps it with the moment it came (labs.runs.early_guesses). A guess typed once a
// result is shown gets none, and the id goes once the guess is cleared (after its Run).
(function () {
  "use strict";
  var state = {};   // panel id → "answered" | "skipped", for this visit of the page
  var held = {};    // panel id → {go: function carrying on, run: true for a Run}
  var early = {};   // panel id → the id of its guess given before any result was shown
  var scrolledFrom = {}; // prompt → the page's scroll when it asked

  // Whether a guess letting something go now was given before any result was on the page:
  // it lets a draft go (a Run carries its guess itself), nothing went before it this visit
  // (no guess, no skip: `asked` unset), and no result is shown. Pure, for the unit test.
  function givenEarly(run, asked, shown) { return !run && !asked && !shown; }
  // An id for such a guess: the moment and a random part, in the letters the server takes
  // (labs.web.predict.EARLY_SHAPE).
  function earlyId(now, random) {
    var part = Math.floor(random() * 1099511627776).toString(36); // 40 bits
    return Math.floor(now).toString(36) + "-" + ("00000000" + part).slice(-8);
  }
  function markEarly(panel, section) {
    early[panel.id] = earlyId(Date.now(), Math.random);
    keepEarly(section, panel);
  }
  function keepEarly(section, panel) {
    var field = section.querySelector("[data-predict-early]");
    if (!field) return;
    if (!guessed(section)) delete early[panel.id]; // cleared: the guess went with its Run
    field.value = early[panel.id] || "";
  }

  function show(root) {
    root.querySelectorAll("input[data-predict-for]").forEach(function (slider) {
      slider.hidden = false;
    });
    // A panel swapped in after Run keeps the visit's skip, so its next Run says it too.
    root.querySelectorAll("[data-predict-skip]").forEach(function (field) {
      var panel = field.closest(".lab-panel");
      field.value = panel && state[panel.id] === "skipped" ? "1" : "";
    });
    // And an early guess's id while the guess is still there (a Run refused for a value).
    root.querySelectorAll("[data-predict-early]").forEach(function (field) {
      var panel = field.closest(".lab-panel");
      if (panel) keepEarly(field.closest(".predict"), panel);
    });
  }
  function guessed(section) {
    var fields = section.querySelectorAll(".predict-choice input:checked, .predict-number input[type=text]");
    return Array.prototype.some.call(fields, function (field) { return field.value.trim() !== ""; });
  }
  function askOf(section) { return section.querySelector(".predict-ask"); }
  function words(ask) { return ask.querySelector(".predict-ask-words"); }
  function ask(section) {
    var box = askOf(section);
    if (!box) return;
    if (box.dataset.words) words(box).textContent = box.dataset.words;
    var skip = box.querySelector("[data-predict-skip-button]");
    if (skip) skip.hidden = false;
    if (!box.hidden) return; // asked already: a drag goes on moving its slider
    box.hidden = false;
    scrolledFrom[section.id || "predict"] = window.scrollY; // where the student was working
    var first = section.querySelector(".predict-choice input:checked, .predict-choice input, .predict-number input[type=text]");
    if (first) first.focus();
  }
  function settle(section) {
    var box = askOf(section);
    if (box) box.hidden = true;
  }
  // Once answered or skipped, the page goes back to where the student was working (the
  // ask brought the prompt into view), so the control just moved is in sight again.
  function back(section) {
    var key = section.id || "predict";
    if (!(key in scrolledFrom)) return;
    window.scrollTo(0, scrolledFrom[key]);
    delete scrolledFrom[key];
  }

  // Whether the panel's Run or draft may go now; if not, `go` is kept and called once the
  // student has guessed or skipped.
  function mayGo(panel, go, run) {
    var section = panel && panel.querySelector(".predict");
    if (!section || !askOf(section)) return true;
    var required = section.hasAttribute("data-required");
    if (guessed(section)) {
      if (givenEarly(run, state[panel.id], !!panel.querySelector(".results .run-body"))) {
        markEarly(panel, section);
      }
      if (!required) state[panel.id] = "answered";
      delete held[panel.id];
      settle(section);
      return true;
    }
    if (!required && state[panel.id]) return true;
    held[panel.id] = { go: go, run: run };
    ask(section);
    return false;
  }
  window.labPredict = { mayGo: mayGo, givenEarly: givenEarly, earlyId: earlyId };

  // Run (the form's submit, or a submit button's own hx-post: "Run before/after").
  document.addEventListener("htmx:confirm", function (event) {
    var elt = event.detail.elt;
    if (!elt || !elt.matches) return;
    if (!elt.matches("form.lab-form, form.lab-form button[type=submit]")) return;
    var panel = elt.closest(".lab-panel");
    var issue = event.detail.issueRequest;
    if (mayGo(panel, function () { issue(true); }, true)) return;
    event.preventDefault();
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-predict-skip-button]");
    if (!button) return;
    var panel = button.closest(".lab-panel");
    var section = button.closest(".predict");
    if (!panel || !section) return;
    state[panel.id] = "skipped";
    section.querySelector("[data-predict-skip]").value = "1";
    settle(section);
    back(section);
    var then = held[panel.id];
    delete held[panel.id];
    if (then) then.go();
  });

  // A guess given while something is held: a draft goes at once; a Run waits for its press.
  document.addEventListener("change", function (event) {
    var section = event.target.closest && event.target.closest(".predict");
    var panel = section && section.closest(".lab-panel");
    if (!panel || !held[panel.id] || !guessed(section)) return;
    var then = held[panel.id];
    if (!then.run) {
      mayGo(panel, then.go, false);
      back(section);
      then.go();
      return;
    }
    var box = askOf(section);
    if (!box.dataset.words) box.dataset.words = words(box).textContent;
    words(box).textContent = box.dataset.thenWords;
    var skip = box.querySelector("[data-predict-skip-button]");
    if (skip) skip.hidden = true;
  });

  document.addEventListener("htmx:load", function (event) { show(event.detail.elt); });
  document.addEventListener("DOMContentLoaded", function () { show(document); });
  document.addEventListener("input", function (event) {
    var el = event.target;
    if (el.matches && el.matches("input[data-predict-for]")) {
      var box = document.getElementById(el.dataset.predictFor);
      if (box) { box.value = el.value; }
    } else if (el.matches && el.matches(".predict-number input[type=text]")) {
      var slider = document.querySelector('input[data-predict-for="' + el.id + '"]');
      var value = parseFloat(el.value);
      if (slider && !isNaN(value)) { slider.value = String(value); }
    }
  });
})();
