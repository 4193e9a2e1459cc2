"""The server goes away mid-edit: the pages say so honestly and carry on when it is back.

The site runs in a gunicorn process of its own here (not the in-process live server), so
the test can kill it and start it again. A student has a run page open (polling) and the
before/after report open with its analysis half typed; the server dies; they type on. The
report must say the text was *not* saved (never the last "Draft saved at") and keep it in
the browser; the banner must say the site did not answer; once the server is back the
text is saved, the browser's copy dropped, and the run page, whose poll failed while the
server was down, polls again and shows the run's result.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from labs.capstone.analysis import Analysis
from labs.runs.models import Run
from tests.base import make_user
from tests.browser.conftest import SHOTS, WIDE
from tests.lab_helpers import run as run_lab
from tests.labs.capstone.test_views import finished_pair, report_url
from tests.worker_helpers import database_url

ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 60_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_site(port: int, log: Path) -> subprocess.Popen:
    gunicorn = Path(sys.executable).parent / "gunicorn"
    env = {**os.environ, "DATABASE_URL": database_url()}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    with log.open("a") as out:
        proc = subprocess.Popen(
            [str(gunicorn), "school.wsgi:application", "--bind", f"127.0.0.1:{port}",
             "--workers", "1", "--threads", "4"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc
        except OSError:
            assert proc.poll() is None, log.read_text()[-3000:]
            time.sleep(0.2)
    pytest.fail(f"the site did not start:\n{log.read_text()[-3000:]}")


def stop_site(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.django_db(transaction=True)
def test_a_server_gone_mid_edit_is_said_and_nothing_typed_is_lost(
    orm_beside_playwright, chromium, tmp_path
):
    port, log = free_port(), tmp_path / "site.log"
    url = f"http://127.0.0.1:{port}"
    asha = make_user("asha")
    before, after = finished_pair(asha)
    drained = run_lab("drain")
    queued = Run.objects.create(owner=asha, lab="drain", params=drained["params"], seed=0)
    client = Client()
    client.force_login(asha)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value

    site = start_site(port, log)
    context = chromium.new_context(viewport={"width": WIDE, "height": 900})
    try:
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": url}])
        run_page = context.new_page()
        run_page.goto(url + reverse("run-detail", args=[queued.pk]))
        report = context.new_page()
        report.goto(url + report_url(before, after))
        status, banner = report.locator("#analysis-status"), report.locator("#connection-status")
        box = report.locator("form[data-autosave] textarea").first
        field = box.get_attribute("name")
        box.fill("The queue grew because retries")
        status.get_by_text("Draft saved at").wait_for(timeout=WAIT_MS)

        stop_site(site)
        box.press_sequentially(" came back faster than the workers")
        status.get_by_text("Not saved: the site did not answer.").wait_for(timeout=WAIT_MS)
        assert "Draft saved" not in status.inner_text()
        banner.get_by_text("The site did not answer").wait_for(timeout=WAIT_MS)
        if SHOTS:  # what the student sees where they were typing
            status.scroll_into_view_if_needed()
            report.screenshot(path=str(Path(SHOTS) / "server-gone-report.png"))
        kept = report.evaluate("() => Object.values(localStorage).join(' ')")
        assert "came back faster than the workers" in kept
        # The run page's poll failed too: it says so rather than go quiet.
        run_page.locator("#connection-status").get_by_text("did not answer").wait_for(
            timeout=WAIT_MS
        )

        queued.status, queued.result = "succeeded", drained
        queued.save()
        site = start_site(port, log)
        status.get_by_text("Draft saved at").wait_for(timeout=WAIT_MS)
        typed = "The queue grew because retries came back faster than the workers"
        assert getattr(Analysis.objects.get(before=before), field) == typed
        report.wait_for_function("() => localStorage.length === 0", timeout=WAIT_MS)
        banner.get_by_text("The site answers again.").wait_for(timeout=WAIT_MS)
        run_page.get_by_text("The backlog peaked at 800 jobs.").wait_for(timeout=WAIT_MS)
    finally:
        context.close()
        stop_site(site)
