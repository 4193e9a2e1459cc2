"""Standard against FIFO queues (Lesson 12) as a model: the same rules as the real-Redis
experiment (`labs.experiments.fifo`), played on a clock that has no noise.

Why both: the experiment shows the rules on a real queue with real threads, where timing
varies from run to run; the model plays the same sends, the same work times (drawn from the
seed) and the same rules one event at a time, so its figures are exact and a test can hold
them. Both count with `measure`, so "out of order" means the same thing in each.

The rules: a standard queue hands out whichever message is visible (an expired one first,
then new ones in the order sent) to any free worker; a FIFO queue hands out a group's head
only while nothing of that group is out with a worker, drops a send whose deduplication id
was accepted less than `dedup_window_s` before, and parks a head that has been received
`max_receives` times at the next receive after its visibility timeout ran out.
"""

from __future__ import annotations

import random
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any

KINDS = ("standard", "fifo")
SEND_RATE_PER_S = 400.0  # fast enough that a student's updates overlap at the workers


@dataclass(frozen=True)
class Entry:
    """One message as sent: its student, its place in the student's sends, the update's id."""

    group: str
    pos: int  # 1, 2, 3 … in the order this student's messages were sent (copies included)
    job: str  # the update, also the deduplication id: a resent copy has the same one
    copy: bool


@dataclass
class Log:
    """What the workers of one queue saw, in the run's own clock (seconds since start)."""

    received: list[tuple[float, Entry, int]]  # (t_s, entry, receive count)
    done: list[tuple[float, Entry]]
    parked_at: dict[tuple[str, int], float]  # (group, pos) → t_s it reached the DLQ

    @classmethod
    def empty(cls) -> Log:
        return cls([], [], {})


def plan(
    groups: int, per_group: int, resend_every: int, poison: bool, resend_after_s: float = 0.0
) -> list[tuple[float, Entry]]:
    """The sends in time order: students' updates round-robin at SEND_RATE_PER_S, and a copy
    `resend_after_s` after every `resend_every`-th update (never of the poison one). A send's
    `pos` is its place among its student's sends, so it says the order the queue got them."""
    due: list[tuple[float, str, str, bool]] = []
    n = 0
    for k in range(1, per_group + 1):
        for g in range(1, groups + 1):
            at, n = n / SEND_RATE_PER_S, n + 1
            group, job = f"student-{g}", f"student-{g}#{k}"
            due.append((at, group, job, False))
            if resend_every and n % resend_every == 0 and job != poison_job(poison):
                due.append((at + resend_after_s, group, job, True))
    count: dict[str, int] = defaultdict(int)
    sends = []
    for at, group, job, copy in sorted(due, key=lambda d: d[0]):
        count[group] += 1
        sends.append((at, Entry(group, count[group], job, copy)))
    return sends


def poison_job(poison: bool) -> str | None:
    """The update no worker can apply: student 1's second (if the run has one)."""
    return "student-1#2" if poison else None


def work_s(seed: int, work_ms: float, entry: Entry, receives: int) -> float:
    """How long one delivery takes: 50% to 150% of `work_ms`, drawn from the seed."""
    draw = random.Random(f"{seed}:{entry.group}:{entry.pos}:{receives}").random()
    return work_ms * (0.5 + draw) / 1000


def _check(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")


def simulate(
    kind: str,
    *,
    groups: int = 3,
    per_group: int = 6,
    workers: int = 4,
    resend_every: int = 4,
    resend_after_s: float = 0.05,
    dedup_window_s: float = 1.0,
    poison: bool = True,
    visibility_timeout_s: float = 0.3,
    max_receives: int = 3,
    work_ms: float = 40.0,
    seed: int = 0,
) -> tuple[Log, list[Entry]]:
    """Play the plan through one queue; returns the workers' log and the sends it accepted.

    The visibility timeout must outlast the slowest good job (1.5 × work_ms), as the lab's
    bounds keep it: then only the poison message is ever received twice.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    _check("groups", groups, 1, 10)
    _check("per_group", per_group, 2 if poison else 1, 50)
    _check("workers", workers, 1, 8)
    _check("resend_every", resend_every, 0, 50)
    _check("resend_after_s", resend_after_s, 0.0, 5.0)
    _check("dedup_window_s", dedup_window_s, 0.05, 10.0)
    _check("max_receives", max_receives, 1, 10)
    _check("work_ms", work_ms, 1.0, 200.0)
    _check("visibility_timeout_s", visibility_timeout_s, 1.5 * work_ms / 1000 + 1e-9, 2.0)

    timed = plan(groups, per_group, resend_every, poison, resend_after_s)
    bad = poison_job(poison)
    log = Log.empty()
    accepted: list[Entry] = []
    remembered: dict[str, float] = {}  # deduplication id → when its send was accepted
    waiting: deque[Entry] = deque()  # standard: sent, never received
    hidden: dict[Entry, float] = {}  # standard: the poison message, visible again at
    lines: dict[str, deque[Entry]] = defaultdict(deque)  # fifo: each group's messages
    # fifo: a group's head out with a worker → (visible again at, done at or None)
    locks: dict[str, tuple[float, float | None]] = {}
    receives: dict[Entry, int] = defaultdict(int)
    free_at = [0.0] * workers
    sent = 0

    def deliver_sends(now: float) -> None:
        nonlocal sent
        while sent < len(timed) and timed[sent][0] <= now:
            at, entry = timed[sent]
            sent += 1
            if kind == "fifo":
                if entry.job in remembered and at - remembered[entry.job] < dedup_window_s:
                    continue
                remembered[entry.job] = at
                lines[entry.group].append(entry)
            else:
                waiting.append(entry)
            accepted.append(entry)

    def park(entry: Entry, now: float) -> None:
        log.parked_at[(entry.group, entry.pos)] = now

    def receive(now: float) -> Entry | None:
        if kind == "standard":
            for entry, until in sorted(hidden.items(), key=lambda h: h[0].pos):
                if until <= now:
                    del hidden[entry]
                    if receives[entry] >= max_receives:
                        park(entry, now)
                        continue
                    return entry
            return waiting.popleft() if waiting else None
        heads = sorted((line[0] for line in lines.values() if line), key=accepted.index)
        for head in heads:
            group = head.group
            if group in locks:
                until, done = locks[group]
                if done is not None and done <= now:
                    del locks[group]
                    lines[group].popleft()
                    return receive(now)  # the group's next message is its head now
                if now < until:
                    continue
                del locks[group]
                if receives[head] >= max_receives:
                    lines[group].popleft()
                    park(head, now)
                    return receive(now)
            return head
        return None

    def next_change(now: float) -> float | None:
        times = [timed[sent][0]] if sent < len(timed) else []
        times += [until for until in hidden.values() if until > now]
        times += [t for until, done in locks.values() for t in (until, done) if t and t > now]
        return min(times, default=None)

    while True:
        worker = min(range(workers), key=lambda w: (free_at[w], w))
        now = free_at[worker]
        deliver_sends(now)
        entry = receive(now)
        if entry is None:
            later = next_change(now)
            if later is None:
                break
            free_at[worker] = later
            continue
        receives[entry] += 1
        log.received.append((now, entry, receives[entry]))
        took = work_s(seed, work_ms, entry, receives[entry])
        free_at[worker] = now + took
        good = entry.job != bad
        if good:
            log.done.append((now + took, entry))
        if kind == "fifo":
            locks[entry.group] = (now + visibility_timeout_s, now + took if good else None)
        elif not good:
            hidden[entry] = now + visibility_timeout_s
    log.done.sort(key=lambda d: d[0])
    return log, accepted


def measure(
    log: Log, sends: list[Entry], bad: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]], list[bool]]:
    """Order, duplicates and the poison's wait, from what the workers logged about `sends`
    (the messages that entered this queue).

    A message is out of order when it was done while an earlier message of its group had
    not yet been done or parked in the DLQ."""
    settled_at: dict[tuple[str, int], float] = {}
    for t, e in log.done:
        settled_at.setdefault((e.group, e.pos), t)
    for key, t in log.parked_at.items():
        settled_at[key] = t
    bad_entry = next((e for e in sends if e.job == bad), None)
    positions = {(s.group, s.pos) for s in sends}
    done_jobs: dict[str, int] = defaultdict(int)
    out_of_order: dict[str, int] = defaultdict(int)
    late: list[bool] = []
    for t, e in log.done:
        done_jobs[e.job] += 1
        earlier = [
            settled_at.get((e.group, p), float("inf"))
            for p in range(1, e.pos)
            if (e.group, p) in positions
        ]
        late.append(any(s > t for s in earlier))
        if late[-1]:
            out_of_order[e.group] += 1
    blocked = None
    if bad_entry is not None:
        first = min((t for t, e, _ in log.received if e.job == bad), default=None)
        after = [
            t
            for t, e, _ in log.received
            if e.group == bad_entry.group and e.pos > bad_entry.pos and first is not None
        ]
        if first is not None and after:
            blocked = round(max(0.0, min(after) - first), 3)
    groups = sorted({e.group for e in sends}, key=lambda g: int(g.split("-")[1]))
    per_group: list[dict[str, Any]] = [
        {
            "group": g,
            "done": sum(1 for _, e in log.done if e.group == g),
            "out_of_order": out_of_order[g],
            "duplicates": sum(
                max(0, n - 1) for job, n in done_jobs.items() if job.startswith(g + "#")
            ),
            "finished_s": round(max((t for t, e in log.done if e.group == g), default=0.0), 3),
        }
        for g in groups
    ]
    finished: list[float] = [row["finished_s"] for row in per_group]
    return (
        {
            "out_of_order": sum(out_of_order.values()),
            "duplicates_done": sum(max(0, n - 1) for n in done_jobs.values()),
            "dlq": len(log.parked_at),
            "poison_receives": sum(1 for _, e, _ in log.received if e.job == bad),
            "blocked_s": blocked,
            "finished_s": max(finished, default=0.0),
        },
        per_group,
        late,
    )
