"""A queue with poison messages and no dead-letter queue, second by second (Lessons 07, 12).

Lessons 07 and 12 park a message in a DLQ after `maxReceiveCount` failed receives. This
model shows what that rule saves: without it (`max_receives=0`) a message that always
fails comes back after every visibility timeout for ever, and each receive holds a worker.

The rules, played one event at a time on a clock of whole milliseconds (so 0.1 s steps
add up exactly):
- good messages arrive `arrive_per_s` at a time at the start of every second; each holds
  a worker `work_s`, then is deleted;
- `poison` poison messages arrive together at second `poison_at_s`, after that second's
  good ones; a receive holds its worker `fail_after_s`, then fails, and the message is
  visible again `visibility_s` after it was received (SQS's visibility timeout);
- a free worker takes the oldest visible message: a poison message that is visible again
  is older than every good message sent after it, so it comes first;
- with `max_receives` N > 0, when a message that failed its N-th receive would be visible
  again it moves to the DLQ instead (SQS moves it then, not at the failure);
- with `fifo`, every message is in one FIFO message group: nothing behind an in-flight or
  invisible earlier message is delivered, so the group moves one message at a time and a
  poison message at its head stops it (for ever, with no DLQ).

Deterministic: no seed, no randomness.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

MS_PER_S = 1000
# Bounds that keep one run of `play` well under a second of CPU at its largest.
LIMITS: dict[str, tuple[float, float]] = {
    "workers": (1, 20),
    "work_s": (0.1, 10.0),
    "arrive_per_s": (0, 50),
    "poison": (0, 100),
    "poison_at_s": (0, 1_799),
    "fail_after_s": (0.5, 120.0),
    "visibility_s": (1.0, 600.0),
    "max_receives": (0, 20),
    "duration_s": (1, 1_800),
}
GOOD_DONE, POISON_FAILED, VISIBLE_AGAIN = 0, 1, 2  # event kinds, in the order ties are played


@dataclass(frozen=True)
class NoDlqRun:
    """A run's readings, one per second: index i is the state at the end of second i + 1."""

    second: list[int]  # 1, 2, … duration_s
    backlog: list[int]  # good messages waiting, not yet received
    good_done: list[int]  # good messages done so far
    poison_receives: list[int]  # receives of poison messages so far
    poison_worker_s: list[float]  # worker-seconds spent on poison during this second
    in_dlq: list[int]  # poison messages in the DLQ
    oldest_age_s: list[int]  # how long the oldest waiting good message has waited (0: none)


def _check(name: str, value: float) -> None:
    low, high = LIMITS[name]
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low:g} and {high:g}, got {value}")


def _ms(seconds: float) -> int:
    return round(seconds * MS_PER_S)


def play(
    *,
    workers: int = 4,
    work_s: float = 0.5,
    arrive_per_s: int = 6,
    poison: int = 20,
    poison_at_s: int = 30,
    fail_after_s: float = 10.0,
    visibility_s: float = 30.0,
    max_receives: int = 0,
    fifo: bool = False,
    duration_s: int = 900,
) -> NoDlqRun:
    """Play the queue for `duration_s` seconds and read it at the end of every second."""
    for name, value in (
        ("workers", workers),
        ("work_s", work_s),
        ("arrive_per_s", arrive_per_s),
        ("poison", poison),
        ("poison_at_s", poison_at_s),
        ("fail_after_s", fail_after_s),
        ("visibility_s", visibility_s),
        ("max_receives", max_receives),
        ("duration_s", duration_s),
    ):
        _check(name, value)
    if poison and poison_at_s >= duration_s:
        raise ValueError(f"poison_at_s must be below duration_s ({duration_s}), got {poison_at_s}")
    if fail_after_s > visibility_s:
        # Otherwise the message is visible again while a worker still holds it.
        raise ValueError(
            f"fail_after_s must be at most visibility_s ({visibility_s}), got {fail_after_s}"
        )
    if work_s > visibility_s:
        raise ValueError(f"work_s must be at most visibility_s ({visibility_s}), got {work_s}")
    return _Queue(
        workers,
        _ms(work_s),
        arrive_per_s,
        poison,
        poison_at_s,
        _ms(fail_after_s),
        _ms(visibility_s),
        max_receives,
        fifo,
        duration_s,
    ).play()


class _Queue:
    """One run's state. Good messages are numbered in the order sent (message g arrives at
    second g // arrive_per_s) and, being taken oldest first, need no list of their own."""

    def __init__(
        self,
        workers: int,
        work_ms: int,
        rate: int,
        poison: int,
        poison_at_s: int,
        fail_ms: int,
        visibility_ms: int,
        max_receives: int,
        fifo: bool,
        duration_s: int,
    ) -> None:
        self.idle = workers
        self.work_ms, self.rate, self.poison = work_ms, rate, poison
        self.poison_at_s, self.fail_ms, self.visibility_ms = poison_at_s, fail_ms, visibility_ms
        self.max_receives, self.fifo, self.duration_s = max_receives, fifo, duration_s
        self.end_ms = duration_s * MS_PER_S
        self.goods = rate * duration_s  # every good message the run sends
        self.older_goods = min(self.goods, rate * (poison_at_s + 1))  # sent before the poison
        self.next_good = 0  # the oldest good message not yet received
        self.arrived_goods = 0
        self.poison_arrived = False
        self.receives = [0] * poison
        self.visible: list[int] = []  # poison messages visible now, by number (oldest first)
        self.events: list[tuple[int, int, int]] = []  # (time_ms, kind, poison number or -1)
        # fifo: the group's head is its oldest message not yet deleted or parked; `head_busy`
        # while it is with a worker or invisible. Position p < older_goods is good message
        # p; then the poison; then the later good messages.
        self.head = 0
        self.head_busy = False
        n = duration_s + 1  # per reading 1..duration_s (index 0 unused)
        self.done_at = [0] * n
        self.taken_at = [0] * n
        self.receives_at = [0] * n
        self.parked_at = [0] * n
        self.poison_ms = [0] * n

    def play(self) -> NoDlqRun:
        while True:
            now = self._next_time()
            if now is None or now > self.end_ms:
                break
            if now == self.end_ms:  # work ending on the last stroke was done in the last second
                while self.events and self.events[0][0] == now:
                    _, kind, _ = heapq.heappop(self.events)
                    if kind == GOOD_DONE:
                        self.done_at[self.duration_s] += 1
                break
            self._arrive(now)
            while self.events and self.events[0][0] == now:
                _, kind, number = heapq.heappop(self.events)
                self._happen(now, kind, number)
            self._dispatch(now)
        return self._readings()

    def _next_time(self) -> int | None:
        times = []
        if self.events:
            times.append(self.events[0][0])
        if self.arrived_goods < self.goods:
            times.append(self.arrived_goods // self.rate * MS_PER_S)
        if self.poison and not self.poison_arrived:
            times.append(self.poison_at_s * MS_PER_S)
        return min(times) if times else None

    def _arrive(self, now: int) -> None:
        while self.arrived_goods < self.goods and self.arrived_goods // self.rate * MS_PER_S <= now:
            self.arrived_goods += self.rate
        if self.poison and not self.poison_arrived and self.poison_at_s * MS_PER_S <= now:
            self.poison_arrived = True
            self.visible = list(range(self.poison))

    def _happen(self, now: int, kind: int, number: int) -> None:
        if kind != VISIBLE_AGAIN:  # a worker finished: a good message done, or a poison failed
            self.idle += 1
            if kind == GOOD_DONE:
                self.done_at[_reading_after(now)] += 1
                if self.fifo:
                    self.head, self.head_busy = self.head + 1, False
            return
        if self.max_receives and self.receives[number] >= self.max_receives:
            self.parked_at[_reading_from(now)] += 1
            if self.fifo:
                self.head, self.head_busy = self.head + 1, False
        elif self.fifo:
            self.head_busy = False
        else:
            heapq.heappush(self.visible, number)

    def _dispatch(self, now: int) -> None:
        while self.idle:
            picked = self._fifo_pick() if self.fifo else self._standard_pick()
            if picked is None:
                return
            self.idle -= 1
            if picked < 0:
                self._take_good(now)
            else:
                self._take_poison(now, picked)

    def _standard_pick(self) -> int | None:
        """-1 for the oldest good message, a poison message's number, or None: nothing."""
        good = self.next_good < self.arrived_goods
        if good and (self.next_good < self.older_goods or not self.visible):
            return -1
        if self.visible:
            return heapq.heappop(self.visible)
        return None

    def _fifo_pick(self) -> int | None:
        if self.head_busy:
            return None
        poison_end = self.older_goods + (self.poison if self.poison_arrived else 0)
        if self.older_goods <= self.head < poison_end:
            self.head_busy = True
            return self.head - self.older_goods
        if self.next_good < self.arrived_goods:
            self.head_busy = True
            return -1
        return None

    def _take_good(self, now: int) -> None:
        self.next_good += 1
        self.taken_at[_reading_from(now)] += 1
        heapq.heappush(self.events, (now + self.work_ms, GOOD_DONE, -1))

    def _take_poison(self, now: int, number: int) -> None:
        self.receives[number] += 1
        self.receives_at[_reading_from(now)] += 1
        heapq.heappush(self.events, (now + self.fail_ms, POISON_FAILED, number))
        heapq.heappush(self.events, (now + self.visibility_ms, VISIBLE_AGAIN, number))
        start, end = now, min(now + self.fail_ms, self.end_ms)
        while start < end:  # the worker's time on it, second by second
            reading = _reading_from(start)
            upto = min(end, reading * MS_PER_S)
            self.poison_ms[reading] += upto - start
            start = upto

    def _readings(self) -> NoDlqRun:
        run = NoDlqRun([], [], [], [], [], [], [])
        done = taken = receives = parked = 0
        for t in range(1, self.duration_s + 1):
            done += self.done_at[t]
            taken += self.taken_at[t]
            receives += self.receives_at[t]
            parked += self.parked_at[t]
            arrived = min(self.goods, self.rate * t)
            waiting = arrived - taken
            run.second.append(t)
            run.backlog.append(waiting)
            run.good_done.append(done)
            run.poison_receives.append(receives)
            run.poison_worker_s.append(self.poison_ms[t] / MS_PER_S)
            run.in_dlq.append(parked)
            run.oldest_age_s.append(t - taken // self.rate if waiting else 0)
        return run


def _reading_from(time_ms: int) -> int:
    """The reading whose second [t - 1, t) holds a moment that starts something."""
    return time_ms // MS_PER_S + 1


def _reading_after(time_ms: int) -> int:
    """The reading whose second (t - 1, t] holds a moment that ends something: work that
    ends at 1.0 s was done in the first second."""
    return -(-time_ms // MS_PER_S)
