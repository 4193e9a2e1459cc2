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

// The locale module plotly.js takes for a page: the toolbar's words from #plotly-locale's
// JSON, named by the page's own language (<html lang>, "mr"); none on an English page,
// where plotly.js's own English is the site's.
export function localeModule(json, lang) {
  if (!json) return null;
  const words = JSON.parse(json);
  const name = String(lang || words.name || "").toLowerCase();
  if (!name || name === "en" || name.indexOf("en-") === 0) return null;
  return { moduleType: "locale", name: name, dictionary: words.dictionary };
}

// Register the page's locale with plotly.js once it runs, and name it in CONFIG, so every
// chart drawn after (figure.js copies CONFIG at each draw) says its toolbar in that language.
export function registerLocale(plotly, doc) {
  plotly = plotly || window.Plotly;
  doc = doc || document;
  if (CONFIG.locale) return;
  const tag = doc.getElementById("plotly-locale");
  const locale = localeModule(tag && tag.textContent, doc.documentElement.lang);
  if (!locale) return;
  plotly.register(locale);
  CONFIG.locale = locale.name;
}
