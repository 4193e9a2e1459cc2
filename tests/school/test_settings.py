"""Production settings: DEBUG off, the secret key refused when missing or weak, deploy checks,
the site's own error pages and a Content-Security-Policy on every page."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "k" * 30 + "Zq7-Pw2_xR9mT4vB8nL3cJ6yH1sD5fG0"  # 62 characters, many different


def django_process(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "SECRET_KEY_FILE"}}
    clean |= {
        "DEBUG": "false",
        "VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "school.settings",
    }
    clean.pop("DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=clean | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


SHOW_SETTINGS = [
    "-c",
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.DEBUG, len(s.SECRET_KEY), s.STORAGES['staticfiles']['BACKEND'])",
]


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({}, "SECRET_KEY (or SECRET_KEY_FILE) must be set when DEBUG is false"),
        ({"SECRET_KEY": "x"}, "too short or too plain"),
        ({"SECRET_KEY": "a" * 80}, "too short or too plain"),
        ({"SECRET_KEY_FILE": "/nonexistent/secret_key"}, "cannot be read"),
    ],
    ids=["missing", "one-character", "one-repeated-character", "unreadable-file"],
)
def test_it_refuses_to_start_without_a_strong_key(tmp_path, env, says):
    done = django_process(SHOW_SETTINGS, tmp_path, **env)
    assert done.returncode != 0
    assert says in done.stderr


def test_a_short_key_is_refused_with_debug_on_too(tmp_path):
    done = django_process(SHOW_SETTINGS, tmp_path, DEBUG="true", SECRET_KEY="short")
    assert done.returncode != 0
    assert "too short" in done.stderr


def test_it_reads_the_key_from_a_file_and_turns_debug_off(tmp_path):
    key_file = tmp_path / "secret_key"
    key_file.write_text(GOOD_KEY + "\n")
    done = django_process(SHOW_SETTINGS, tmp_path, SECRET_KEY_FILE=str(key_file))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "False",
        str(len(GOOD_KEY)),
        "whitenoise.storage.CompressedManifestStaticFilesStorage",
    ]


def collected(tmp_path: Path) -> None:
    """What collectstatic leaves for the manifest check (the files themselves are not needed)."""
    (tmp_path / "staticfiles").mkdir(exist_ok=True)
    (tmp_path / "staticfiles" / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')


def test_the_deploy_check_leaves_only_the_https_at_the_proxy_settings(tmp_path):
    collected(tmp_path)
    done = django_process(["manage.py", "check", "--deploy"], tmp_path, SECRET_KEY=GOOD_KEY)
    assert done.returncode == 0, done.stderr
    issues = {
        line.split(")")[0].split("(")[-1] for line in done.stderr.splitlines() if ": (" in line
    }
    # HSTS and the HTTPS redirect belong to whoever ends HTTPS (README, production).
    assert issues == {"security.W004", "security.W008"}, done.stderr


def test_the_deploy_check_is_clean_once_https_settings_are_given(tmp_path):
    collected(tmp_path)
    done = django_process(
        ["manage.py", "check", "--deploy"],
        tmp_path,
        SECRET_KEY=GOOD_KEY,
        SECURE_HSTS_SECONDS="3600",
        SECURE_SSL_REDIRECT="true",
        SECURE_HSTS_INCLUDE_SUBDOMAINS="true",
        SECURE_HSTS_PRELOAD="true",
    )
    assert done.returncode == 0, done.stderr
    assert "no issues" in done.stdout + done.stderr


@pytest.mark.django_db
def test_a_wrong_url_shows_the_sites_own_404(client, settings):
    settings.DEBUG = False
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "Not found" in page and "Back to the course" in page
    assert "Resolver404" not in page and "URLconf" not in page


@pytest.mark.django_db
def test_a_server_error_shows_the_sites_own_500(settings, monkeypatch):
    settings.DEBUG = False

    def broken(request):
        raise RuntimeError("boom")

    monkeypatch.setattr("ops.views.deep_checks", lambda: broken(None))
    client = Client(raise_request_exception=False)
    response = client.get(reverse("healthz-deep"))
    assert response.status_code == 500
    assert "Something went wrong on the server" in response.content.decode()


@pytest.mark.django_db
def test_pages_carry_a_csp_that_allows_only_the_sites_own_scripts(client):
    policy = client.get(reverse("home"))["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    # 'self', plus the request's nonce on pages that use one.
    assert directives["script-src"].split()[0] == "'self'"
    assert "'unsafe-inline'" not in directives["script-src"]
    assert "'unsafe-eval'" not in directives["script-src"]
    assert directives["style-src"] == "'self' 'unsafe-inline'"  # plotly.js and htmx add styles
    assert directives["frame-ancestors"] == "'none'"


def test_no_template_has_an_inline_script_or_handler():
    """Inline code would be blocked by the CSP: scripts live in static files."""
    offenders = []
    for template in (ROOT / "templates").rglob("*.html"):
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            if not re.search(r'\bsrc=|type="application/json"|nonce=', tag):
                offenders.append(f"{template.name}: {tag}")
        offenders += [f"{template.name}: {m}" for m in re.findall(r"\son[a-z]+=|hx-on", text)]
    assert offenders == []


def test_a_missing_collectstatic_is_named_at_start(settings, tmp_path):
    from ops.checks import static_files_collected

    settings.STORAGES = settings.STORAGES | {
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
    }
    settings.STATIC_ROOT = tmp_path
    (error,) = static_files_collected()
    assert error.id == "ops.W001"
    assert "collectstatic" in error.msg
    collected(tmp_path)
    settings.STATIC_ROOT = tmp_path / "staticfiles"
    assert static_files_collected() == []
