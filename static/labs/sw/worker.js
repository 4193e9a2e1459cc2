// The service worker's body, run by /sw.js (ops/offline.py) after Workbox's own modules
// (static/vendor/workbox-*/) and `self.SITE_OFFLINE`, the site's list of what to keep.
//
// - Precache: the page shell (the CSS, htmx, the site's scripts and modules, the small
//   Marathi font, the offline page), at the URLs the site serves them from, hashed in
//   production: a revisit opens without fetching them, and a new version of the site is a
//   new list, so the old copies go.
// - Other static files (plotly.js, the fonts, a lesson's images) are kept the first time the
//   page fetches them: cache first in production, where every name is hashed or versioned;
//   in development (DEBUG, unhashed names) served from the copy while a fresh one is fetched.
// - Pages: the network first, so a student sees today's runs; with no link, the copy this
//   phone kept of that page, or the offline page. Downloads and the operations pages are
//   never kept; the phone keeps 40 pages at most, for a week.
/* global workbox */
(function () {
  "use strict";
  var site = self.SITE_OFFLINE;
  var PAGES = "qrl-pages";
  var STATIC = "qrl-static";

  workbox.core.setCacheNameDetails({ prefix: "qrl" });
  self.skipWaiting();
  workbox.core.clientsClaim();

  workbox.precaching.cleanupOutdatedCaches();
  workbox.precaching.precacheAndRoute(site.precache, { ignoreURLParametersMatching: [/.*/] });

  var Expire = workbox.expiration.ExpirationPlugin;
  workbox.routing.registerRoute(
    function (options) {
      return options.url.origin === self.location.origin &&
        options.url.pathname.indexOf(site.static) === 0;
    },
    site.debug
      ? new workbox.strategies.StaleWhileRevalidate({
        cacheName: STATIC, plugins: [new Expire({ maxEntries: 80 })],
      })
      : new workbox.strategies.CacheFirst({
        cacheName: STATIC, plugins: [new Expire({ maxEntries: 80, purgeOnQuotaError: true })],
      })
  );

  var NEVER = new RegExp(site.never);
  var pages = new workbox.strategies.NetworkFirst({
    cacheName: PAGES,
    // A page varies on HX-Request and the language: the phone keeps the one it was shown.
    matchOptions: { ignoreVary: true },
    plugins: [new Expire({ maxEntries: 40, maxAgeSeconds: 7 * 24 * 3600, purgeOnQuotaError: true })],
  });
  workbox.routing.registerRoute(
    function (options) {
      var request = options.request;
      var page = request.mode === "navigate" || request.headers.get("X-Page-Copy") === "1";
      return page && options.url.origin === self.location.origin && !NEVER.test(options.url.pathname);
    },
    pages
  );

  // A page never opened on this phone, with no link: the offline page.
  workbox.routing.setCatchHandler(function (options) {
    if (options.request.mode === "navigate") {
      return workbox.precaching.matchPrecache(site.offline).then(function (response) {
        return response || Response.error();
      });
    }
    return Promise.resolve(Response.error());
  });
})();
