"""What a page costs a student's browser, and what a finished run's poll costs the server.

Runs the site as production does (DEBUG off, `collectstatic` into WhiteNoise's hashed,
pre-compressed files, the shared Redis cache) through Django's test client, in a
throwaway directory and database, and fetches pages as a browser with an empty cache
would: the HTML, then every stylesheet, script, image and font it would ask for
(plotly.js only where `charts.js` would fetch it: a page with a chart; the Devanagari font
only where the page has Devanagari text besides the language switch, whose "मराठी" comes
from a 1 KB subset, as the browser picks faces by their `unicode-range`). Bytes are what
goes over the wire (Brotli where the site has it, as Chromium asks for it): compressed
bodies plus headers. Then:

- **lesson page**: a unit page, first visit (goal < 150 KB);
- **lab page, first load**: a lab page, its run's finished fragment and what the chart
  needs (plotly.js) (goal < 1.5 MB);
- **second page**: another lab page after those, with the browser's cache: the scripts
  fetched again (goal 0 B: hashed files are cached for a year, `immutable`);
- **finished-run poll**: server time of a finished capstone run's htmx poll, first
  (rendered) and then from the shared cache (goal < 20 ms).

    .venv/bin/python bench/page_weight.py
    .venv/bin/python bench/page_weight.py --database-url postgres://postgres@127.0.0.1:5432/bench_pages
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import secrets
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSET = re.compile(
    r'<(?:link[^>]+rel="(?:stylesheet|icon)"[^>]*href|script[^>]+src|img[^>]+src)="([^"]+)"'
)
PLOTLY = re.compile(r'data-plotly="([^"]+)"')
CSS_URL = re.compile(r'url\("?([^")]+)"?\)')
FONT_FACE = re.compile(r"@font-face\s*\{([^}]*)\}")
SWITCH = re.compile(r"<form[^>]*lang-switch.*?</form>", re.S)
ACCEPT = "gzip, deflate, br"
DEVANAGARI = re.compile("[\u0900-\u097f]")
YEAR_S = 365 * 24 * 3600


def wire_bytes(response) -> int:
    """Body as sent (compressed when it was) plus a status line and headers."""
    body = b"".join(response.streaming_content) if response.streaming else response.content
    headers = sum(len(k) + len(v) + 4 for k, v in response.items()) + 17
    return len(body) + headers


def cached_for_good(response) -> bool:
    """A browser never asks again for a file sent with a long max-age and `immutable`."""
    control = response.get("Cache-Control", "")
    match = re.search(r"max-age=(\d+)", control)
    return "immutable" in control and match is not None and int(match[1]) >= YEAR_S


class Browser:
    """One student's browser: its cookies (the client's) and its HTTP cache."""

    def __init__(self, client) -> None:
        self.client = client
        self.cache: dict[str, bool] = {}  # url -> cached for good

    def get(self, url: str, **headers):
        return self.client.get(url, HTTP_ACCEPT_ENCODING=ACCEPT, **headers)

    def page(self, url: str, *, htmx: bool = False) -> dict[str, int]:
        """Fetch a page (or fragment) and what it pulls in; bytes by kind, cache hits skipped."""
        response = self.get(url, **({"HTTP_HX_REQUEST": "true"} if htmx else {}))
        assert response.status_code in (200, 286), (url, response.status_code)
        html = response.content
        if response.get("Content-Encoding") == "gzip":
            import gzip

            html = gzip.decompress(html)
        elif response.get("Content-Encoding") == "br":
            import brotli  # type: ignore[import-untyped]

            html = brotli.decompress(html)
        text = html.decode()
        weights = {"html": wire_bytes(response), "css": 0, "js": 0, "font": 0, "img": 0}
        refetched_js = 0
        assets = ASSET.findall(text)
        if 'figure class="chart"' in text:
            assets += PLOTLY.findall(text) or self._plotly_url()
        for asset in assets:
            kind, size, again = self._asset(asset)
            weights[kind] += size
            if kind == "js" and again:
                refetched_js += size
            if kind == "css" and size:
                css = self._text(asset)
                beyond_switch = DEVANAGARI.search(SWITCH.sub("", text))
                for face in FONT_FACE.findall(css):
                    font = CSS_URL.search(face)
                    switch_only = "Marathi word" in face
                    if font and (beyond_switch or (switch_only and SWITCH.search(text))):
                        ref = str(Path(asset).parent / font.group(1))
                        _k, fsize, _again = self._asset(os.path.normpath(ref))
                        weights["font"] += fsize
        weights["js_refetched"] = refetched_js
        return weights

    def _plotly_url(self) -> list[str]:
        return getattr(self, "plotly_url", [])

    def _text(self, url: str) -> str:
        response = self.client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return body.decode()

    def _asset(self, url: str) -> tuple[str, int, bool]:
        """(kind, bytes over the wire, was it in the cache already but fetched again)."""
        kind = (
            "js" if url.endswith(".js")
            else "css" if url.endswith(".css")
            else "font" if url.endswith((".woff2", ".woff"))
            else "img"
        )  # fmt: skip
        if self.cache.get(url):
            return kind, 0, False
        again = url in self.cache
        response = self.get(url)
        assert response.status_code == 200, (url, response.status_code)
        self.cache[url] = cached_for_good(response)
        return kind, wire_bytes(response), again


def kb(n: int) -> str:
    return f"{n / 1024:,.1f} KB"


def setup_site(database_url: str | None) -> Path:
    var = Path(tempfile.mkdtemp(prefix="page-weight-"))
    os.environ.update(
        {
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "VAR_DIR": str(var),
            "ALLOWED_HOSTS": "testserver",
            "SECURE_COOKIES": "false",
            "DATABASE_URL": database_url or f"sqlite:///{var / 'db.sqlite3'}",
        }
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("collectstatic", "--noinput", verbosity=0)
    call_command("migrate", verbosity=0)
    return var


def finished_capstone_run(owner):
    """A finished trapped-service run on its defaults, computed here (no worker)."""
    from labs.catalogue.entries import get_lab
    from labs.interface.progress import SilentProgress
    from labs.runs.execution import run_lab
    from labs.runs.models import Run

    lab = get_lab("trapped-service")
    params = lab.defaults()
    result = run_lab(lab, params, lab.default_seed, SilentProgress())
    return Run.objects.create(
        owner=owner,
        lab=lab.slug,
        params=params,
        seed=lab.default_seed,
        status="succeeded",
        result=result,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: SQLite in a throwaway directory")
    parser.add_argument("--polls", type=int, default=200)
    args = parser.parse_args()
    setup_site(args.database_url)

    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    from labs.catalogue.units import UNITS

    user, _ = get_user_model().objects.get_or_create(username="page-weight-student")
    client = Client()
    client.force_login(user)
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()}: {os.cpu_count()} cores, "
        f"DEBUG off, WhiteNoise CompressedManifestStaticFilesStorage, {ACCEPT}, logged in"
    )

    run = finished_capstone_run(user)
    run_url = reverse("run-detail", args=[run.pk])

    rows = []
    lesson = Browser(client).page(reverse("unit-detail", args=[UNITS[0].slug]))
    rows.append(("lesson page (first visit)", lesson, 150 * 1024))

    browser = Browser(client)
    lab_page = browser.page(reverse("lab-detail", args=["trapped-service"]))
    browser.plotly_url = PLOTLY.findall(  # type: ignore[attr-defined]
        client.get(reverse("lab-detail", args=["trapped-service"])).content.decode()
    )
    fragment = browser.page(run_url, htmx=True)
    first = {k: lab_page[k] + fragment[k] for k in lab_page}
    rows.append(("lab page + its run's chart (first load)", first, 1536 * 1024))
    second = browser.page(reverse("lab-detail", args=["drain"]))
    second_run = browser.page(reverse("run-detail", args=[run.pk]))
    both = {k: second[k] + second_run[k] for k in second}

    print("\n| page | HTML | CSS | JS | fonts | images | total | goal |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for label, w, goal in rows:
        total = sum(v for k, v in w.items() if k != "js_refetched")
        verdict = "met" if total < goal else "**not met**"
        print(
            f"| {label} | {kb(w['html'])} | {kb(w['css'])} | {kb(w['js'])} | {kb(w['font'])} "
            f"| {kb(w['img'])} | **{kb(total)}** | < {kb(goal)}: {verdict} |"
        )
    total = sum(v for k, v in both.items() if k != "js_refetched")
    print(
        f"| then another lab page and a run page | {kb(both['html'])} | {kb(both['css'])} "
        f"| {kb(both['js'])} | {kb(both['font'])} | {kb(both['img'])} | {kb(total)} "
        f"| JS fetched again: **{both['js_refetched']} B** (goal 0 B) |"
    )

    # Server time of a finished run's poll: the first renders it, the rest read the cache.
    from labs.web import fragment_cache

    for language in ("en", "mr"):
        from django.core.cache import cache

        cache.delete(fragment_cache.key(run.pk, language))
    client.cookies["django_language"] = "en"
    timings, cpu = [], []
    for _ in range(args.polls + 1):
        began, began_cpu = time.perf_counter(), time.process_time()
        response = client.get(run_url, HTTP_HX_REQUEST="true", HTTP_ACCEPT_ENCODING="gzip")
        timings.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
        assert response.status_code == 286
    cold, warm = timings[0], sorted(timings[1:])
    p95 = statistics.quantiles(warm, n=100, method="inclusive")[94]
    print(
        f"\nfinished-run poll (trapped-service defaults, {len(response.content):,} B gzipped), "
        f"server time: first {cold:.1f} ms (renders; CPU {cpu[0]:.1f} ms), then "
        f"p50 {statistics.median(warm):.1f} ms, p95 {p95:.1f} ms (CPU p50 "
        f"{statistics.median(cpu[1:]):.1f} ms) over {len(warm)} polls; goal < 20 ms: "
        f"{'met' if p95 < 20 else 'not met'} at p95, "
        f"{'met' if statistics.median(warm) < 20 else 'not met'} at p50. "
        f"Load average {os.getloadavg()[0]:.1f}."
    )


if __name__ == "__main__":
    main()
