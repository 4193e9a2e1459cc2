// The page's side of the service worker (/sw.js, ops/offline.py): register it for the whole
// site, keep a copy of the page it first opened on, and forget the pages on log out.
//
// A service worker needs https:// or localhost: on a school's plain-http server it is not
// there, and the outbox still keeps and sends (it needs only the page and localStorage).

// Where Workbox's runtime caches the pages (static/labs/sw/worker.js).
export const PAGES = "qrl-pages";

export function registerWorker(nav = globalThis.navigator, page = globalThis.location) {
  if (!nav || !("serviceWorker" in nav)) return;
  const firstVisit = !nav.serviceWorker.controller;
  nav.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
  if (!firstVisit) return;
  // This page was loaded before the worker ran, so the worker has no copy of it: ask
  // Workbox's router (its CACHE_URLS message) to fetch and keep one.
  nav.serviceWorker.ready.then((registration) => {
    if (!registration.active) return;
    registration.active.postMessage({
      type: "CACHE_URLS",
      payload: { urlsToCache: [[page.href, { headers: { "X-Page-Copy": "1" } }]] },
    });
  });
}

/** Forget the pages kept on this phone: the next person to use it must not see them. */
export function forgetPages() {
  if (globalThis.caches) globalThis.caches.delete(PAGES).catch(() => {});
}
