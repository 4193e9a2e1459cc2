"""The live streams' set-ups pass a gate: a class opening its streams at once asks the
database for a few connections at a time, not one each (bench/class_experiment.py saw 9 of
101 streams refused by PostgreSQL's `max_connections`)."""

from __future__ import annotations

import asyncio

import pytest
from django.urls import reverse

from school.stream_gate import STREAM_PATH, StreamSetupGate

pytestmark = pytest.mark.nodb


class SlowSetups:
    """An ASGI app whose answers take a while before their first body bytes, as a stream's
    set-up does; it counts how many are being set up at once."""

    def __init__(self) -> None:
        self.setting_up = self.most = self.streaming = 0
        self.release = asyncio.Event()

    async def __call__(self, scope, receive, send) -> None:
        self.setting_up += 1
        self.most = max(self.most, self.setting_up)
        await asyncio.sleep(0)  # the set-up's database work: the others run meanwhile
        await send({"type": "http.response.start", "status": 200, "headers": []})
        self.setting_up -= 1
        await send({"type": "http.response.body", "body": b"retry: 2000\n\n", "more_body": True})
        self.streaming += 1
        await self.release.wait()  # the stream stays open until the experiment ends
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _open(app, path: str, count: int) -> None:
    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        return None

    scope = {"type": "http", "path": path, "method": "GET"}
    tasks = [asyncio.create_task(app(dict(scope), receive, send)) for _ in range(count)]
    inner = app.app if isinstance(app, StreamSetupGate) else app
    while inner.streaming < count:
        await asyncio.sleep(0.005)
    inner.release.set()
    await asyncio.gather(*tasks)


def test_a_class_opening_its_streams_at_once_sets_up_a_few_at_a_time():
    inner = SlowSetups()
    asyncio.run(_open(StreamSetupGate(inner, limit=4), "/x/ABCD/stream/", 40))
    assert inner.streaming == 40  # every stream opened: none refused, none left waiting
    assert inner.most == 4  # without the gate all 40 were set up at once


def test_an_open_stream_holds_no_place():
    """Forty streams stay open through a gate of four: a place is freed at the first bytes."""
    inner = SlowSetups()
    asyncio.run(_open(StreamSetupGate(inner, limit=4), "/x/ABCD/stream/", 40))
    assert inner.streaming == 40


def test_other_requests_pass_straight_through():
    inner = SlowSetups()
    asyncio.run(_open(StreamSetupGate(inner, limit=4), "/x/ABCD/state.json", 40))
    assert inner.most == 40


def test_the_site_under_an_asgi_server_has_the_gate_on_the_stream_path():
    from school.asgi import application

    assert isinstance(application, StreamSetupGate)
    assert STREAM_PATH.match(reverse("classlab-stream", args=["ABCD"]))
