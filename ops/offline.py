"""The service worker at the site's root (/sw.js) and the page it shows with no link (/offline/).

The worker is Workbox's (vendored under `static/vendor/workbox-<version>/`, copied by
`vendor-src/workbox/fetch.sh`; nothing from a CDN) run by our own body
(`static/labs/sw/worker.js`). It is served from here rather than from /static/ because a
worker controls only the pages under its own path: at /sw.js it controls every page.

Its precache list is made here, per request, from the static storage the site serves with:
in production (ManifestStaticFilesStorage) every URL is the hashed name collectstatic wrote,
so the list always names what WhiteNoise serves, and a file that changes changes its URL;
in development (DEBUG, plain names) each entry carries a hash of the file as its revision.
Workbox's own build tool (workbox-build) makes the same list from a folder of files, but it
would need node on the school's server at collectstatic time, and it would have to be
taught which of collectstatic's files (originals, hashed copies, .br and .gz) are served.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_GET

WORKBOX = "vendor/workbox-7.4.1"
# Loaded by /sw.js in this order: each Workbox module reads the ones before it.
WORKER_SCRIPTS = [
    *(f"{WORKBOX}/workbox-{name}.prod.js" for name in ("core", "routing", "strategies")),
    *(f"{WORKBOX}/workbox-{name}.prod.js" for name in ("precaching", "expiration")),
    "labs/sw/worker.js",
]
# The page shell: what every page loads, small. plotly.js (279 KB over the wire) and the
# Devanagari fonts are kept when a page first fetches them, not on the worker's install,
# which on a 400 kbit/s link would compete with the page's own first chart.
SHELL = [
    "labs/site.css",
    "labs/favicon.svg",
    "vendor/htmx-2.0.11.min.js",
    "vendor/noto-sans-devanagari-5.3.0/noto-sans-devanagari-marathi-word-400.woff2",
]
# The site's own scripts and their ES modules: every .js under static/labs/ but the worker's.
SCRIPTS_DIR = "labs"
# Pages the phone never keeps: downloads (a run's CSV, a report's Markdown, a class's zip),
# the admin and the operations pages, and the log-in and log-out pages.
NEVER_KEPT = r"\.(csv|json|md|zip|png|txt)$|^/(admin|ops|metrics|healthz|accounts/log)"


def own_scripts() -> list[str]:
    root = Path(settings.BASE_DIR) / "static"
    names = sorted(path.relative_to(root).as_posix() for path in (root / SCRIPTS_DIR).rglob("*.js"))
    return [name for name in names if not name.startswith("labs/sw/")]


def hashed_names() -> bool:
    """Whether the static storage serves hashed names (production's manifest storage)."""
    return isinstance(staticfiles_storage, ManifestFilesMixin)


def revision(name: str) -> str | None:
    """None where the URL is hashed (production); else a hash of the file (development)."""
    if hashed_names():
        return None
    found = finders.find(name)
    if not found:
        return None
    return hashlib.sha256(Path(str(found)).read_bytes()).hexdigest()[:16]


def offline_revision() -> str:
    template = Path(settings.BASE_DIR) / "templates" / "ops" / "offline.html"
    return hashlib.sha256(template.read_bytes()).hexdigest()[:16]


def precache() -> list[dict[str, str | None]]:
    entries = [{"url": static(name), "revision": revision(name)} for name in SHELL + own_scripts()]
    entries.append({"url": reverse("offline"), "revision": offline_revision()})
    return entries


@functools.lru_cache(maxsize=1)
def _production_worker() -> str:
    return _worker()


def _worker() -> str:
    config = {
        "precache": precache(),
        "offline": reverse("offline"),
        "static": "/" + settings.STATIC_URL.lstrip("/"),
        # Plain names (DEBUG) change content under one URL: never served from the copy alone.
        "debug": not hashed_names(),
        "never": NEVER_KEPT,
    }
    scripts = [static(name) for name in WORKER_SCRIPTS]
    return (
        "// The site's service worker (ops/offline.py): the list of what to keep, then\n"
        "// Workbox's modules and the site's body (static/labs/sw/worker.js), all from this site.\n"
        f"self.SITE_OFFLINE = {json.dumps(config, separators=(',', ':'))};\n"
        f"importScripts({', '.join(json.dumps(url) for url in scripts)});\n"
    )


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The worker's script: the site's list and Workbox, for every page of the site."""
    body = _production_worker() if hashed_names() else _worker()
    response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    # Asked again on every check: a new list (a new version of the site) is a new worker.
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """What a page never opened on this phone shows with no link, in both languages."""
    return render(request, "ops/offline.html")
