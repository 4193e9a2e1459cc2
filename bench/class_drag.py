"""A class moving a lab's slider at once: is every move answered within a second? (issue 40)

Starts the site as production runs it (`bench/burst.py`'s `Site`: `./dev serve`, i.e.
nginx, gunicorn, a quick and a heavy Celery worker, the sweeper) on a database of the
bench's own, unless `--url` names one running. Each student is a scripted client that
moves one slider of `--lab` (`bench/drag.py`'s `DRAGGED`: drain's `per_worker`,
trapped-service's `spike_rps`) to a new value every 1.5–3 s, drawn at random (uniform;
the first move within the first 3 s), for `--seconds`, with values of their own
(`drag.own_form`: a seed of their own on trapped-service, another `fixed_workers` on
drain, which has no randomness; each student's values never repeat), as issue 40's
reviewer measured it. `--shared` gives every student the lesson's values instead (then
most moves are answered by the result store).

A move is a hand letting go of the slider, and it is posted, taken and polled as
`static/labs/drafts.js` does it (`Dragger`): the value goes at once on the panel's usual
poster, or, with that post in flight, on its second poster kept for the release; with both
in flight the newest value goes when an answer comes, and values passed over meanwhile are
never sent. An answer takes the results' holder only if its post is newer than the last
one taken (drafts.js's `takes`): one that comes after a newer post's answer is dropped, and
one that comes first still shows. A finished body lands; a queued one polls itself there
as its `hx-trigger` says until it is finished, unless a newer answer takes its place or the
poll finds its draft deleted (the site deletes a student's queued draft when a newer one
comes: the poll's 286 swaps nothing, and the body polls no more). Each post carries an
`Idempotency-Key`, as the page's outbox sends it, and its place in the page's order
(`draft_page`, `draft_post`): a post the site answers "superseded" (204: a newer post of
the page was taken first, `labs.runs.draft_order`) is dropped, and counted. `--keys` moves
the slider with the keyboard instead: one post in flight at a time and drafts.js's pace.
Each student's posts and polls go on kept-alive connections (one per poster and one for the
polls, as a browser keeps a few), from threads of this process, on the same machine.

Per class size (`--students 30,50,60,80,100`, each run after the other, the runs and the
result store cleared between them), as Markdown:

- **moves**: answered (the move's own chart landed), superseded by the same student's next
  move (never sent, or sent but its answer never shown: it came after a newer post's answer,
  a newer answer took its queued body's place, or its queued draft was deleted for a newer
  one), refused (the answer was no run: its HTTP status and the message the student reads),
  failed (its run failed, with the words its body shows, or a poll was refused), and left
  unanswered when the class stopped (the last move, after `--grace` seconds); below them,
  the runs the site itself failed (the database's, by error), whatever the pages saw;
- **move → chart**, p50/p95/max over the answered moves (superseded ones are skipped
  there, and counted apart), and every move's wait for a chart at least as new (its own,
  or a later move's), whose p95 counts the superseded moves' waits too;
- **per student, the longest wait** with a move unanswered (from a move until a chart of
  that value or a newer one landed): the students' p50 and max, and how many waited
  longer than 1 s (the issue: "no student left without an answer for longer");
- **the site's CPU** over the row by role (web, workers, PostgreSQL, Redis:
  `bench/role_cpu.py`), per draft posted and per draft a worker computed; the site's CPU as
  a share of the cores, the whole machine's busy share (`/proc/stat`: other work and this
  client included) and this client's own; and the computed runs' queue wait (created →
  started): cores busy with runs waiting is the cores; cores idle while runs wait is a
  queue;
- **the knee**: the most students whose p95 move → chart is under 1 s (every size up to it
  too), and the most who also left no student waiting longer than 1 s.

`--overload [N]` then runs N students (default: 1.5 × the knee just measured) for
`--fast-seconds` (30) at the same pace, then slowed down (a move every 6–10 s) for
`--slow-seconds` (30): per phase the same figures, the answers that came more than 5 s
late, and the recovery: how many seconds after the slowdown a 5 s window's p95 (every
move's wait, by the move's time) is back under 1 s, with the windows' p95 listed.

    .venv/bin/python bench/class_drag.py --own-postgres --lab trapped-service \\
        --students 30,50,60,80,100 --overload
    .venv/bin/python bench/class_drag.py --own-postgres --lab drain --students 100
    .venv/bin/python bench/class_drag.py --own-postgres --lab trapped-service \\
        --students 60 --py-spy var/pyspy-class    # where the site's CPU went, per size

`--own-postgres` as bench/drag.py: a PostgreSQL cluster (and always a Redis) of the
bench's own, measured whole; else `--database-url` names a database of its own on a shared
server. The proxy's limit of requests per address is off (`PROXY_CONN_PER_ADDRESS=0`):
every student comes from 127.0.0.1. `--one-class` puts the students in one class (the
quick queue's fair share then counts their drafts as one lane: labs/runs/fair_share.py); by
default each is in no class.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import http.client
import os
import queue
import random
import re
import sys
import threading
import time
import urllib.parse
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import pyspy  # noqa: E402
from bench.burst import (  # noqa: E402
    FORM_ERRORS,
    RUN_ID,
    TAG,
    Site,
    Student,
    clear_runs,
    make_students,
    next_delay_s,
)
from bench.drag import (  # noqa: E402
    DRAGGED,
    PACE_S,
    computed_drafts,
    idle_line,
    own_form,
    settle,
    signed_in,
)
from bench.machine import describe, django_for_bench  # noqa: E402
from bench.role_cpu import RoleClock, own_postgres, own_redis, split_table  # noqa: E402

GOAL_S = 1.0  # the issue's: every move answered within a second
LATE_S = 5.0  # an answer this late follows no one's hand (the 5–17 s)
CLASS_PACE_S = (1.5, 3.0)  # a move every this many seconds, uniform (the reviewer's client)
SLOW_PACE_S = (6.0, 10.0)  # `--overload`'s slowed-down class
WINDOW_S = 5.0  # `--overload`: the recovery's window
VALUES = range(100, 301)  # the dragged slider's values (drain's `per_worker`, `spike_rps`)
FIELD_ERROR = re.compile(r'<div class="error" id="[^"]*"[^>]*role="alert"[^>]*>([^<]+)</div>')
# The answers htmx swaps in on this site (templates/base.html's htmx-config, as
# static/labs/outbox/answer.js's `shown`): a refusal in words lands and empties the holder.
SWAPPED = re.compile(r"^(2..|3..|400|401|403|404|409|410|422|429|503)$")
RUN_ERROR = re.compile(r'<p class="error" role="alert">([^<]*)</p>')  # a failed run's words
RUN_STATUS = re.compile(r'class="run-body status-(\w+)')
SUPERSEDED = 204  # a draft post older than one its page had taken (labs.web.views.drafts)
NUMBER = re.compile(r"(?<![A-Za-z])\d[\d,.]*")


# ---- Pure helpers: the figures from the moves' times ----------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (linear between the two nearest, as `statistics.quantiles`'s
    inclusive method); NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def waits_s(
    moved_at: Sequence[float], answered_at: Sequence[float | None], end: float
) -> list[float]:
    """Each of one student's moves (in order): how long the student waited from it until a
    chart of its value or a newer one landed (`end` if none did)."""
    waits: list[float] = []
    soonest = end
    for at, answered in zip(reversed(moved_at), reversed(answered_at), strict=True):
        if answered is not None:
            soonest = min(soonest, answered)
        waits.append(max(0.0, soonest - at))
    return waits[::-1]


def knee(p95_by_size: dict[int, float], limit_s: float = GOAL_S) -> int | None:
    """The most students whose p95 is under `limit_s`, every smaller size tried being under
    it too (a size past a miss that passes by chance is not the knee); None if the first
    size misses."""
    best = None
    for size in sorted(p95_by_size):
        if not p95_by_size[size] < limit_s:
            break
        best = size
    return best


def recovery_s(
    moves: Sequence[tuple[float, float]],
    since: float,
    until: float,
    window_s: float = WINDOW_S,
    step_s: float = 1.0,
    limit_s: float = GOAL_S,
) -> float | None:
    """Seconds from `since` to the start of the first `window_s` window (stepped by `step_s`,
    ending by `until`) whose moves' (time, wait) have a p95 wait under `limit_s`; None if
    none does. A window without moves is skipped."""
    start = since
    while start + window_s <= until + 1e-9:
        inside = [wait for at, wait in moves if start <= at < start + window_s]
        if inside and percentile(inside, 95) < limit_s:
            return start - since
        start += step_s
    return None


def lane(usual_flying: bool, release_flying: bool, let_go: bool) -> str | None:
    """drafts.js's `lane`: which poster posts now ("usual", "release"), or None (the value
    goes when an answer comes)."""
    if not usual_flying:
        return "usual"
    if let_go and not release_flying:
        return "release"
    return None


def takes(post: int, taken: int) -> bool:
    """drafts.js's `takes`: whether post number `post`'s answer may take the holder, the
    newest taken being `taken` (0: none yet)."""
    return post > taken


# ---- One student -------------------------------------------------------------------------


@dataclass
class Move:
    """One move of the slider: when, to what, and what came of it."""

    value: int
    at: float  # time.perf_counter() when the hand let go
    phase: str = ""
    sent: bool = False
    run_id: str = ""
    answered_at: float | None = None  # its own finished chart landed
    refused: str = ""  # the answer was no run: why
    failed: str = ""  # its run failed (the words it shows), or a poll was refused

    @property
    def latency_s(self) -> float:
        return (self.answered_at or 0.0) - self.at


class Dragger:
    """A student's page: the hand's moves posted, taken and polled as drafts.js does them.

    State under one condition (`self.cond`): which poster has a post in flight, the number
    of the last post (`posted`) and of the newest post whose answer took the holder
    (`taken`: an answer takes it only if its post is newer, drafts.js's `takes`), the
    queued body in the results' holder that polls itself (`holder`), and the last value
    sent. The two posters and the poller are threads of their own, each on its own
    kept-alive connection; `move()` is called by the class's conductor.
    """

    def __init__(self, student: Student, lab: str, form: dict[str, str], keys: bool) -> None:
        self.student, self.lab, self.form, self.keys = student, lab, form, keys
        self.param = DRAGGED[lab][0]
        self.cond = threading.Condition()
        self.moves: list[Move] = []
        self.flying = {"usual": False, "release": False}
        self.let_go = False
        self.sent: int | None = None
        self.last_at = 0.0
        self.posted = 0
        self.taken = 0
        self.holder: tuple[int, str, Move, float] | None = None  # post, path, move, poll at
        self.timer: threading.Timer | None = None
        self.post_s: list[float] = []
        # What became of the answers with a run that never landed (see `Cpu.paragraph`):
        self.older = 0  # came after a newer post's answer was taken: not swapped
        self.replaced = 0  # queued in the holder when a newer answer took its place
        self.gone = 0  # queued, its draft deleted for a newer one: the poll's 286 swaps nothing
        self.page = uuid.uuid4().hex  # the page load's id, sent with each post (drafts.js)
        self.superseded = 0  # posts the site answered "superseded": nothing computed
        self.stopping = False
        self.queues: dict[str, queue.SimpleQueue] = {"usual": queue.SimpleQueue()}
        if not keys:
            self.queues["release"] = queue.SimpleQueue()
        self.threads = [
            threading.Thread(target=self._poster, args=(which,), daemon=True)
            for which in self.queues
        ] + [threading.Thread(target=self._poller, daemon=True)]
        for thread in self.threads:
            thread.start()

    # The page's side: drafts.js's `changed`, the hand, the answers.

    def move(self, value: int, phase: str) -> None:
        with self.cond:
            self.moves.append(Move(value, time.perf_counter(), phase))
            self._changed(let_go=not self.keys)

    def _changed(self, let_go: bool = False) -> None:
        """drafts.js's `changed(panel, letGo)`, under `self.cond`."""
        if self.timer:
            self.timer.cancel()
            self.timer = None
        if self.stopping or not self.moves:
            return
        which = lane(self.flying["usual"], self.flying["release"], let_go and not self.keys)
        if which is None:
            if let_go:
                self.let_go = True  # goes as soon as an answer comes
            return
        let_go = let_go or self.let_go
        wait = self.last_at + PACE_S - time.perf_counter()
        if wait > 0 and not let_go:
            self.timer = threading.Timer(wait, self._paced)
            self.timer.daemon = True
            self.timer.start()
            return
        self.let_go = False
        newest = self.moves[-1]
        if newest.value == self.sent:
            return
        self.sent, self.last_at = newest.value, time.perf_counter()
        self.posted += 1
        newest.sent = True
        self.flying[which] = True
        self.queues[which].put((self.posted, newest))

    def _paced(self) -> None:
        with self.cond:
            self._changed()

    def _poster(self, which: str) -> None:
        """One of the panel's hidden posters: posts what it is given, then the answer is
        taken or dropped (`_answered`), then `changed` (drafts.js's afterRequest)."""
        while True:
            item = self.queues[which].get()
            if item is None:
                return
            post, move = item
            started = time.perf_counter()
            try:
                place = {"draft_page": self.page, "draft_post": str(post)}
                status, _, body = self.student.request(
                    f"/labs/{self.lab}/draft/",
                    self.form | {self.param: str(move.value)} | place,
                    htmx=True,
                    headers={"Idempotency-Key": str(uuid.uuid4())},
                )
            except (OSError, http.client.HTTPException) as exc:  # no answer at all
                status, body = 0, f"no answer ({exc.__class__.__name__})"
            answered = time.perf_counter()
            with self.cond:
                self.post_s.append(answered - started)
                self.flying[which] = False
                match = RUN_ID.search(body) if status == 200 else None
                if match:
                    move.run_id = match.group(1)
                elif status == SUPERSEDED:  # a newer post of this page got there first
                    self.superseded += 1
                else:
                    move.refused = f"HTTP {status}: {why_refused(body)}"
                # htmx's beforeSwap comes for every answer, none for no answer; drafts.js
                # drops a superseded one there without taking it as the newest.
                if status and status != SUPERSEDED:
                    self._answered(post, move, status, body, match, answered)
                self._changed()
                self.cond.notify_all()

    def _answered(
        self, post: int, move: Move, status: int, body: str, match: re.Match | None, at: float
    ) -> None:
        """drafts.js's beforeSwap, then the swap into the holder (under `self.cond`): taken
        only if its post is newer than the last one taken, swapped only as htmx swaps it."""
        if not takes(post, self.taken):
            if match:
                self.older += 1
            return
        self.taken = post  # drafts.js marks it taken even where htmx then swaps nothing
        if not SWAPPED.match(str(status)):
            return  # a 5xx: nothing swapped, the holder keeps what it had
        if self.holder is not None:
            self.replaced += 1  # the queued body there is gone, and its polls with it
        self.holder = None
        if match:
            self._settled(post, move, f"/runs/{match.group(1)}/", body, at)
        # else: refused in words, the holder emptied; the field messages say why

    def _settled(self, post: int, move: Move, path: str, body: str, at: float) -> None:
        """A run's body settled in the holder (under `self.cond`): landed if finished, else
        it polls itself there (drafts.js's afterSettle)."""
        if f'hx-get="{path}"' in body:
            self.holder = (post, path, move, at + next_delay_s(body))
            return
        self.holder = None
        if "status-succeeded" in body:
            move.answered_at = at
        else:
            move.failed = f"the run failed: {why_failed(body)}"

    def _poller(self) -> None:
        """The queued body in the holder: `load delay:…` then a GET, until it is finished,
        a newer answer takes its place, or the poll says its draft is gone."""
        while True:
            with self.cond:
                while True:  # until the body in the holder is due (a newer one replaces it)
                    if self.stopping:
                        return
                    if self.holder is None:
                        self.cond.wait()
                        continue
                    post, path, move, due = self.holder
                    left = due - time.perf_counter()
                    if left <= 0:
                        break
                    self.cond.wait(left)
            try:
                status, headers, body = self.student.request(path, htmx=True)
            except (OSError, http.client.HTTPException) as exc:
                status, headers, body = 0, {}, f"no answer ({exc.__class__.__name__})"
            answered = time.perf_counter()
            with self.cond:
                if self.holder is None or self.holder[0] != post:
                    continue  # a newer answer took the holder while this poll was out
                self._polled(post, move, path, status, headers, body, answered)
                self.cond.notify_all()

    def _polled(
        self, post: int, move: Move, path: str, status: int, headers: dict, body: str, at: float
    ) -> None:
        """A poll's answer for the body still in the holder (under `self.cond`)."""
        if {k.lower(): v for k, v in headers.items()}.get("hx-reswap") == "none":
            # The draft was deleted while queued, for a newer post of the student's
            # (labs.runs.drafts): the 286 swaps nothing and the body polls no more. The
            # move is superseded, not failed; the newer post's answer takes the holder.
            self.holder = None
            self.gone += 1
        elif SWAPPED.match(str(status)) and RUN_ID.search(body):
            self._settled(post, move, path, body, at)  # the body swaps itself (outerHTML)
        else:
            self.holder = None  # a refusal or a 5xx: it polls no more
            move.failed = f"poll HTTP {status}"

    def idle(self) -> bool:
        with self.cond:
            waiting = self.timer is not None or self.let_go
            return not (any(self.flying.values()) or self.holder or waiting)

    def stop(self) -> None:
        with self.cond:
            self.stopping = True
            if self.timer:
                self.timer.cancel()
            self.cond.notify_all()
        for posts in self.queues.values():
            posts.put(None)


def why_refused(body: str) -> str:
    """The words a refused draft shows: the form's message, else a field's, else the
    answer's own words."""
    found = FORM_ERRORS.search(body)
    words = " ".join(TAG.sub(" ", found.group(1)).split()) if found else ""
    if not words:
        words = "; ".join(" ".join(m.split()) for m in FIELD_ERROR.findall(body) if m.strip())
    return words[:200] or " ".join(TAG.sub(" ", body).split())[:120]


def why_failed(body: str) -> str:
    """The words a failed run's body shows (its `error_text`), else its status."""
    found = RUN_ERROR.search(body)
    if found and found.group(1).strip():
        return " ".join(found.group(1).split())[:200]
    status = RUN_STATUS.search(body)
    return f"status {status.group(1)}" if status else "no run body"


# ---- A class -----------------------------------------------------------------------------


@dataclass
class ClassRun:
    """What one class's moves came to."""

    students: int
    draggers: list[Dragger]
    started: float
    slowed: float | None  # when the class slowed down (`--overload`)
    stopped: float  # the last move was made by then
    ended: float  # every answer in (or `--grace` ran out)
    still_busy: int  # students with a post or a poll still out at the end

    def moves(self, phase: str | None = None) -> Iterator[tuple[int, Move, float]]:
        """(student, move, its wait) of every move, of one phase or all."""
        for i, dragger in enumerate(self.draggers):
            moved = dragger.moves
            waits = waits_s([m.at for m in moved], [m.answered_at for m in moved], self.ended)
            for move, wait in zip(moved, waits, strict=True):
                if phase is None or move.phase == phase:
                    yield i, move, wait


def drag_class(
    draggers: list[Dragger],
    seconds: float,
    grace_s: float,
    seed: int,
    slow_after_s: float | None = None,
) -> ClassRun:
    """Move every student's slider for `seconds`, each after a gap drawn from
    `CLASS_PACE_S` (from `SLOW_PACE_S` once `slow_after_s` have passed); then wait up to
    `grace_s` for the answers still out."""
    rngs = [random.Random(f"{seed}:{len(draggers)}:{i}") for i in range(len(draggers))]
    values = [rng.sample(VALUES, len(VALUES)) for rng in rngs]  # none twice
    started = time.perf_counter()
    # (when, student, moves made so far): each student's first move within the first 3 s.
    events = [(started + rng.uniform(0, CLASS_PACE_S[1]), i, 0) for i, rng in enumerate(rngs)]
    heapq.heapify(events)
    while events:
        at, i, made = heapq.heappop(events)
        elapsed = at - started
        if elapsed >= seconds:
            continue
        time.sleep(max(0.0, at - time.perf_counter()))
        slow = slow_after_s is not None and elapsed >= slow_after_s
        draggers[i].move(values[i][made % len(VALUES)], "slow" if slow else "fast")
        low, high = SLOW_PACE_S if slow else CLASS_PACE_S
        heapq.heappush(events, (at + rngs[i].uniform(low, high), i, made + 1))
    stopped = time.perf_counter()
    deadline = stopped + grace_s
    while time.perf_counter() < deadline and not all(d.idle() for d in draggers):
        time.sleep(0.1)
    ended = time.perf_counter()
    busy = sum(not d.idle() for d in draggers)
    slowed = None if slow_after_s is None else started + slow_after_s
    return ClassRun(len(draggers), draggers, started, slowed, stopped, ended, busy)


@dataclass
class Machine:
    """The whole machine's CPU (every process: the site, this client, other work)."""

    busy: int = 0
    total: int = 0

    @staticmethod
    def read() -> Machine:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]  # idle, iowait
        return Machine(sum(fields[:8]) - idle, sum(fields[:8]))

    def since(self, before: Machine) -> float:
        """The busy share between `before` and this reading."""
        return (self.busy - before.busy) / max(1, self.total - before.total)


def computed_times() -> tuple[set[str], list[float], list[float]]:
    """The runs a worker computed (ids), their queue waits and run times, in seconds."""
    from labs.runs.models import Run

    rows = Run.objects.filter(
        owner__username__startswith="bench-",
        draft=True,
        same_as__isnull=True,
        status=Run.Status.SUCCEEDED,
    ).values_list("id", "created_at", "started_at", "finished_at")
    ids, queued, ran = set(), [], []
    for run_id, created, began, ended in rows:
        ids.add(str(run_id))
        if began and ended:
            queued.append(max(0.0, (began - created).total_seconds()))
            ran.append(max(0.0, (ended - began).total_seconds()))
    return ids, queued, ran


def failed_runs() -> Counter[str]:
    """The bench students' runs that ended failed, by their error (English), from the
    database: whether the site itself failed a run, whatever the pages saw."""
    from labs.runs.models import Run

    rows = Run.objects.filter(
        owner__username__startswith="bench-", status=Run.Status.FAILED
    ).values_list("error_code", "error")
    return Counter(f"{code or 'no code'}: {' '.join(error.split())[:160]}" for code, error in rows)


# ---- Reporting ---------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return "–" if seconds != seconds else f"{1000 * seconds:,.0f}"  # NaN: no values


@dataclass
class Row:
    """One class's moves (or one phase's), counted."""

    label: str
    moves: int
    answered: int
    unsent: int  # superseded before it was sent
    overtaken: int  # sent, superseded: a newer answer came first, or took its queued place
    refused: Counter
    failed: Counter
    left: int  # the last move, unanswered when the class stopped
    latency: list[float]  # the answered moves' move → chart
    waits: list[float]  # every move's wait for a chart at least as new
    longest: list[float]  # per student, sorted

    @property
    def p95(self) -> float:
        return percentile(self.latency, 95) if self.latency else float("inf")

    @property
    def longest_max(self) -> float:
        return max(self.longest, default=0.0)

    @property
    def late(self) -> int:
        return sum(1 for s in self.latency if s > LATE_S)


def row_of(done: ClassRun, label: str, phase: str | None = None) -> Row:
    longest: dict[int, float] = {}
    answered, unsent, overtaken, left = 0, 0, 0, 0
    latency: list[float] = []
    waits: list[float] = []
    refused: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    last = {i: d.moves[-1] for i, d in enumerate(done.draggers) if d.moves}
    moves = list(done.moves(phase))
    for i, move, wait in moves:
        waits.append(wait)
        longest[i] = max(longest.get(i, 0.0), wait)
        if move.answered_at is not None:
            answered += 1
            latency.append(move.latency_s)
        elif move.refused:
            status, _, words = move.refused.partition(": ")  # "wait about N s": one reason
            refused[f"{status}: {NUMBER.sub('N', words)}"] += 1
        elif move.failed:
            failed[move.failed] += 1
        elif move is last[i]:
            left += 1
        elif move.sent:
            overtaken += 1
        else:
            unsent += 1
    return Row(
        label, len(moves), answered, unsent, overtaken, refused, failed, left, latency, waits,
        sorted(longest.values()),
    )  # fmt: skip


LATENCY_HEAD = (
    "| students | moves | answered | superseded: never sent / sent | refused | failed "
    "| left unanswered | move → chart p50 | p95 | max | every move's wait p95 "
    "| longest wait per student: p50 / max | students waiting > 1 s |\n"
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
    "| ---: | ---: |"
)


def latency_line(row: Row) -> str:
    over = sum(1 for s in row.longest if s > GOAL_S)
    return (
        f"| {row.label} | {row.moves} | {row.answered} | {row.unsent} / {row.overtaken} "
        f"| {sum(row.refused.values())} | {sum(row.failed.values())} | {row.left} "
        f"| {ms(percentile(row.latency, 50))} ms | {ms(percentile(row.latency, 95))} ms "
        f"| {ms(max(row.latency, default=float('nan')))} ms "
        f"| {ms(percentile(row.waits, 95))} ms "
        f"| {ms(percentile(row.longest, 50))} / {ms(row.longest_max)} ms "
        f"| {over} of {len(row.longest)} |"
    )


def reasons(row: Row) -> list[str]:
    lines = [f"  {row.label}: refused {n}×: {why}" for why, n in row.refused.most_common(5)]
    lines += [f"  {row.label}: failed {n}×: {why}" for why, n in row.failed.most_common(5)]
    if row.late:
        lines.append(f"  {row.label}: {row.late} answers came more than {LATE_S:.0f} s late")
    return lines


@dataclass
class Cpu:
    """The site's CPU over one class, and what limited it."""

    label: str
    wall_s: float
    used: dict[str, float]  # CPU seconds by role (bench/role_cpu.py)
    posts: int
    computed: int
    unseen: int  # computed runs that were no answered move's
    older: int  # answers with a run that came after a newer post's was taken: not swapped
    replaced: int  # queued bodies a newer answer took the place of before they finished
    gone: int  # queued bodies whose draft the site deleted for a newer post (poll: 286)
    superseded: int  # posts the site answered "superseded": a newer one of the page came first
    site_failed: Counter  # the runs the site failed meanwhile (the database's), by error
    machine_busy: float  # share of the machine's CPU, every process
    client_s: float  # this client's CPU seconds
    queued: list[float]  # computed runs' queue waits
    ran: list[float]
    post_s: list[float]

    @property
    def site_share(self) -> float:
        return sum(self.used.values()) / (self.wall_s * (os.cpu_count() or 1))

    def per_computed_ms(self, *roles: str) -> float:
        seconds = sum(self.used.get(r, 0.0) for r in roles) if roles else sum(self.used.values())
        return 1000 * seconds / self.computed if self.computed else float("nan")

    @property
    def verdict(self) -> str:
        if self.machine_busy >= 0.9:
            return "the cores"
        if percentile(self.queued, 95) > 0.5:
            return "a queue (runs waited, cores to spare)"
        return "neither"

    def failed_line(self) -> str:
        """The bench students' failed runs, as the database holds them, by their error."""
        if not self.site_failed:
            return "none"
        return (
            f"{sum(self.site_failed.values())} ("
            + "; ".join(f"{n}× {why}" for why, n in self.site_failed.most_common(5))
            + ")"
        )

    def paragraph(self) -> str:
        cores = os.cpu_count() or 1
        return "\n".join(
            [
                f"\n{self.label} students over {self.wall_s:.1f} s: {self.posts} drafts posted, "
                f"{self.computed} computed by a worker ({self.unseen} of them no answered "
                f"move's run: superseded, or shown only through another's); answers with a "
                f"run not shown (drafts.js takes an answer only if its post is newer than the "
                f"last one taken): {self.older} came after a newer post's answer, "
                f"{self.replaced} were queued when a newer answer took their place, "
                f"{self.gone} were queued drafts the site deleted for a newer post (their "
                "poll: 286, nothing swapped); "
                f"{self.superseded} posts reached the site after a newer one of their page "
                "and were answered superseded (nothing computed)",
                f"- runs the site failed: {self.failed_line()}",
                f"- the site's CPU: {100 * self.site_share:.0f}% of the {cores} cores; the "
                f"machine {100 * self.machine_busy:.0f}% busy (every process: other work, and "
                f"this client: {100 * self.client_s / (self.wall_s * cores):.0f}%)",
                f"- computed runs: queue wait (created → started) p50 "
                f"{ms(percentile(self.queued, 50))} / p95 {ms(percentile(self.queued, 95))} ms,"
                f" run p50 {ms(percentile(self.ran, 50))} / p95 {ms(percentile(self.ran, 95))}"
                f" ms; a draft's POST p50 {ms(percentile(self.post_s, 50))} / p95 "
                f"{ms(percentile(self.post_s, 95))} ms",
                f"- limited by: {self.verdict}",
                "",
                split_table(self.used, self.posts, self.computed),
            ]
        )


CPU_HEAD = (
    "| students | computed drafts | ms of CPU per computed draft: web | workers | PostgreSQL "
    "| Redis | all | site CPU, % of the cores | machine busy | runs' queue wait p95 "
    "| limited by |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
)


def cpu_line(cpu: Cpu) -> str:
    parts = [
        cpu.per_computed_ms("web"),
        cpu.per_computed_ms("quick worker", "heavy worker"),
        cpu.per_computed_ms("PostgreSQL"),
        cpu.per_computed_ms("Redis"),
    ]
    return (
        f"| {cpu.label} | {cpu.computed} | "
        + " | ".join(f"{x:.1f}" for x in parts)
        + f" | **{cpu.per_computed_ms():.1f}** | {100 * cpu.site_share:.0f}% "
        f"| {100 * cpu.machine_busy:.0f}% | {ms(percentile(cpu.queued, 95))} ms | {cpu.verdict} |"
    )


def windows_line(done: ClassRun) -> str:
    """Every 5 s window's p95 wait (by the move's time), from the start."""
    pairs = [(move.at, wait) for _i, move, wait in done.moves()]
    parts, start = [], done.started
    while start < done.stopped:
        inside = [w for at, w in pairs if start <= at < start + WINDOW_S]
        mark = "*" if done.slowed is not None and start >= done.slowed else ""
        parts.append(f"{start - done.started:.0f} s{mark}: {ms(percentile(inside, 95))}")
        start += WINDOW_S
    return "5 s windows' p95 wait, ms (* slowed down): " + ", ".join(parts)


# ---- The bench ---------------------------------------------------------------------------


def sizes(text: str) -> list[int]:
    try:
        found = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"class sizes like 30,50,60, not {text!r}") from None
    if not found or found[0] < 1:
        raise argparse.ArgumentTypeError("at least one class size, each 1 or more")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=f"sqlite:///{ROOT / 'var' / 'bench.sqlite3'}")
    parser.add_argument("--url", help="a site already running (else one is started)")
    parser.add_argument(
        "--own-postgres",
        action="store_true",
        help="a PostgreSQL cluster of the bench's own (then --database-url is not used)",
    )
    parser.add_argument("--lab", choices=sorted(DRAGGED), default="trapped-service")
    parser.add_argument("--students", type=sizes, default=[30], help="class sizes: 30,50,60")
    parser.add_argument("--seconds", type=float, default=60, help="how long each class moves")
    parser.add_argument("--grace", type=float, default=30, help="most seconds to wait after")
    parser.add_argument("--shared", action="store_true", help="the lesson's values for all")
    parser.add_argument("--keys", action="store_true", help="keyboard moves: one post at once")
    parser.add_argument("--one-class", action="store_true", help="the students in one class")
    parser.add_argument(
        "--overload",
        nargs="?",
        type=int,
        const=0,
        metavar="N",
        help="then N students (default 1.5 × the knee measured) fast, then slowed down",
    )
    parser.add_argument("--fast-seconds", type=float, default=30)
    parser.add_argument("--slow-seconds", type=float, default=30)
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--idle-seconds", type=float, default=10, help="0: not measured")
    parser.add_argument("--per-student", action="store_true", help="every student's longest")
    parser.add_argument("--seed", type=int, default=40, help="the bench's own draws")
    parser.add_argument("--py-spy", metavar="DIR", help="profile each class into DIR")
    parser.add_argument("--py-spy-bin", default="py-spy")
    args = parser.parse_args()
    if args.overload is not None and args.overload < 0:
        parser.error("--overload takes a number of students (or none: 1.5 × the knee)")
    for name in ("seconds", "fast_seconds", "slow_seconds", "grace"):
        if getattr(args, name) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be more than 0")
    with contextlib.ExitStack() as stack:
        trees: dict[str, int] = {}  # servers of the bench's own, measured whole
        if not args.url:
            os.environ["REDIS_URL"], trees["Redis"] = stack.enter_context(own_redis())
            if args.own_postgres:
                args.database_url, trees["PostgreSQL"] = stack.enter_context(own_postgres())
        run(args, trees)


class Bench:
    """The site, the students signed in so far, and one class measured at a time."""

    def __init__(self, args: argparse.Namespace, trees: dict[str, int], site: Site | None):
        self.args, self.trees, self.site = args, trees, site
        self.base = args.url or site.url  # type: ignore[union-attr]
        self.database = urllib.parse.urlsplit(args.database_url).path.lstrip("/")
        self.students: list[Student] = []

    def sessions(self) -> set[str]:
        return self.site.sessions() if self.site else set()

    def enough(self, count: int) -> list[Student]:
        """The first `count` students, signed in (more are signed in when needed)."""
        if count > len(self.students):
            names = make_students(count)
            if self.args.one_class:
                from bench.class_flood import make_class

                make_class("bench-class-drag", names)
            first = len(self.students)
            self.students += signed_in(self.base, names[first:], self.args.lab, first)
        return self.students[:count]

    def measure(
        self, count: int, seconds: float, name: str, slow_after_s: float | None = None
    ) -> tuple[ClassRun, Cpu]:
        """One class of `count` students moving for `seconds`: its moves and its CPU."""
        students = self.enough(count)
        clear_runs()
        if self.site:
            settle(self.sessions())
        lab, keys = self.args.lab, self.args.keys
        draggers = [
            Dragger(student, lab, own_form(lab, i, not self.args.shared), keys)
            for i, student in enumerate(students)
        ]
        clock = RoleClock(self.sessions(), self.database, self.trees).start()
        machine, client = Machine.read(), time.process_time()
        with contextlib.ExitStack() as spying:
            if self.args.py_spy and self.site:
                out = Path(self.args.py_spy)
                spying.enter_context(
                    pyspy.recording(self.sessions(), out, name, self.args.py_spy_bin)
                )
            done = drag_class(draggers, seconds, self.args.grace, self.args.seed, slow_after_s)
        used = clock.stop()
        busy = Machine.read().since(machine)
        client_s = time.process_time() - client
        for dragger in draggers:
            dragger.stop()
        ids, queued, ran = computed_times()
        shown = {m.run_id for d in draggers for m in d.moves if m.answered_at is not None}
        cpu = Cpu(
            str(count), done.ended - done.started, used, sum(len(d.post_s) for d in draggers),
            computed_drafts(), len(ids - shown), sum(d.older for d in draggers),
            sum(d.replaced for d in draggers), sum(d.gone for d in draggers),
            sum(d.superseded for d in draggers), failed_runs(),
            busy, client_s, queued, ran,
            [s for d in draggers for s in d.post_s],
        )  # fmt: skip
        return done, cpu


def run(args: argparse.Namespace, trees: dict[str, int]) -> None:
    django_for_bench(args.database_url, site_given=bool(args.url))
    print(describe())
    values = "the lesson's values (shared)" if args.shared else "values of each student's own"
    hand = "keys (one post at a time)" if args.keys else "a pointer let go (drafts.js)"
    print(
        f"{args.lab}, moving {DRAGGED[args.lab][0]}; {values}; a move every "
        f"{CLASS_PACE_S[0]}–{CLASS_PACE_S[1]} s for {args.seconds:.0f} s; {hand}"
        + ("; the students in one class" if args.one_class else "")
    )
    site = None if args.url else Site(args.database_url, args.web_workers)
    if site:
        # Every student here comes from 127.0.0.1, with up to three requests out at once:
        # the proxy's limit per address (100 answered at once, for a school behind one
        # address) would refuse the class itself, as in bench/class_flood.py.
        site.env["PROXY_CONN_PER_ADDRESS"] = "0"
    try:
        if site:
            site.__enter__()
        bench = Bench(args, trees, site)
        bench.enough(max(args.students))
        if site and args.idle_seconds:
            print(idle_line(bench.sessions(), bench.database, trees, args.idle_seconds))
        rows: list[Row] = []
        cpus: list[Cpu] = []
        for count in args.students:
            print(f"\n### {count} students ({describe()})")
            done, cpu = bench.measure(count, args.seconds, f"class-{count}")
            row = row_of(done, str(count))
            print(LATENCY_HEAD + "\n" + latency_line(row))
            print("\n".join(reasons(row)))
            if done.still_busy:
                print(f"  {done.still_busy} student(s) still had a post or a poll out at the end")
            if args.per_student:
                print("  longest wait per student, ms: " + ", ".join(ms(s) for s in row.longest))
            print(cpu.paragraph(), flush=True)
            if args.py_spy and site:
                print("\n" + pyspy.top(Path(args.py_spy), f"class-{count}"))
            rows.append(row)
            cpus.append(cpu)
        print(f"\n### All sizes ({args.lab})\n\n{LATENCY_HEAD}")
        print("\n".join(latency_line(row) for row in rows))
        print(f"\n{CPU_HEAD}")
        print("\n".join(cpu_line(cpu) for cpu in cpus))
        found = knee({int(row.label): row.p95 for row in rows})
        strict = knee({int(row.label): max(row.p95, row.longest_max) for row in rows})
        print(
            "\nknee (the most students with p95 move → chart < 1 s, every smaller size too): "
            f"{found if found is not None else 'none of the sizes tried'}; and with no student "
            f"waiting longer than 1 s: {strict if strict is not None else 'none'}",
            flush=True,
        )
        if args.overload is not None:
            overload(bench, args, args.overload or round(1.5 * (found or 0)))
    finally:
        if site:
            site.__exit__(None, None, None)


def overload(bench: Bench, args: argparse.Namespace, count: int) -> None:
    """`count` students at the class's pace, then slowed down: still answered? recovered?"""
    if count < 1:
        print("\n--overload: no knee to take 1.5 × of; give the students (--overload 90)")
        return
    fast, slow = args.fast_seconds, args.slow_seconds
    print(
        f"\n### Overload: {count} students, a move every {CLASS_PACE_S[0]}–{CLASS_PACE_S[1]} s "
        f"for {fast:.0f} s, then every {SLOW_PACE_S[0]:.0f}–{SLOW_PACE_S[1]:.0f} s for "
        f"{slow:.0f} s ({describe()})\n\n{LATENCY_HEAD}"
    )
    done, cpu = bench.measure(count, fast + slow, "overload", slow_after_s=fast)
    phases = [row_of(done, f"{count}, fast", "fast"), row_of(done, f"{count}, slowed", "slow")]
    print("\n".join(latency_line(row) for row in phases))
    print("\n".join(line for row in phases for line in reasons(row)))
    assert done.slowed is not None
    pairs = [(move.at, wait) for _i, move, wait in done.moves()]
    back = recovery_s(pairs, done.slowed, done.stopped)
    print(
        "\nrecovery: a 5 s window's p95 wait back under 1 s "
        + (f"{back:.0f} s after the class slowed down" if back is not None else "never")
    )
    print(windows_line(done))
    print(cpu.paragraph(), flush=True)
    if args.py_spy and bench.site:
        print("\n" + pyspy.top(Path(args.py_spy), "overload"))


if __name__ == "__main__":
    main()
