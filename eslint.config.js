// ESLint for the site's hand-written JavaScript (`./dev lint`, `./dev test`): the
// recommended rules, each file with the globals of where it runs.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Not ours: minified vendored builds (rebuilt by vendor-src/, checked by their own tests).
  // var/ holds collectstatic's copies (hashed names) and the site's run-time files.
  { ignores: ["static/vendor/**", "tests/browser/vendor/**", "node_modules/**", ".venv/**", "var/**", "staticfiles/**"] },
  js.configs.recommended,
  {
    // Classic scripts, each wrapped in its own function; plotly.js sets window.Plotly.
    files: ["static/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser } },
  },
  {
    // charts.js and its parts are ES modules (<script type="module">), imported by the tests.
    files: ["static/labs/charts.js", "static/labs/charts/**/*.js"],
    languageOptions: { sourceType: "module" },
  },
  {
    // The outbox (outbox.js, outbox/): ES modules too, imported by the tests.
    files: ["static/labs/outbox.js", "static/labs/outbox/**/*.js"],
    languageOptions: { sourceType: "module" },
  },
  {
    // The service worker's body: a worker's globals, Workbox's `workbox` (ops/offline.py).
    files: ["static/labs/sw/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker } },
  },
  {
    // The plotly.js build's scripts, run by node (vendor-src/plotly/build.sh).
    files: ["vendor-src/**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { ...globals.node } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js", "vitest.config.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
];
