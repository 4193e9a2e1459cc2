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
in a process's memory: the backlog is counted in the database at each press, with the
lane's lock held (`lock_lane`), so two presses of one class never take the same place.

Admission is judged per lane too (`labs.runs.admission.runners_refusal`): a press is
refused when its own lane's oldest waiting run is older than `LAB_ADMIT_OLDEST_S` (the
flooding class is told to wait: a new run of theirs would only queue behind their own), or
when the front of the queue is (the oldest run sent at level 0): then every class's next run
would wait that long, and the site is protected as before.

`LAB_FAIR_SHARE=false` sends every run at level 0 and judges admission by the queue's oldest
run alone, as before.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Min
from django.utils import timezone

from labs.runs.models import Run

# kombu's priority steps on Redis run from 0 (taken first) to 9.
LOWEST_LEVEL = 9
# The key space of the lanes' advisory locks (PostgreSQL), apart from the result store's.
LANE_LOCKS = 40

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


def lock_lane(lane: str) -> None:
    """Make one lane's presses take turns while each counts its backlog and saves its run
    (inside `atomic`, after the runs' own locks). PostgreSQL: a transaction-scoped advisory
    lock on the lane; SQLite's transactions already take turns."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            crc = zlib.crc32(lane.encode())  # the same in every process (hash() is not)
            key = crc - 2**32 if crc >= 2**31 else crc  # the lock takes a signed int4
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LANE_LOCKS, key])


@dataclass
class Share:
    """A press's place in its lane: what the lane has waiting, and the levels it sends at."""

    lane: str
    waiting: int = 0
    oldest: datetime | None = None
    fair: bool = False

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


def share_for(user, queue: str) -> Share:
    """`user`'s share of `queue` now: their lane's waiting runs, counted under its lock."""
    lane = lane_of(user)
    if not shares(queue):
        return Share(lane)
    lock_lane(lane)
    found = Run.objects.filter(
        lane=lane, status=Run.Status.QUEUED, queue=queue, same_as__isnull=True
    ).aggregate(waiting=Count("pk"), oldest=Min("created_at"))
    return Share(lane, found["waiting"], found["oldest"], fair=True)
