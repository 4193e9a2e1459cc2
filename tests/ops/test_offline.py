"""The service worker (/sw.js) keeps exactly what the site serves, in production and in
development, and loads nothing from outside the site.

In production the precache list is the hashed names collectstatic wrote (every one answered
200 by WhiteNoise, so Workbox's install cannot fail on a missing file); under DEBUG the
plain names with a hash of each file as its revision. The worker itself runs in Chromium in
tests/browser/test_offline.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
# One process runs this module (pytest-xdist): its module-scoped set-up is made once.
pytestmark = pytest.mark.xdist_group("offline")
KEY = "o" * 30 + "Zq7-Pw2_xR9mT4vB8nL3cJ6yH1sD5fG0"
CONFIG = re.compile(r"self\.SITE_OFFLINE = (\{.*\});")
IMPORTS = re.compile(r"importScripts\((.*)\);")
FETCH = """
import json, re, django
django.setup()
from django.conf import settings
from django.core.management import call_command
if not settings.DEBUG:
    call_command("collectstatic", "--noinput", verbosity=0)
from django.test import Client
client = Client()
worker = client.get("/sw.js")
text = worker.content.decode()
config = json.loads(re.search(r"self\\.SITE_OFFLINE = (\\{.*\\});", text)[1])
scripts = json.loads("[" + re.search(r"importScripts\\((.*)\\);", text)[1] + "]")
status = {}
for url in [entry["url"] for entry in config["precache"]] + scripts:
    response = client.get(url)
    status[url] = response.status_code
print(json.dumps({"config": config, "scripts": scripts, "status": status,
                  "headers": dict(worker.items())}))
"""


def serve(tmp_path_factory, debug: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY_FILE", "DATABASE_URL"}}
    env |= {
        "DEBUG": "true" if debug else "false",
        "SECRET_KEY": KEY,
        "VAR_DIR": str(tmp_path_factory.mktemp("sw")),
        "DJANGO_SETTINGS_MODULE": "school.settings",
    }
    done = subprocess.run(
        [sys.executable, "-c", FETCH], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def production(tmp_path_factory) -> dict:
    return serve(tmp_path_factory, debug=False)


@pytest.fixture(scope="module")
def development(tmp_path_factory) -> dict:
    return serve(tmp_path_factory, debug=True)


def test_in_production_every_kept_file_is_a_hashed_name_the_site_serves(production):
    urls = [entry["url"] for entry in production["config"]["precache"]]
    assert production["status"] == dict.fromkeys(urls + production["scripts"], 200)
    statics = [url for url in urls if url.startswith("/static/")]
    unversioned = [
        url for url in statics + production["scripts"]
        if not re.search(r"\.[0-9a-f]{12}\.\w+$", url)
    ]  # fmt: skip
    assert unversioned == []
    # The hash is the version: no revision of its own.
    assert {e["revision"] for e in production["config"]["precache"] if e["url"] in statics} == {
        None
    }
    assert not production["config"]["debug"]


def test_the_shell_holds_htmx_the_css_and_every_script_of_the_site(production, development):
    names = {
        re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", e["url"]) for e in production["config"]["precache"]
    }  # noqa: E501
    for name in ("vendor/htmx-2.0.11.min.js", "labs/site.css", "labs/charts.js",
                 "labs/charts/lazy.js", "labs/outbox.js", "labs/outbox/queue.js",
                 "labs/htmx_errors.js"):  # fmt: skip
        assert f"/static/{name}" in names
    assert "/offline/" in names
    # The worker's own body is loaded by importScripts, not kept as a page asset.
    assert not any("/sw/" in name for name in names)
    assert {e["url"] for e in development["config"]["precache"]} == {
        re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", e["url"]) for e in production["config"]["precache"]
    }


def test_in_development_the_plain_names_carry_a_hash_of_each_file(development):
    entries = development["config"]["precache"]
    assert development["status"] == dict.fromkeys(
        [e["url"] for e in entries] + development["scripts"], 200
    )
    htmx = next(e for e in entries if e["url"] == "/static/vendor/htmx-2.0.11.min.js")
    assert re.fullmatch(r"[0-9a-f]{16}", htmx["revision"])
    assert development["config"]["debug"]


def test_the_worker_loads_workbox_from_the_site_and_controls_every_page(production):
    assert all(url.startswith("/static/") for url in production["scripts"])
    assert [re.sub(r"\.[0-9a-f]{12}\.js$", ".js", u).rsplit("/", 1)[1] for u in production["scripts"]] == [  # noqa: E501
        "workbox-core.prod.js", "workbox-routing.prod.js", "workbox-strategies.prod.js",
        "workbox-precaching.prod.js", "workbox-expiration.prod.js", "worker.js",
    ]  # fmt: skip
    headers = production["headers"]
    assert headers["Service-Worker-Allowed"] == "/"
    assert headers["Cache-Control"] == "no-cache"
    assert headers["Content-Type"].startswith("text/javascript")


def test_the_vendored_workbox_names_no_other_site():
    for path in (ROOT / "static" / "vendor" / "workbox-7.4.1").glob("*.js"):
        text = path.read_text()
        assert "sourceMappingURL" not in text
        assert "googleapis" not in text and "storage.googleapis" not in text, path.name


@pytest.mark.django_db
def test_the_offline_page_says_it_in_both_languages():
    page = Client().get(reverse("offline")).content.decode()
    assert "No link to the site" in page
    assert "साइटपर्यंत network नाही" in page
    assert 'lang="mr"' in page and 'lang="en"' in page
