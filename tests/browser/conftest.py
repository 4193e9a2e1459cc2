"""A real browser on a live server, with a real Celery worker and the real Redis.

Chromium is Debian's (`./dev test` installs it with apt when missing), launched by path,
headless and without its sandbox (CI runs as root); Playwright only drives it, so nothing
downloads a browser. Every test here is marked `browser`: `pytest -m browser` runs them alone.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.worker_helpers import (
    forget_queue,
    new_queue_name,
    spawn_worker,
    stop_worker,
    wait_ready,
)

HERE = Path(__file__).parent
WIDE, PHONE = 1280, 390
# Where the screenshots go when BROWSER_SHOTS names a folder (they are for people to look at).
SHOTS = os.environ.get("BROWSER_SHOTS", "")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.redis)


def chromium_path() -> str:
    """Debian's Chromium (or CHROMIUM=/path): never a browser Playwright downloads."""
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("Chromium is not installed: ./dev test installs it (apt-get install chromium)")
    return path


@pytest.fixture
def chromium() -> Iterator[object]:
    """A browser for one test, closed before the test's database is flushed: while
    Playwright's event loop runs, Django takes this thread for async code."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path(), headless=True, args=["--no-sandbox"]
        )
        yield browser
        browser.close()


@dataclass(frozen=True)
class LabWorker:
    """The browser session's Celery worker: the two queues it consumes and its log."""

    quick: str
    heavy: str
    log: Path


@pytest.fixture(scope="session")
def lab_worker(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[LabWorker]:
    """One real Celery worker for the whole browser session, on a quick and a heavy queue of
    its own, as the site's workers take LAB_QUEUE and LAB_HEAVY_QUEUE. The settings name
    them only while a browser test runs (`site`): named here, for the session, they would
    stay in this process (an xdist worker) for every test that comes after."""
    quick = new_queue_name("browser")
    heavy = f"{quick}-heavy"
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    with django_db_blocker.unblock():
        proc = spawn_worker(quick, log, heavy=heavy)
    wait_ready(proc, log)
    yield LabWorker(quick, heavy, log)
    stop_worker(proc)
    forget_queue(quick)
    forget_queue(heavy)


@dataclass
class Seen:
    """What went wrong on a page that a student would not see: console errors, uncaught
    exceptions, requests that failed or answered 4xx/5xx."""

    problems: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (url, what went wrong)
    downloaded: set[str] = field(default_factory=set)
    superseded: list[str] = field(default_factory=list)  # htmx requests a newer one replaced
    left_behind: list[str] = field(default_factory=list)  # a page's fetches its unload cut off
    # For each page, how many top-level navigations it has started; for each request, that
    # count when it started.
    navigations: dict[int, int] = field(default_factory=dict)
    started_at: dict[int, tuple[int, int]] = field(default_factory=dict)

    def watch(self, page) -> None:
        page.on("request", lambda request: self._request(page, request))
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("requestfailed", self._request_failed)
        page.on("response", self._response)
        page.on("download", lambda d: self.downloaded.add(d.url))

    @property
    def errors(self) -> list[str]:
        # A link answered with an attachment becomes a download and Chromium aborts its
        # navigation: that is how a download looks, not a failure.
        failed = [
            f"failed: {what} {url}"
            for url, what in self.failed
            if not (url in self.downloaded and what.endswith("net::ERR_ABORTED"))
        ]
        return self.problems + failed

    def _request_failed(self, request) -> None:
        # htmx aborts a request that a newer one replaces (`hx-sync="this:replace"`: a
        # slider moved again before its draft answered): what the code is meant to do, not
        # an error, however slow the machine makes the first one.
        aborted = str(request.failure).endswith("net::ERR_ABORTED")
        if aborted and request.headers.get("hx-request") == "true":
            self.superseded.append(request.url)
            return
        # A page going away (a reload, a link followed) cuts off the reads its scripts had
        # in flight, such as the class experiment's once-a-second poll: the page that asked
        # is gone, so nobody waits for the answer, however slow the machine made it. A POST
        # cut off that way is still a failure: what it carried is lost.
        page_key = self.started_at.pop(id(request), None)
        if aborted and page_key is not None and page_key[1] < self.navigations[page_key[0]]:
            self.left_behind.append(request.url)
            return
        self.failed.append((request.url, f"{request.method} {request.failure}"))

    def _request(self, page, request) -> None:
        key = id(page)
        self.navigations.setdefault(key, 0)
        if request.is_navigation_request() and request.frame == page.main_frame:
            self.navigations[key] += 1
        elif request.method == "GET" and request.resource_type in ("fetch", "xhr", "eventsource"):
            self.started_at[id(request)] = (key, self.navigations[key])

    def _console(self, message) -> None:
        if message.type == "error":
            self.problems.append(f"console: {message.text}")

    def _response(self, response) -> None:
        if response.status >= 400:
            self.problems.append(f"{response.status}: {response.request.method} {response.url}")


@dataclass
class Site:
    """The live server, the browser and the worker, with what a test needs to use them."""

    url: str
    chromium: object
    worker_log: Path
    seen: Seen = field(default_factory=Seen)
    contexts: list = field(default_factory=list)

    def page(self, user=None, *, width: int = WIDE, height: int = 900):
        """A fresh page (its own cookies), logged in as `user` when given."""
        context = self.chromium.new_context(
            viewport={"width": width, "height": height}, accept_downloads=True
        )
        self.contexts.append(context)
        if user is not None:
            context.add_cookies([self.session_cookie(user)])
        page = context.new_page()
        page.set_default_timeout(30_000)
        self.seen.watch(page)
        return page

    def session_cookie(self, user) -> dict:
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(user)
        value = client.cookies[settings.SESSION_COOKIE_NAME].value
        return {"name": settings.SESSION_COOKIE_NAME, "value": value, "url": self.url}

    def worker_tail(self) -> str:
        return self.worker_log.read_text()[-3000:]

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def orm_beside_playwright(monkeypatch) -> None:
    """Playwright's sync API runs an event loop in a greenlet of the test's own thread, which
    Django's guard takes for async code; the tests only touch the ORM between page calls.
    Only for the test's body: set for the whole process, it would reach `check --deploy`."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def site(
    orm_beside_playwright, live_server, chromium, lab_worker, transactional_db
) -> Iterator[Site]:
    """The live server (a thread of this process) sends this test's runs to the session's
    worker; a press waits for its quick run as in production (labs.runs.ended)."""
    from django.test.utils import override_settings

    with override_settings(
        LAB_QUEUE=lab_worker.quick, LAB_HEAVY_QUEUE=lab_worker.heavy, LAB_PRESS_WAIT_S=0.6
    ):
        s = Site(url=live_server.url, chromium=chromium, worker_log=lab_worker.log)
        yield s
        s.close()


def shot(page, name: str) -> None:
    """Save a full-page screenshot under BROWSER_SHOTS, when set."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)
