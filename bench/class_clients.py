"""The people of a class experiment, over HTTP as their pages are: teacher, projector, phones.

Each is an httpx client with its own cookies and kept-alive connections, doing what its
page's script does (static/classlab/): a phone joins as a guest, follows the shared state
(state.json once a second, or the Server-Sent Events stream) and calls the server once a
second while the experiment runs, with a tap now and then (`phone.js`); the projector
follows the same state and fetches its live part again on each change, one fetch at a time
and then the newest (`projector.js`, `hx-sync="this:queue last"`); the teacher signs in,
starts the experiment, presses Go, moves a setting and ends it.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from collections.abc import Callable
from typing import Any

import httpx
from class_latency import Screen, canonical

POLL_EVERY_S = 1.0  # live.js
TICK_EVERY_S = 1.0  # phone.js
EXPERIMENT_PATH = re.compile(r"/experiment/([0-9a-f-]{36})/")


class Browser:
    """One browser's cookies and connections; POSTs carry the CSRF token as htmx sends it."""

    def __init__(self, base: str) -> None:
        self.http = httpx.AsyncClient(base_url=base, timeout=60)

    async def get(self, path: str, **headers: str) -> httpx.Response:
        return await self.http.get(path, headers=headers)

    async def post(self, path: str, data: dict[str, Any], **headers: str) -> httpx.Response:
        token = self.http.cookies.get("csrftoken", "")
        return await self.http.post(path, data=data, headers={"X-CSRFToken": token, **headers})

    async def close(self) -> None:
        await self.http.aclose()


async def follow(
    browser: Browser,
    code: str,
    channel: str,
    screen: Screen,
    stop: asyncio.Event,
    on_state: Callable[[dict[str, Any]], None] = lambda state: None,
) -> None:
    """Follow the shared state as live.js does, noting each new state on `screen`: the
    stream, or state.json once a second where the stream is refused (or not asked for)."""

    def take(text: str) -> dict[str, Any]:
        screen.shown.append((time.monotonic(), canonical(text)))
        state = json.loads(text)
        on_state(state)
        return state

    if channel == "sse" and await stream(browser, code, screen, stop, take):
        return
    await poll(browser, code, screen, stop, take)


async def poll(
    browser: Browser,
    code: str,
    screen: Screen,
    stop: asyncio.Event,
    take: Callable[[str], dict[str, Any]],
) -> None:
    """live.js's `poll`: state.json once a second, a state taken only when it changed."""
    last = ""
    while not stop.is_set():
        try:
            answer = await browser.get(f"/x/{code}/state.json")
        except httpx.HTTPError:
            answer = None
        if answer is not None and answer.status_code == 200:
            screen.ready = min(screen.ready, time.monotonic())
            if answer.text != last:  # live.js: nothing changed, nothing redrawn
                last = answer.text
                take(answer.text)
        await asyncio.sleep(POLL_EVERY_S)


async def stream(
    browser: Browser,
    code: str,
    screen: Screen,
    stop: asyncio.Event,
    take: Callable[[str], dict[str, Any]],
) -> bool:
    """live.js's EventSource: True once the experiment ended (or `stop`); False if the
    stream was refused (any answer but a 200 event stream: an EventSource closes, and
    live.js polls). A stream cut off is opened again after the `retry:` it gave, as an
    EventSource does; each refusal and reopening is noted on `screen`. The screen follows
    from the first stream that answers, not from the request: a refused one follows nothing.
    """
    retry_s = 3.0  # an EventSource's own until the stream says
    while not stop.is_set():
        try:
            async with browser.http.stream("GET", f"/x/{code}/stream/", timeout=None) as answer:
                kind = answer.headers.get("content-type", "")
                if answer.status_code != 200 or not kind.startswith("text/event-stream"):
                    screen.refused.append(answer.status_code)
                    return False
                screen.ready = min(screen.ready, time.monotonic())
                async for line in answer.aiter_lines():
                    if stop.is_set():
                        return True
                    if line.startswith("retry: "):
                        retry_s = int(line[7:]) / 1000
                    elif line.startswith("data: ") and take(line[6:]).get("status") == "ended":
                        return True  # live.js closes the stream
        except httpx.HTTPError:
            pass  # cut off: an EventSource connects again by itself
        screen.reopened += 1
        await asyncio.sleep(retry_s)
    return True


class Phone(Browser):
    """A student's phone: joins as a guest, then calls the server while the run is on."""

    def __init__(self, base: str, code: str, nickname: str, taps_per_min: float) -> None:
        super().__init__(base)
        self.code, self.nickname, self.taps_per_min = code, nickname, taps_per_min
        self.screen = Screen()
        self.status = "waiting"
        self.ticks: list[tuple[float, int]] = []  # (seconds, HTTP status) of each call
        self._taps = 0
        self._busy = False

    async def join(self) -> None:
        await self.get(f"/x/{self.code}/")  # the join page: its CSRF cookie
        answer = await self.post(f"/x/{self.code}/", {"nickname": self.nickname})
        if answer.status_code != 302:
            raise SystemExit(f"{self.nickname} could not join (HTTP {answer.status_code})")
        await self.get(f"/x/{self.code}/phone/")

    def on_state(self, state: dict[str, Any]) -> None:
        self.status = state.get("status", self.status)

    async def follow(self, channel: str, stop: asyncio.Event) -> None:
        await follow(self, self.code, channel, self.screen, stop, self.on_state)

    async def tick(self) -> None:
        if self._busy:  # phone.js: one call at a time; the taps wait for the next
            return
        self._busy = True
        sent, self._taps = self._taps, 0
        started = time.perf_counter()
        try:
            answer = await self.post(f"/x/{self.code}/tick/", {"taps": sent})
            self.ticks.append((time.perf_counter() - started, answer.status_code))
        except httpx.HTTPError:
            self.ticks.append((time.perf_counter() - started, 0))
        finally:
            self._busy = False

    async def call_while_running(self, stop: asyncio.Event) -> None:
        """Once a second on phone.js's own clock (a call still out skips its turn)."""
        clock = time.monotonic()
        while not stop.is_set():
            if self.status == "running":
                await self.tick()
            elapsed = time.monotonic() - clock
            await asyncio.sleep(TICK_EVERY_S - elapsed % TICK_EVERY_S)

    async def tap_now_and_then(self, stop: asyncio.Event) -> None:
        """Tap "Send more" at random moments, `taps_per_min` a minute; each tap calls at once."""
        if self.taps_per_min <= 0:
            return
        while not stop.is_set():
            await asyncio.sleep(random.expovariate(self.taps_per_min / 60))  # noqa: S311
            if self.status == "running":
                self._taps = min(3, self._taps + 1)
                await self.tick()


class Teacher(Browser):
    """The teacher's browser: signs in, starts, steers and ends the experiment."""

    exp_id = ""
    code = ""

    async def log_in(self, username: str, password: str) -> None:
        await self.get("/accounts/login/")
        answer = await self.post("/accounts/login/", {"username": username, "password": password})
        if answer.status_code != 302:
            raise SystemExit(f"the teacher could not sign in (HTTP {answer.status_code})")

    async def start(self, minutes: int) -> str:
        """A storm experiment open to guests; its id."""
        answer = await self.post(
            "/experiment/new/start/",
            {"scenario": "storm", "minutes": minutes, "allow_guests": "on"},
        )
        found = EXPERIMENT_PATH.search(answer.headers.get("location", ""))
        if answer.status_code != 302 or not found:
            raise SystemExit(f"the experiment did not start (HTTP {answer.status_code})")
        self.exp_id = found.group(1)
        return self.exp_id

    async def go(self) -> None:
        await self.post(f"/experiment/{self.exp_id}/go/", {})

    async def move(self, action: str) -> int:
        answer = await self.post(
            f"/experiment/{self.exp_id}/control/", {"action": action}, **{"HX-Request": "true"}
        )
        return answer.status_code

    async def end(self) -> None:
        await self.move("end")


class Projector:
    """The projector: follows the state, and on each change fetches its live part (the
    charts drawn on the server) as htmx does: one at a time, then the newest."""

    def __init__(self, teacher: Teacher, code: str) -> None:
        self.teacher, self.code = teacher, code
        self.screen = Screen()  # the state reaching the page
        self.charts = Screen()  # the live part that state asked for, on the screen
        self._latest = ""
        self._wake = asyncio.Event()
        self.fetch_failures = 0

    def on_state(self, state: dict[str, Any]) -> None:
        self._latest = self.screen.shown[-1][1]
        self._wake.set()

    async def follow(self, channel: str, stop: asyncio.Event) -> None:
        await follow(self.teacher, self.code, channel, self.screen, stop, self.on_state)

    async def redraw(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            await self._wake.wait()
            self._wake.clear()
            asked_for = self._latest
            try:
                answer = await self.teacher.get(
                    f"/experiment/{self.teacher.exp_id}/", **{"HX-Request": "true"}
                )
                ok = answer.status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok:
                self.charts.shown.append((time.monotonic(), asked_for))
            else:
                self.fetch_failures += 1
