// Draw every Plotly figure on the page that is not drawn yet. Each figure's JSON sits
// in a <script type="application/json"> inside <figure class="chart">, written by Django.
// plotly.js (the site's own build: scatter, bar, box and heatmap, all the charts draw) is
// fetched the first time a page has a chart to draw, or earlier, in idle time, once a page
// that leads to a chart (a lab's form, a unit's page: [data-plotly-soon]) has loaded, so
// that Run does not wait for it; never on other pages. Its URL comes from this script's
// data-plotly attribute, and the browser keeps it. A page opening with its charts far
// below the screen fetches it at once but runs it only when a chart comes near.
// Until it is drawn, a chart's box has the chart's height and says "Chart loading" (the
// words from data-loading, in the page's language); charts are drawn one per task, so a
// page with several answers a tap between two of them.
// A running experiment's fragment is swapped every second with a new chart in it: before
// htmx removes the old one, Plotly.purge drops its listeners (a responsive plot listens to
// window resizes), so a minute of redraws does not leave sixty dead plots listening.
(function () {
  // Below this width a chart has no toolbar: zoom boxes are no use under a thumb, and the
  // title needs the whole width.
  var PHONE_PX = 600;
  // The toolbar (top right, over the title's line) with the few buttons left below.
  var TOOLBAR_PX = 130;
  var TITLE_LINE_PX = 22;
  // Titles are measured in the chart's own font (the layout's family), else Plotly's.
  var TITLE_PX = "17px ";
  var PLOTLY_FAMILY = "'Open Sans', verdana, arial, sans-serif";
  // Only the buttons whose words the site gives in both languages (templatetags/plotly_words):
  // no "Share chart..." (it uploads to an outside site), no JSON download, no lasso.
  var CONFIG = {
    responsive: true,
    displaylogo: false,
    showSendToCloud: false,
    modeBarButtons: [["toImage", "zoom2d", "pan2d", "resetScale2d"]],
  };
  // The toolbar's tooltips in the page's language, through plotly.js's own locales.
  var LOCALE = document.getElementById("plotly-locale");
  function registerLocale() {
    if (!LOCALE || CONFIG.locale) return;
    var locale = JSON.parse(LOCALE.textContent);
    window.Plotly.register({ moduleType: "locale", name: locale.name, dictionary: locale.dictionary });
    CONFIG.locale = locale.name;
  }
  var measure = document.createElement("canvas").getContext("2d");

  function textWidth(text, family) {
    measure.font = TITLE_PX + (family || PLOTLY_FAMILY);
    return measure.measureText(text).width * 1.08; // the SVG font may be a little wider
  }

  // Break a title into lines no wider than `room` pixels, at spaces.
  function wrap(text, room, family) {
    var lines = [], line = "";
    text.split(/\s+/).forEach(function (word) {
      var next = line ? line + " " + word : word;
      if (line && textWidth(next, family) > room) { lines.push(line); line = word; } else { line = next; }
    });
    if (line) lines.push(line);
    return lines;
  }

  // A centred title must clear the toolbar on its right (so, by symmetry, as much on its
  // left) and the chart's edges: wrap it, and make the top margin room for its lines.
  function fitTitle(layout, width, toolbar) {
    var title = layout.title;
    if (!title || !title.text || !width) return;
    var room = Math.max(width - 2 * (toolbar ? TOOLBAR_PX : 10), 120);
    var family = (title.font && title.font.family) || (layout.font && layout.font.family);
    var lines = wrap(String(title.text).replace(/<br>/g, " "), room, family);
    if (lines.length < 2) return;
    title.text = lines.join("<br>");
    var extra = (lines.length - 1) * TITLE_LINE_PX;
    layout.margin = Object.assign({}, layout.margin);
    layout.margin.t = (layout.margin.t || 80) + extra;
    if (layout.height) layout.height += extra;
    return extra;
  }

  // A legend below the plot, placed in fractions of the plot's height, made Plotly draw a
  // chart three to five times: once, again for each margin its legend pushed, and again
  // for each move `declutter` made to take it off the x axis's title. Instead it hangs at
  // the chart's foot (container coordinates) with the x axis's words given their own room
  // (automargin), so Plotly itself keeps the two apart; and the bottom margin both need is
  // reckoned here, from the legend's rows as Plotly lays them out, so nothing is pushed and
  // the chart is drawn once. A reckoning short of the truth costs one more drawing (Plotly
  // pushes the margin), never an overlap; one over it leaves a few pixels more below.
  var AXIS_WORDS_PX = 44; // tick labels and the x axis's title, below the plot (42 measured)
  var LEGEND_ROW_PX = 19; // a one-line entry: 12 px × 1.3, at least 16, plus 3 (Plotly's)
  var LEGEND_PAD_PX = 10; // the legend's own padding, above and below its rows
  var LEGEND_SYMBOL_PX = 40; // an entry's symbol and the gaps around it
  var LEGEND_GAP_PX = 5;

  function legendEntries(layout, traces) {
    if (layout.showlegend === false) return null;
    var names = [];
    for (var i = 0; i < traces.length; i++) {
      var t = traces[i];
      if (t.legendgroup || (t.type && ["scatter", "bar", "box"].indexOf(t.type) < 0)) return null;
      if (t.showlegend !== false && t.visible !== false) names.push(String(t.name || "trace " + i));
    }
    var shown = names.length > 1 || traces.some(function (t) { return t.showlegend === true; });
    if (!shown) return [];
    if (names.some(function (n) { return /<br>|\n/i.test(n); })) return null;
    return names;
  }
  // Rows of a horizontal legend `room` pixels wide, as plotly.js's legend/draw.js packs them:
  // all in one row if they fit, else in columns as wide as the widest entry.
  function legendRows(names, room, family) {
    measure.font = "12px " + (family || PLOTLY_FAMILY);
    var widths = names.map(function (n) {
      return LEGEND_SYMBOL_PX + measure.measureText(n.replace(/<[^>]+>/g, "")).width;
    });
    var total = widths.reduce(function (a, b) { return a + b; }, 0);
    if (total + (names.length - 1) * LEGEND_GAP_PX < room) return 1;
    var next = Math.max.apply(null, widths) + LEGEND_GAP_PX, x = 0, rows = 1;
    names.forEach(function (n, i) {
      if (i && next + x - LEGEND_GAP_PX >= room) { rows++; x = 0; }
      x += next;
    });
    return rows;
  }
  function settleLegend(layout, traces, width) {
    var legend = layout.legend;
    var x = layout.xaxis || {};
    width = layout.width || width;
    if (!legend || legend.orientation !== "h" || legend.yref === "container" || !width) return;
    if (!(typeof legend.y === "number" && legend.y < 0) || x.type === "category") return;
    layout.legend = Object.assign({}, legend, { yref: "container", y: 0, yanchor: "bottom" });
    layout.xaxis = Object.assign({}, x, { automargin: true });
    var names = legendEntries(layout, traces);
    if (!names || x.tickangle || x.side === "top") return; // Plotly makes the room itself
    var margin = Object.assign({ l: 80, r: 80, b: 80 }, layout.margin);
    var family = (legend.font && legend.font.family) || (layout.font && layout.font.family);
    var rows = names.length ? legendRows(names, Math.max(width - margin.l - margin.r, 80), family) : 0;
    var legendPx = rows ? rows * LEGEND_ROW_PX + LEGEND_PAD_PX : 0;
    var titled = x.title && (typeof x.title === "string" || x.title.text);
    var axisPx = titled ? AXIS_WORDS_PX : AXIS_WORDS_PX - TITLE_LINE_PX;
    margin.b = Math.max(margin.b, axisPx + legendPx);
    layout.margin = margin;
  }

  function rect(node) { return node && node.getBoundingClientRect(); }
  function overlap(a, b) {
    return a && b && a.width && b.width && a.left < b.right - 1 && b.left < a.right - 1 &&
      a.top < b.bottom - 1 && b.top < a.bottom - 1;
  }

  // Plotly places a legend below the chart in fractions of the plot's height, and grows the
  // bottom margin to fit it, so on a short or narrow chart it lands on the x axis's title; and
  // a note written at a level (a deadline, a timeout) can land on a bar's label, or on another
  // note. Measure what was drawn and move the legend down, and such a note up, until clear.
  function declutter(plot) {
    for (var round = 0; round < 3; round++) {
      var update = {}, size = plot._fullLayout && plot._fullLayout._size;
      if (!size || !size.h) return;
      var legend = rect(plot.querySelector(".legend .bg"));
      var title = rect(plot.querySelector(".g-xtitle text"));
      if (overlap(legend, title) && plot._fullLayout.legend.yref === "paper") {
        update["legend.y"] = plot._fullLayout.legend.y - (title.bottom + 6 - legend.top) / size.h;
      }
      var notes = plot.querySelectorAll(".annotation");
      var labels = Array.prototype.map.call(plot.querySelectorAll(".bartext"), rect);
      var placed = [];
      // A note is lifted clear of what it lands on, but never above the plot's top, where
      // the chart's title hangs (a phone's two-line Marathi title met a lifted note there):
      // then it goes below instead.
      // A note half over the plot's left or right edge (a window's note centred near the
      // start) is moved inside: past the edge it sat on the axis's tick labels.
      var plotBox = plot.getBoundingClientRect();
      var plotTop = plotBox.top + size.t, plotLeft = plotBox.left + size.l;
      var plotRight = plotLeft + size.w;
      notes.forEach(function (note) {
        var index = Number(note.getAttribute("data-index"));
        var b = rect(note.querySelector(".annotation-text-g text") || note);
        var push = 0;
        if (b && b.width && b.width < size.w) {
          if (b.left < plotLeft - 1 && b.right > plotLeft) push = plotLeft - b.left + 2;
          else if (b.right > plotRight + 1 && b.left < plotRight) push = plotRight - b.right - 2;
        }
        if (push) {
          var across = (plot._fullLayout.annotations[index].xshift || 0) + push;
          update["annotations[" + index + "].xshift"] = across;
          b = { left: b.left + push, right: b.right + push, top: b.top, bottom: b.bottom,
                width: b.width, height: b.height };
        }
        var lift = 0, drop = 0;
        labels.concat(placed).forEach(function (other) {
          if (overlap(b, other)) {
            lift = Math.max(lift, b.bottom - other.top + 2);
            drop = Math.max(drop, other.bottom - b.top + 2);
          }
        });
        var move = b && lift && b.top - lift < plotTop ? -drop : lift;
        if (move) {
          var shift = (plot._fullLayout.annotations[index].yshift || 0) + move;
          update["annotations[" + index + "].yshift"] = shift;
        }
        placed.push(b);
      });
      if (!Object.keys(update).length) return;
      window.Plotly.relayout(plot, update);
    }
  }

  var script = document.currentScript;
  var plotlyUrl = script && script.dataset.plotly;
  var loadingWords = (script && script.dataset.loading) || "";
  var loading = null;

  // plotly.js's bytes, fetched without running them (a page whose charts are all far down:
  // they come from the browser's cache when a chart nears the screen).
  var fetched = null;
  function fetchPlotly() {
    if (window.Plotly || fetched || loading || !plotlyUrl || !window.fetch) return;
    fetched = window.fetch(plotlyUrl, { credentials: "same-origin" })
      .then(function (answer) { return answer.arrayBuffer(); })
      .catch(function () {});
  }
  function withPlotly(then) {
    if (window.Plotly) { then(); return; }
    if (!plotlyUrl) return;
    if (!loading) {
      loading = [];
      var run = function () {
        var tag = document.createElement("script");
        tag.src = plotlyUrl;
        tag.onload = function () { var waiting = loading; loading = null; waiting.forEach(function (f) { f(); }); };
        document.head.appendChild(tag);
      };
      // Never the same bytes twice over a slow link: the fetch in flight ends first.
      if (fetched) fetched.then(run); else run();
    }
    loading.push(then);
  }
  // The chart's place, as tall as the chart will be, saying it is coming.
  function holdPlace(box, plot, fig) {
    if (plot.querySelector(".chart-wait") || box.classList.contains("drawn")) return;
    if (!plot.style.height) placeHeight(box, plot, fig);
    var note = document.createElement("p");
    note.className = "chart-wait";
    note.textContent = loadingWords;
    plot.appendChild(note);
  }
  // As tall as it will be drawn: with the lines its title wraps into at this width, in the
  // page's fonts (measured again once they have come).
  function placeHeight(box, plot, fig) {
    var layout = Object.assign({}, fig.layout);
    layout.title = layout.title && Object.assign({}, layout.title);
    var width = plot.clientWidth || box.clientWidth;
    fitTitle(layout, width, width >= PHONE_PX);
    plot.style.height = (layout.height || 450) + "px";
  }
  // "Before" lines: on a lab page that re-runs as its controls move (data-before-word on
  // the panel), each chart keeps the previous result's lines, faint and dotted, under the
  // new ones, labelled in the page's language; the bar's button clears them. Kept per
  // panel and chart position, so they survive the panel being swapped after Run.
  var shown = {};
  function memoryOf(box) {
    var panel = box.closest(".lab-panel[data-before-word]"), body = box.closest(".run-body");
    if (!panel || !body) return null;
    var at = Array.prototype.indexOf.call(body.querySelectorAll("figure.chart"), box);
    var key = panel.id + ":" + at;
    return shown[key] || (shown[key] = { now: null, before: null, word: panel.dataset.beforeWord });
  }
  function lines(data) {
    return data.filter(function (t) { return (t.type || "scatter") === "scatter"; });
  }
  // The previous result becomes "before" when the new one differs from it and has the
  // same kinds of lines (another chart in that place is not a "before").
  function remember(memory, data) {
    var text = JSON.stringify(data);
    if (memory.now && memory.now.text !== text) {
      var was = memory.now.data;
      memory.before = lines(was).length === lines(data).length && lines(data).length ? was : null;
    }
    memory.now = { text: text, data: data };
  }
  // The faint lines are one grey, dotted, and one legend entry ("before") says what they
  // are; each one's own name shows on hover. A legend of every line twice would crowd a
  // phone's chart onto its notes and axes.
  var FAINT = "#6e7781";
  function faint(memory) {
    if (!memory || !memory.before) return [];
    return lines(memory.before).map(function (t, i) {
      var name = (t.name || "") + " (" + memory.word + ")";
      return {
        type: "scatter", x: t.x, y: t.y, xaxis: t.xaxis, yaxis: t.yaxis,
        mode: t.mode || "lines", name: memory.word, showlegend: i === 0, legendgroup: "before",
        line: { color: FAINT, width: 1.5, dash: "dot", shape: t.line && t.line.shape },
        marker: { color: FAINT, size: 4 }, opacity: 0.6,
        hovertemplate: "%{x}, %{y}<extra>" + name.replace(/</g, "&lt;") + "</extra>",
      };
    });
  }
  function traces(memory, data) { return faint(memory).concat(data); }
  function showClear(box) {
    var panel = box.closest(".lab-panel");
    var button = panel && panel.querySelector("[data-clear-before]");
    if (!button) return;
    var any = Object.keys(shown).some(function (k) {
      return k.indexOf(panel.id + ":") === 0 && shown[k].before;
    });
    button.hidden = !any;
  }
  function figureOf(box, plot) {
    var fig = JSON.parse(box.querySelector("script[type='application/json']").textContent);
    var width = plot.clientWidth || box.clientWidth;
    var toolbar = width >= PHONE_PX;
    var extra = fitTitle(fig.layout, width, toolbar);
    if (extra && plot.style.height) plot.style.height = fig.layout.height + "px";
    fig.config = Object.assign({ displayModeBar: toolbar ? "hover" : false }, CONFIG);
    fig.width = width;
    return fig;
  }
  function drawOne(box) {
    if (box.classList.contains("drawn") || !box.isConnected) return;
    var data = box.querySelector("script[type='application/json']");
    var plot = box.querySelector(".plot");
    if (!data || !plot) return;
    var wait = plot.querySelector(".chart-wait");
    if (wait) wait.remove();
    var fig = figureOf(box, plot), memory = memoryOf(box);
    if (memory) remember(memory, fig.data);
    var all = traces(memory, fig.data);
    settleLegend(fig.layout, all, fig.width);
    window.Plotly.newPlot(plot, all, fig.layout, fig.config);
    declutter(plot);
    box.classList.add("drawn");
    showClear(box);
    // A page's own script (the class overlay's highlighting) hooks in here.
    box.dispatchEvent(new CustomEvent("chart:drawn", { bubbles: true }));
  }
  // A drawn chart whose JSON was replaced by a new result's (drafts.js): drawn again on
  // the same element, so it changes in place rather than flashing blank.
  function redraw(box, then) {
    box.classList.add("redrawing"); // until its words are measured and moved clear
    withPlotly(function () {
      var plot = box.querySelector(".plot");
      if (!plot || !box.isConnected) return then && then();
      var fig = figureOf(box, plot), memory = memoryOf(box);
      if (memory) remember(memory, fig.data);
      var all = traces(memory, fig.data);
      settleLegend(fig.layout, all, fig.width);
      // Measured once the new layout is drawn (react may finish a frame later).
      window.Plotly.react(plot, all, fig.layout, fig.config).then(function () {
        declutter(plot);
        box.classList.remove("redrawing");
        showClear(box);
        box.dispatchEvent(new CustomEvent("chart:drawn", { bubbles: true }));
        if (then) then();
      });
    });
  }
  // Several charts of one new result, one per task, the one the student is looking at
  // first: all in one task, the chart in view waited for every chart below it.
  function redrawAll(boxes) {
    var middle = window.innerHeight / 2;
    var queue = Array.prototype.slice.call(boxes).sort(function (a, b) {
      return away(a) - away(b);
    });
    function away(box) {
      var r = box.getBoundingClientRect();
      return r.bottom < 0 || r.top > window.innerHeight ? 1e6 + Math.abs(r.top - middle) : r.top;
    }
    (function next() {
      var box = queue.shift();
      if (box) redraw(box, function () { setTimeout(next, 0); });
    })();
  }
  function clearBefore(panel) {
    Object.keys(shown).forEach(function (k) {
      if (k.indexOf(panel.id + ":") === 0) shown[k].before = null;
    });
    redrawAll(panel.querySelectorAll(".results figure.chart.drawn"));
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-clear-before]");
    if (!button) return;
    clearBefore(button.closest(".lab-panel"));
    button.hidden = true;
  });
  // The charts a page opens with are drawn as they come within a screen's height of the
  // screen, and plotly.js is run for the first such chart: a phone's run page has its
  // charts two or more screens down, and drawing them all at load (plotly.js's start, then
  // a long task per chart) kept it from answering a tap for seconds. Until then a chart
  // keeps its place, at its height, saying it is coming, so nothing below moves when it is
  // drawn. Charts that come later (a run's answer after Run, a live reading every second, a
  // draft's) are what the student waits for: drawn at once, near or not.
  var NEAR = "100% 0px 100% 0px";
  var near = [], drawing = false;
  var watcher = window.IntersectionObserver ? new IntersectionObserver(function (seen) {
    var come = seen.filter(function (e) { return e.isIntersecting; }).map(function (e) { return e.target; });
    come.forEach(function (box) { watcher.unobserve(box); });
    drawSoon(come);
  }, { rootMargin: NEAR }) : null;
  function isNear(box) {
    var r = box.getBoundingClientRect(), h = window.innerHeight;
    return (r.width > 0 || r.height > 0) && r.bottom >= -h && r.top <= 2 * h;
  }
  function drawSoon(boxes) {
    if (!boxes.length) return;
    boxes.forEach(function (box) { if (near.indexOf(box) < 0) near.push(box); });
    var started = !!window.Plotly;
    withPlotly(function () {
      registerLocale();
      if (drawing) return;
      drawing = true;
      // One chart per task: the browser handles a tap or a key between two charts, and
      // between plotly.js's start (its own long task) and the first chart. With plotly.js
      // running already, the first is drawn at once (a live chart must not blink).
      var next = function () {
        var box = near.shift();
        if (box) drawOne(box);
        if (near.length) setTimeout(next, 0); else drawing = false;
      };
      if (started) next(); else setTimeout(next, 0);
    });
  }
  function drawCharts(root, asNeared) {
    // A draft's answer waiting to land (drafts.js) is drawn where it lands, not here.
    var boxes = Array.prototype.filter.call(
      root.querySelectorAll("figure.chart:not(.drawn)"),
      function (box) { return !box.closest(".incoming"); }
    );
    if (!boxes.length) return;
    boxes.forEach(function (box) {
      var data = box.querySelector("script[type='application/json']");
      var plot = box.querySelector(".plot");
      if (data && plot) holdPlace(box, plot, JSON.parse(data.textContent));
    });
    if (document.fonts) document.fonts.ready.then(function () {
      boxes.forEach(function (box) {
        var data = box.querySelector("script[type='application/json']");
        var plot = box.querySelector(".plot");
        if (data && plot && !box.classList.contains("drawn")) {
          placeHeight(box, plot, JSON.parse(data.textContent));
        }
      });
    });
    var now = boxes.filter(function (box) { return !asNeared || !watcher || isNear(box); });
    boxes.forEach(function (box) { if (now.indexOf(box) < 0) watcher.observe(box); });
    if (now.length) drawSoon(now); else fetchPlotly();
  }
  // Everything on paper: a page printed draws the charts not yet reached.
  function drawAll() {
    if (!window.Plotly) return;
    document.querySelectorAll("figure.chart:not(.drawn)").forEach(function (box) {
      if (box.closest(".incoming")) return;
      if (watcher) watcher.unobserve(box);
      drawOne(box);
    });
  }
  // Once a page that leads to a chart has loaded (everything it shows is there, so the
  // link is idle), fetch plotly.js: a student pressing Run at once waits for the rest only.
  function fetchSoon() {
    if (window.Plotly || !document.querySelector(".lab-panel, [data-plotly-soon]")) return;
    setTimeout(function () { withPlotly(function () {}); }, 0);
  }
  function purgeCharts(root) {
    if (!root || !root.querySelectorAll) return;
    if (watcher) root.querySelectorAll("figure.chart:not(.drawn)").forEach(function (box) { watcher.unobserve(box); });
    if (!window.Plotly) return;
    root.querySelectorAll("figure.chart.drawn .plot").forEach(function (plot) {
      window.Plotly.purge(plot);
    });
  }
  // After Run (or Run before/after) the form is swapped for a new one: focus goes to the
  // first field the server refused, else to the run, so a keyboard or screen-reader user
  // lands on what happened (rather than on <body>). htmx keeps that focus by the run's id
  // while it polls.
  function focusResult(elt) {
    // An outerHTML swap leaves `elt` detached: find its replacement by id.
    var panel = elt && elt.id ? document.getElementById(elt.id) : null;
    if (!panel || !panel.matches(".lab-panel")) return;
    var target = panel.querySelector(".has-error input, .has-error select, .has-error textarea") ||
      panel.querySelector(".run-body");
    if (target) target.focus();
  }
  // A chart is drawn to the screen's width; printed, the page is narrower (and back again).
  function fitToPage() {
    if (!window.Plotly) return;
    drawAll();
    document.querySelectorAll("figure.chart.drawn .plot").forEach(function (plot) {
      window.Plotly.Plots.resize(plot);
    });
  }
  window.matchMedia("print").addEventListener("change", fitToPage);
  window.addEventListener("beforeprint", fitToPage);
  window.addEventListener("afterprint", fitToPage);
  window.labCharts = { draw: drawCharts, redraw: redraw, redrawAll: redrawAll, purge: purgeCharts };
  document.addEventListener("DOMContentLoaded", function () { drawCharts(document, true); });
  window.addEventListener("load", fetchSoon);
  document.addEventListener("htmx:beforeSwap", function (event) { purgeCharts(event.detail.target); });
  document.addEventListener("htmx:afterSettle", function (event) {
    drawCharts(event.detail.elt.parentNode || document);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.requestConfig && event.detail.requestConfig.verb === "post") {
      focusResult(event.detail.elt);
    }
  });
})();
