"""A fair share of the quick queue for each class: one class's flood waits its own turn.

A Celery queue on Redis is first come, first served. A class of 100 pressing Run on phase
maps with seeds of their own (about 0.3 s of a quick worker each) filled the quick queue with
half a minute of work. A quick lab pressed by another class 12 s later would have waited
behind all of it; in fact admission by the oldest run's age refused it, since the queue's
oldest run (one of the maps) was past `LAB_ADMIT_OLDEST_S`: 20 of 20 presses got a 503.

So a run on the quick queue is sent with a broker priority chosen by its *lane*'s backlog.
The lane is the run's class (or its owner, for someone in no class: `lane_of`). A lane with
nothing waiting sends at level 0, taken first; each doubling of what the lane already has
waiting sends one level lower (`level_for`: 1 waiting → 1, 2–3 → 2, 4–7 → 3 … 256 or more
→ 9). The broker keeps one list per level (kombu's `priority_steps`, 0 to 9, in
settings.py) and every worker, on every machine, takes from the first list that is not
empty. So a class with few runs waiting goes ahead of a class with many, a flood is served
after everyone else's first runs, and a class's own runs keep their order. Nothing of it is
in a process's memory: the backlog is counted in the database at each press, plus the
lane's presses under way on any web process (`Share.entered`, a counter in Redis), so
students of one class pressing at the same instant each take a place of their own. Not a
lock: a lock per class made a class's hundred presses take turns, each holding a web thread
while it waited, and another class's presses waited for a free thread behind them
(bench/class_flood.py: their Run press took 7.5 s at p95 instead of 1.9 s).

Admission is judged per lane too (`labs.runs.admission.runners_refusal`): a press is
refused when its own lane's oldest waiting run is older than `LAB_ADMIT_OLDEST_S` (the
flooding class is told to wait: a new run of theirs would only queue behind their own), or
when the front of the queue is (the oldest run sent at level 0): then every class's next run
would wait that long, and the site is protected as before.

`LAB_FAIR_SHARE=false` sends every run at level 0 and judges admission by the queue's oldest
run alone, as before.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import redis
from django.conf import settings
from django.db.models import Count, Min
from django.utils import timezone

from labs.runs import telemetry_store
from labs.runs.models import Run

logger = logging.getLogger(__name__)

# kombu's priority steps on Redis run from 0 (taken first) to 9.
LOWEST_LEVEL = 9
# A press is under way from its count to the end of its transaction (milliseconds); a
# counter no press has touched for this long (a web process killed mid-press) is dropped.
PRESSING_TTL_S = 30

_grouping: list[Callable[[Any], str]] = []


def group_by(lane_of_user: Callable[[Any], str]) -> None:
    """Say which group a user's runs share the queue with (teaching: their class), once,
    at start-up. `labs` ranks below the apps that know the groups, so they hand it in."""
    _grouping[:] = [lane_of_user]


def lane_of(user) -> str:
    """The lane a user's runs take: their group's when they have one, else their own."""
    for grouping in _grouping:
        lane = grouping(user)
        if lane:
            return lane
    return f"user:{user.pk}"


def is_own(lane: str) -> bool:
    """Whether the lane is one person's (they are in no class), not a class's."""
    return lane.startswith("user:")


def shares(queue: str) -> bool:
    """Whether runs on `queue` are sent by their lane's backlog: the quick queue's, when it
    is a queue of its own. A site (or a test) that sends everything to one queue keeps it
    first come, first served: experiments there take turns (`labs.runs.turns`), and a run
    given back for its turn, sent again at the top, would pass every class's share."""
    quick = settings.LAB_QUEUE
    return settings.LAB_FAIR_SHARE and queue == quick and quick != settings.LAB_HEAVY_QUEUE


def level_for(waiting: int) -> int:
    """The priority of a lane's run when `waiting` of its runs already wait on the queue."""
    if waiting < 0:
        raise ValueError(f"waiting must be at least 0, got {waiting}")
    return min(LOWEST_LEVEL, waiting.bit_length())


def pressing_key(lane: str) -> str:
    return telemetry_store.key("pressing", lane)


def enter(lane: str) -> int:
    """Count one more press of `lane` under way; how many others are (0 if Redis does not
    answer: the count then misses only presses made at the same instant)."""
    try:
        pipe = telemetry_store.client().pipeline(transaction=False)
        pipe.incr(pressing_key(lane))
        pipe.expire(pressing_key(lane), PRESSING_TTL_S)
        under_way, _ = pipe.execute()
    except redis.RedisError as exc:
        logger.warning("could not count a press of %s: %s", lane, exc)
        return 0
    return max(0, int(under_way) - 1)


# One press fewer under way. At 0 the counter goes: one that Redis lost meanwhile (a restart)
# must not stay below zero, and every counter left has the TTL of its last press.
LEAVE = """
local n = redis.call('DECR', KEYS[1])
if n <= 0 then redis.call('DEL', KEYS[1]) else redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""


def leave(lane: str) -> None:
    """The press of `lane` counted by `enter` is over (its runs committed or given up)."""
    try:
        telemetry_store.client().eval(LEAVE, 1, pressing_key(lane), PRESSING_TTL_S)
    except redis.RedisError as exc:  # the counter's TTL ends it
        logger.warning("could not uncount a press of %s: %s", lane, exc)


@dataclass
class Share:
    """A press's place in its lane: what the lane has waiting, and the levels it sends at.

    `waiting` counts the lane's runs saved as waiting and its other presses under way
    (`entered`: this press is counted among them until `done()`).
    """

    lane: str
    waiting: int = 0
    oldest: datetime | None = None
    fair: bool = False
    entered: bool = False

    def oldest_s(self, now: datetime | None = None) -> float:
        """How long the lane's oldest waiting run has waited (0 with none waiting)."""
        if self.oldest is None:
            return 0.0
        return max(0.0, ((now or timezone.now()) - self.oldest).total_seconds())

    def take(self) -> int:
        """The level of the next run this press sends; it then counts as waiting too."""
        if not self.fair:
            return 0
        level = level_for(self.waiting)
        self.waiting += 1
        return level

    def done(self) -> None:
        """The press is over: it no longer counts as under way (call once, in `finally`)."""
        if self.entered:
            self.entered = False
            leave(self.lane)


def share_for(user, queue: str) -> Share:
    """`user`'s share of `queue` now: their lane's waiting runs and its other presses under
    way. Call `done()` on it once the press's transaction has ended."""
    lane = lane_of(user)
    if not shares(queue):
        return Share(lane)
    others = enter(lane)  # first: a press counted after this one sees this one
    found = Run.objects.filter(
        lane=lane, status=Run.Status.QUEUED, queue=queue, same_as__isnull=True
    ).aggregate(waiting=Count("pk"), oldest=Min("created_at"))
    return Share(lane, found["waiting"] + others, found["oldest"], fair=True, entered=True)
