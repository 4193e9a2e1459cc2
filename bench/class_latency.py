"""When each state change of a class experiment reached each screen, from what was published.

The bench listens on the experiment's own channel (`classlab.live.channel`) beside the
site: every state the site publishes (the worker's sample each second, a teacher's move, a
phone joining) is noted with the moment the bench heard it. Each screen notes what it
showed and when. A change is on a screen once the screen shows it or any later state: a
phone polling once a second may skip a state, and then shows a newer one, which holds the
change. Worked out after the run, so nothing here runs while the clients are timed.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import redis


def canonical(text: str | bytes) -> str:
    """One spelling of a state, whoever serialised it (the stream's raw body, state.json)."""
    return json.dumps(json.loads(text), sort_keys=True)


class PublishLog:
    """The experiment's published states in order, each with the moment it went out.

    A thread of its own (redis-py's `run_in_thread`) hears each message, so the stamp does
    not wait on the bench's event loop, busy with a hundred phones.
    """

    def __init__(self, url: str, channel: str) -> None:
        self.states: list[tuple[float, str]] = []
        self._pubsub = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
        self._pubsub.subscribe(**{channel: self._heard})
        self._thread = self._pubsub.run_in_thread(sleep_time=0.5, daemon=True)

    def _heard(self, message: dict[str, Any]) -> None:
        self.states.append((time.monotonic(), canonical(message["data"])))

    def close(self) -> None:
        self._thread.stop()
        self._thread.join(timeout=5)
        self._pubsub.close()


@dataclass
class Screen:
    """What one screen showed: from when it followed, and each new state with its moment;
    and, over the stream, how often it was refused (the page then polls) or reopened."""

    ready: float = math.inf
    shown: list[tuple[float, str]] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)  # the stream's refusals, by HTTP status
    reopened: int = 0  # streams cut off and opened again


def delays(
    published: list[tuple[float, str]], screen: Screen, since: float, until: float
) -> tuple[list[float], int]:
    """Seconds from each change published in [since, until] (after the screen followed) to
    the first moment the screen showed it or a later state; and how many it never showed."""
    first = _first_index(published)
    seconds: list[float] = []
    last = -1
    for when, body in screen.shown:
        i = first.get(body, -1)
        if i <= last:
            continue
        for at, _body in published[last + 1 : i + 1]:
            if since <= at <= until and at >= screen.ready:
                seconds.append(max(0.0, when - at))  # a stamp a hair late: no negative delay
        last = i
    missed = sum(
        1 for at, _b in published[last + 1 :] if since <= at <= until and at >= screen.ready
    )
    return seconds, missed


def move_delays(
    published: list[tuple[float, str]], screen: Screen, moves: list[tuple[float, str, Any]]
) -> list[float]:
    """Seconds from each teacher's press (when, setting, its new value) to the first moment
    the screen showed a state with that value, published after the press."""
    first = _first_index(published)
    parsed = [json.loads(body) for _at, body in published]
    seconds = []
    for pressed, name, value in moves:
        carrying = next(
            (
                i
                for i, (at, _b) in enumerate(published)
                if at >= pressed and parsed[i].get(name) == value
            ),
            None,
        )
        if carrying is None:
            continue
        shown = next((w for w, body in screen.shown if first.get(body, -1) >= carrying), None)
        if shown is not None and pressed >= screen.ready:
            seconds.append(shown - pressed)
    return seconds


def _first_index(published: list[tuple[float, str]]) -> dict[str, int]:
    first: dict[str, int] = {}
    for i, (_at, body) in enumerate(published):
        first.setdefault(body, i)
    return first
