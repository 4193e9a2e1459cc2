// The lab's controls: a slider beside each number box, ready-made lists beside a list box,
// and a panel that keeps its place when htmx swaps it after Run.
//
// The server writes each slider's track on its data-* (labs/web/sliders.py): linear, log
// (a value that matters from 1 to 10,000), or log-below (99.9 % of 100: the distance below
// the bound on a log track). The slider has no name, so only the box is sent: without
// JavaScript the slider stays hidden and the box works alone.
(function () {
  function spec(slider) {
    var d = slider.dataset;
    return {
      scale: d.scale, low: Number(d.low), high: Number(d.high), step: Number(d.step),
      whole: d.whole === "1", zero: d.zero === "1", below: d.below === "" ? null : Number(d.below),
      mark: Number(d.mark), n: Number(slider.max),
    };
  }
  function clean(x) { return Number(x.toPrecision(12)); }
  function sig2(x) {
    if (x === 0) return 0;
    var p = Math.pow(10, Math.floor(Math.log10(Math.abs(x))) - 1);
    return clean(Math.round(x / p) * p);
  }
  // The log track's value at position q of m (0 at q = 0 when the track starts at zero).
  function logAt(s, q, m) {
    if (s.zero && q === 0) return 0;
    var k = s.zero ? q - 1 : q, last = s.zero ? m - 1 : m;
    return s.low * Math.pow(s.high / s.low, last ? k / last : 0);
  }
  function valueAt(s, p) {
    if (s.scale === "linear") {
      if (p <= 0) return s.low;
      if (p >= s.n) return s.high;
      var raw = s.low + (p * (s.high - s.low)) / s.n;
      return clean(Math.min(s.high, Math.max(s.low, Math.round(raw / s.step) * s.step)));
    }
    if (s.scale === "log-below") {
      var gap = sig2(logAt(s, s.n - p, s.n));
      var places = gap ? Math.max(0, 1 - Math.floor(Math.log10(gap))) : 0;
      return Number((s.below - gap).toFixed(places));
    }
    var v = sig2(logAt(s, p, s.n));
    if (s.whole) v = Math.round(v);
    return v;
  }
  function positionOf(s, value) {
    var best = 0, gap = Infinity;
    for (var p = 0; p <= s.n; p++) {
      var d = Math.abs(valueAt(s, p) - value);
      if (d < gap) { gap = d; best = p; }
    }
    return best;
  }
  function boxOf(slider) { return document.getElementById(slider.dataset.for); }
  function unitOf(slider) {
    var unit = slider.closest(".pair").querySelector(".unit");
    return unit ? " " + unit.textContent : "";
  }
  function say(slider, value) { slider.setAttribute("aria-valuetext", value + unitOf(slider)); }

  // The box's value, put on the slider (a value off the track pins it to the nearer end).
  function follow(slider) {
    var s = spec(slider), box = boxOf(slider), typed = Number(box.value);
    if (box.value.trim() === "" || !isFinite(typed)) return;
    slider.value = String(positionOf(s, typed));
    say(slider, box.value.trim());
  }
  function setUp(slider) {
    if (slider.dataset.ready) return;
    slider.dataset.ready = "1";
    var s = spec(slider);
    slider.hidden = false;
    var box = boxOf(slider);
    if (box.disabled) slider.disabled = true;
    slider.parentNode.style.setProperty("--mark-at", String(positionOf(s, s.mark) / s.n));
    follow(slider);
  }
  function moved(slider) {
    var value = valueAt(spec(slider), Number(slider.value)), box = boxOf(slider);
    box.value = String(value);
    say(slider, box.value);
  }

  // Arrows move to the next value the box would show (a log track's positions can round to
  // the same whole number), Page keys a tenth of the track, Home and End to its ends.
  function step(slider, key) {
    var s = spec(slider), p = Number(slider.value), here = valueAt(s, p);
    var big = Math.max(1, Math.round(s.n / 10));
    var to = {ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: big, PageDown: -big}[key];
    var next;
    if (key === "Home") next = 0;
    else if (key === "End") next = s.n;
    else if (to === undefined) return false;
    else {
      next = Math.min(s.n, Math.max(0, p + to));
      while (next > 0 && next < s.n && valueAt(s, next) === here) next += to > 0 ? 1 : -1;
    }
    if (next === p) return true;
    slider.value = String(next);
    moved(slider);
    slider.dispatchEvent(new Event("input", {bubbles: true}));
    slider.dispatchEvent(new Event("change", {bubbles: true}));
    return true;
  }

  // The bar beside Run shows the key figure of the run below it, once it has one.
  function showKeyFigure(root) {
    root.querySelectorAll(".lab-panel").forEach(function (panel) {
      var body = panel.querySelector(".run-body"), bar = panel.querySelector(".lab-bar .key-figure");
      if (!bar || !body || body.matches(".status-queued, .status-running")) return;
      var has = body && body.dataset.keyValue;
      bar.querySelector(".label").textContent = has ? body.dataset.keyLabel : "";
      bar.querySelector("strong").textContent = has ? body.dataset.keyValue : "";
    });
  }
  function setUpAll(root) {
    root.querySelectorAll("input.slider[data-for]").forEach(setUp);
    root.querySelectorAll(".presets-row[hidden]").forEach(function (row) { row.hidden = false; });
  }

  document.addEventListener("input", function (event) {
    var t = event.target;
    if (t.matches && t.matches("input.slider[data-for]")) moved(t);
    else if (t.id) {
      var slider = document.querySelector('input.slider[data-for="' + t.id + '"]');
      if (slider) follow(slider);
    }
  });
  document.addEventListener("keydown", function (event) {
    var t = event.target;
    if (t.matches && t.matches("input.slider[data-for]") && step(t, event.key)) event.preventDefault();
  });
  document.addEventListener("click", function (event) {
    var preset = event.target.closest("[data-fill]");
    if (preset) {
      var box = document.getElementById(preset.dataset.fill);
      box.value = preset.dataset.value;
      box.dispatchEvent(new Event("input", {bubbles: true}));
      box.dispatchEvent(new Event("change", {bubbles: true}));
      return;
    }
    // After forms.js has put every box back to the lesson's value: the sliders follow.
    var reset = event.target.closest("[data-reset-form]");
    if (reset) reset.closest("form").querySelectorAll("input.slider[data-for]").forEach(follow);
  });

  // Run swaps the whole panel: keep the controls' own scroll and the groups left open.
  var kept = {};
  document.addEventListener("htmx:beforeSwap", function (event) {
    var panel = event.detail.target;
    if (!panel || !panel.matches || !panel.matches(".lab-panel")) return;
    var form = panel.querySelector(".lab-form");
    kept[panel.id] = form && {
      scroll: form.scrollTop,
      open: Array.prototype.map.call(form.querySelectorAll("details.group"), function (d) { return d.open; }),
    };
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var id = event.detail.elt && event.detail.elt.id, was = id && kept[id];
    var panel = id && document.getElementById(id);
    if (!was || !panel) return;
    delete kept[id];
    var form = panel.querySelector(".lab-form");
    form.querySelectorAll("details.group").forEach(function (d, i) { if (was.open[i]) d.open = true; });
    setUpAll(panel);
    // A refused value has the focus (charts.js), scrolled into view: leave it there.
    if (!form.querySelector(".has-error")) form.scrollTop = was.scroll;
  });
  document.addEventListener("DOMContentLoaded", function () { setUpAll(document); });
  document.addEventListener("htmx:afterSettle", function (event) {
    setUpAll(event.detail.elt.parentNode || document);
    showKeyFigure(document);
  });
})();
