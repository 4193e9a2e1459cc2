// The charts' Plotly config, and the toolbar's tooltips in the page's language through
// plotly.js's own locales (the JSON in #plotly-locale, written by templatetags/plotly_words).

// Only the buttons whose words the site gives in both languages (templatetags/plotly_words):
// no "Share chart..." (it uploads to an outside site), no JSON download, no lasso.
export const CONFIG = {
  responsive: true,
  displaylogo: false,
  showSendToCloud: false,
  modeBarButtons: [["toImage", "zoom2d", "pan2d", "resetScale2d"]],
};

const LOCALE = document.getElementById("plotly-locale");

// Register the page's locale with plotly.js once it runs, and name it in CONFIG.
export function registerLocale() {
  if (!LOCALE || CONFIG.locale) return;
  const locale = JSON.parse(LOCALE.textContent);
  window.Plotly.register({ moduleType: "locale", name: locale.name, dictionary: locale.dictionary });
  CONFIG.locale = locale.name;
}
