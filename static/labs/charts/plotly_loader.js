// plotly.js (the site's own build: scatter, bar, box and heatmap, all the charts draw) is
// fetched the first time a page has a chart to draw, or earlier, in idle time, once a page
// that leads to a chart has loaded, so that Run does not wait for it; never on other pages.
// The browser keeps it. A page opening with its charts far below the screen fetches it at
// once but runs it only when a chart comes near.
import { plotlyUrl } from "./page_data.js";

let loading = null;
// plotly.js's bytes, fetched without running them (a page whose charts are all far down:
// they come from the browser's cache when a chart nears the screen).
let fetched = null;

export function fetchPlotly() {
  if (window.Plotly || fetched || loading || !plotlyUrl || !window.fetch) return;
  fetched = window.fetch(plotlyUrl, { credentials: "same-origin" })
    .then(function (answer) { return answer.arrayBuffer(); })
    .catch(function () {});
}

// Call `then` once plotly.js runs (at once if it does already).
export function withPlotly(then) {
  if (window.Plotly) { then(); return; }
  if (!plotlyUrl) return;
  if (!loading) {
    loading = [];
    const run = function () {
      const tag = document.createElement("script");
      tag.src = plotlyUrl;
      tag.onload = function () {
        const waiting = loading;
        loading = null;
        waiting.forEach(function (f) { f(); });
      };
      document.head.appendChild(tag);
    };
    // Never the same bytes twice over a slow link: the fetch in flight ends first.
    if (fetched) fetched.then(run); else run();
  }
  loading.push(then);
}

// Once a page that leads to a chart (a lab's form, a unit's page: [data-plotly-soon]) has
// loaded (everything it shows is there, so the link is idle), fetch plotly.js: a student
// pressing Run at once waits for the rest only.
export function fetchSoon() {
  if (window.Plotly || !document.querySelector(".lab-panel, [data-plotly-soon]")) return;
  setTimeout(function () { withPlotly(function () {}); }, 0);
}
