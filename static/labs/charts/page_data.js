// What the page's charts.js tag says: plotly.js's URL (data-plotly) and the words a chart's
// place shows until it is drawn (data-loading, in the page's language). Read from the tag
// by its attribute: a module script has no document.currentScript.
const tag = document.querySelector("script[data-plotly]");
export const plotlyUrl = tag && tag.dataset.plotly;
export const loadingWords = (tag && tag.dataset.loading) || "";
