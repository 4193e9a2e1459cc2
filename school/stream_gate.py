"""A gate in front of the class experiment's live streams: only a few are set up at once.

Setting a stream up is ordinary Django work on a thread of its own (the session, the person,
the experiment's row), and each such thread opens a database connection; the stream gives
it back before its first event (`classlab.views.stream`). When a whole class opens the
projector's link at once, a hundred set-ups at once would ask PostgreSQL for a hundred
connections and, past its `max_connections`, some phones got a 500 and fell back to polling
(bench/class_experiment.py, 8 Dec). Behind the gate the others wait a few milliseconds for
their turn instead; once a stream sends its first bytes it holds no connection and no place.

The gate counts within one ASGI process: a site with more stream processes gets one gate
each, so the bound is per process, as connections are.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[None]]  # Django's handler types its arguments narrower

STREAM_PATH = re.compile(r"^/x/[^/]+/stream/$")


class StreamSetupGate:
    """At most `limit` stream requests between arriving and their first body bytes; every
    other request passes straight through."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit
        self._places: asyncio.Semaphore | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not STREAM_PATH.match(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        if self._places is None:  # made in the server's own event loop
            self._places = asyncio.Semaphore(self.limit)
        places = self._places
        await places.acquire()
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                places.release()

        async def send_and_free(message: Message) -> None:
            await send(message)
            # The first body bytes come after the view gave its connection back (or with
            # the whole answer, for a refusal); the response's start comes before that.
            if message["type"] == "http.response.body":
                give_back()

        try:
            await self.app(scope, receive, send_and_free)
        finally:
            give_back()
