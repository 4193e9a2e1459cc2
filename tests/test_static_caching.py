"""Static files as production serves them: hashed names, cached by browsers for a year
(`immutable`, so a second page fetches no script again), sent compressed (Brotli where the
browser takes it, else gzip) and answered 304 when the browser asks again with their ETag.
And as the dev server (`./dev develop`: DEBUG, unhashed names) serves them: the vendored,
versioned files cached for a year too, our own revalidated with a 304.

The timing and the page weights themselves are measured by `bench/page_weight.py` and
`bench/school_link.py`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# One process runs this module (pytest-xdist): its module-scoped set-up is made once.
pytestmark = pytest.mark.xdist_group("static-caching")
KEY = "s" * 30 + "Zq7-Pw2_xR9mT4vB8nL3cJ6yH1sD5fG0"
FONT = "vendor/noto-sans-devanagari-5.3.0/noto-sans-devanagari-devanagari-400-normal.woff2"
ASSETS = [
    "vendor/htmx-2.0.11.min.js",
    "vendor/plotly-lab-4.1.1-3.min.js",
    "labs/charts.js",
    "labs/forms.js",
    "labs/site.css",
    FONT,
]
BROWSER = "gzip, deflate, br, zstd"  # what Chromium sends
FETCH = f"""
import json, re, django
django.setup()
from django.conf import settings
from django.core.management import call_command
if not settings.DEBUG:
    call_command("collectstatic", "--noinput", verbosity=0)
from django.templatetags.static import static
from django.test import Client
client = Client()
out = {{}}
for name in {ASSETS!r}:
    url = static(name)
    sizes = {{}}
    for accept in ("gzip", {BROWSER!r}):
        response = client.get(url, HTTP_ACCEPT_ENCODING=accept)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        sizes[accept] = len(body)
    again = client.get(url, HTTP_ACCEPT_ENCODING={BROWSER!r},
                       HTTP_IF_NONE_MATCH=response.get("ETag", "none"))
    out[name] = {{
        "url": url, "status": response.status_code,
        "cache": response.get("Cache-Control", ""),
        "gzip": client.get(url, HTTP_ACCEPT_ENCODING="gzip").get("Content-Encoding", ""),
        "browser": response.get("Content-Encoding", ""), "sizes": sizes,
        "again": again.status_code,
    }}
charts = client.get(static("labs/charts.js"))
text = (b"".join(charts.streaming_content) if charts.streaming else charts.content).decode()
out["charts.js imports"] = re.findall(r"(\\./charts/[\\w.]+\\.js)", text)
print(json.dumps(out))
"""


def serve(tmp_path_factory, debug: bool) -> dict[str, dict]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY_FILE", "DATABASE_URL"}}
    env |= {
        "DEBUG": "true" if debug else "false",
        "SECRET_KEY": KEY,
        "VAR_DIR": str(tmp_path_factory.mktemp("static")),
        "DJANGO_SETTINGS_MODULE": "school.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", FETCH],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict[str, dict]:
    return serve(tmp_path_factory, debug=False)


@pytest.fixture(scope="module")
def served_by_dev(tmp_path_factory) -> dict[str, dict]:
    return serve(tmp_path_factory, debug=True)


def cached_for_a_year(cache_control: str) -> bool:
    max_age = re.search(r"max-age=(\d+)", cache_control)
    return "immutable" in cache_control and max_age is not None and int(max_age[1]) >= 365 * 86400


@pytest.mark.parametrize("name", ASSETS)
def test_static_files_have_hashed_names_and_are_cached_for_good(served, name):
    got = served[name]
    stem, suffix = name.rsplit(".", 1)
    assert re.fullmatch(rf"/static/{re.escape(stem)}\.[0-9a-f]{{12}}\.{suffix}", got["url"])
    assert got["status"] == 200
    assert cached_for_a_year(got["cache"]), got["cache"]


@pytest.mark.parametrize("name", [n for n in ASSETS if n != FONT])  # woff2 is compressed
def test_static_files_go_out_compressed_brotli_where_the_browser_takes_it(served, name):
    got = served[name]
    assert got["gzip"] == "gzip"
    assert got["browser"] == "br"
    assert got["sizes"][BROWSER] < got["sizes"]["gzip"]


@pytest.mark.parametrize("name", ASSETS)
def test_a_second_ask_with_the_etag_gets_a_304(served, served_by_dev, name):
    assert served[name]["again"] == 304
    assert served_by_dev[name]["again"] == 304


@pytest.mark.parametrize("name", [n for n in ASSETS if n.startswith("vendor/")])
def test_the_dev_server_keeps_vendored_versioned_files_for_a_year(served_by_dev, name):
    got = served_by_dev[name]
    assert got["url"] == f"/static/{name}"  # DEBUG: unhashed
    assert got["status"] == 200 and cached_for_a_year(got["cache"]), got["cache"]


def test_the_dev_server_revalidates_our_own_files(served_by_dev):
    got = served_by_dev["labs/site.css"]
    assert "max-age=0" in got["cache"] and "immutable" not in got["cache"]


def test_the_charts_module_imports_its_parts_by_their_hashed_names(served):
    """An ES module's imports are rewritten by collectstatic too (school/static_storage.py):
    a hashed charts.js importing `./charts/lazy.js` would load a part cached for minutes."""
    imports = served["charts.js imports"]
    assert len(imports) == 14, imports
    assert all(re.fullmatch(r"\./charts/\w+\.[0-9a-f]{12}\.js", url) for url in imports), imports
