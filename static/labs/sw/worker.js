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
    plugins: [
      // Kept by the page's URL alone, whichever request asked for it: a navigation, or the
      // page's own request for a copy (outbox/service_worker.js).
      { cacheKeyWillBeUsed: function (options) { return Promise.resolve(options.request.url); } },
      // No age limit: a copy is better than none with no link; log out forgets them all.
      new Expire({ maxEntries: 40, purgeOnQuotaError: true }),
    ],
  });
  // The copy of a page, by its URL. Looked up again after 50, 100 and 200 ms when missing:
  // in Chromium, a lookup just after an offline navigation failed often missed a copy that
  // a moment later was found (tests/browser/test_offline.py, 2 runs in 4 without this; the
  // cause is not pinned down). At worst 350 ms more before the offline page.
  function keptCopy(request, waits) {
    waits = waits === undefined ? [50, 100, 200] : waits;
    return caches.open(PAGES)
      .then(function (cache) { return cache.match(request.url, { ignoreVary: true }); })
      .then(function (kept) {
        if (kept || !waits.length) return kept;
        return new Promise(function (resolve) { setTimeout(resolve, waits[0]); })
          .then(function () { return keptCopy(request, waits.slice(1)); });
      });
  }
  workbox.routing.registerRoute(
    function (options) {
      var request = options.request;
      var wanted = request.mode === "navigate" || request.headers.get("X-Page-Copy") === "1";
      return wanted && options.url.origin === self.location.origin && !NEVER.test(options.url.pathname);
    },
    pages
  );

  // With no link: this phone's copy of the page (looked up by its URL alone, whatever the
  // navigation's request carried), else the offline page.
  workbox.routing.setCatchHandler(function (options) {
    if (options.request.mode !== "navigate") return Promise.resolve(Response.error());
    return keptCopy(options.request)
      .then(function (kept) { return kept || workbox.precaching.matchPrecache(site.offline); })
      .then(function (response) {
        return response || Response.error();
      });
  });
})();
