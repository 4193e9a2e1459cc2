"""Static files as production serves them: hashed names, cached by browsers for a year
(`immutable`, so a second page fetches no script again), and sent compressed.

The timing and the page weights themselves are measured by `bench/page_weight.py`.
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
KEY = "s" * 30 + "Zq7-Pw2_xR9mT4vB8nL3cJ6yH1sD5fG0"
ASSETS = [
    "vendor/htmx-2.0.11.min.js",
    "vendor/plotly-cartesian-4.1.1.min.js",
    "labs/charts.js",
    "labs/forms.js",
    "labs/site.css",
]
FETCH = f"""
import json, django
django.setup()
from django.core.management import call_command
call_command("collectstatic", "--noinput", verbosity=0)
from django.templatetags.static import static
from django.test import Client
client = Client()
out = {{}}
for name in {ASSETS!r}:
    url = static(name)
    response = client.get(url, HTTP_ACCEPT_ENCODING="gzip")
    out[name] = [url, response.status_code, response.get("Cache-Control", ""),
                 response.get("Content-Encoding", "")]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> dict[str, list]:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY_FILE", "DATABASE_URL"}}
    env |= {
        "DEBUG": "false",
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


@pytest.mark.parametrize("name", ASSETS)
def test_static_files_have_hashed_names_and_are_cached_for_good(served, name):
    url, status, cache_control, _encoding = served[name]
    stem, suffix = name.rsplit(".", 1)
    assert re.fullmatch(rf"/static/{re.escape(stem)}\.[0-9a-f]{{12}}\.{suffix}", url), url
    assert status == 200
    max_age = int(re.search(r"max-age=(\d+)", cache_control).group(1))
    assert "immutable" in cache_control and max_age >= 365 * 24 * 3600


@pytest.mark.parametrize("name", ASSETS)
def test_static_files_go_out_compressed(served, name):
    assert served[name][3] == "gzip"
