"""Answer fast, do the slow work later (Lesson 07): sending SMS inside the request or queuing it.

Teachers post urgent notices; each one is a text to `recipients` parents, sent to an SMS
provider in batches. Done **inside the request**, the web thread that took the post waits
for every batch: the teacher's answer takes as long as the provider does, a slow provider
holds every web thread (so even quick posts wait in line), and a provider that is down
turns posts into errors. **Queued**, the request only saves the notice and puts one job on
a queue (about 50 ms); workers send the batches, and when the provider is down the jobs
wait and are retried, so posting keeps working and the texts go out after it recovers.

Event by event in whole milliseconds; posts are evenly spaced and nothing is random, so a
run repeats exactly.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import Literal

Trouble = Literal["none", "slow", "down"]
TROUBLES: tuple[Trouble, ...] = ("none", "slow", "down")
RETRY_CAP_MS = 30_000  # a queued job's longest pause between tries


@dataclass(frozen=True)
class FanoutSetup:
    """One run's settings; the defaults are the lab's starting point."""

    posts_per_s: float = 1.0
    duration_s: int = 120
    recipients: int = 2_000  # parents per notice
    batch_size: int = 500  # texts per provider call
    provider_ms: int = 250  # one call when the provider is healthy
    trouble: Trouble = "down"
    trouble_from_s: int = 20
    trouble_until_s: int = 80
    slow_ms: int = 4_000  # one call while the provider is slow
    call_timeout_ms: int = 5_000  # the most the sender waits for one call
    web_threads: int = 8
    gateway_timeout_ms: int = 30_000  # the load balancer answers 504 after this
    save_ms: int = 40  # write the notice
    enqueue_ms: int = 10  # put one job on the queue
    sms_workers: int = 4

    def __post_init__(self) -> None:
        for name, low in (
            ("posts_per_s", 0.01),
            ("duration_s", 1),
            ("recipients", 1),
            ("batch_size", 1),
            ("provider_ms", 1),
            ("slow_ms", 1),
            ("call_timeout_ms", 1),
            ("web_threads", 1),
            ("gateway_timeout_ms", 1),
            ("save_ms", 0),
            ("enqueue_ms", 0),
            ("sms_workers", 1),
            ("trouble_from_s", 0),
        ):
            value = getattr(self, name)
            if value < low:
                raise ValueError(f"{name} must be >= {low}, got {value}")
        if self.trouble not in TROUBLES:
            raise ValueError(f"trouble must be one of {TROUBLES}, got {self.trouble!r}")
        if self.trouble_until_s < self.trouble_from_s:
            raise ValueError(
                f"trouble_until_s must be >= trouble_from_s ({self.trouble_from_s}), "
                f"got {self.trouble_until_s}"
            )

    @property
    def batches(self) -> int:
        return math.ceil(self.recipients / self.batch_size)

    @property
    def posts(self) -> int:
        return int(self.posts_per_s * self.duration_s)

    def call(self, t_ms: int) -> tuple[int, bool]:
        """(how long one provider call started at `t_ms` takes, did it send its batch)."""
        troubled = self.trouble_from_s * 1000 <= t_ms < self.trouble_until_s * 1000
        if troubled and self.trouble == "down":
            return self.call_timeout_ms, False  # nothing answers: the sender gives up
        wait_ms = self.slow_ms if troubled and self.trouble == "slow" else self.provider_ms
        if wait_ms > self.call_timeout_ms:
            return self.call_timeout_ms, False
        return wait_ms, True


@dataclass
class FanoutSecond:
    second: int
    posts: int = 0
    answered: int = 0  # posts the teacher got a success for
    failed: int = 0  # posts answered with an error (500 from the app, 504 from the gateway)
    texts_sent: int = 0
    busy: int = 0  # the most web threads (inside) or sending workers (queued) busy at once
    waiting: int = 0  # the most posts waiting for a web thread, or jobs waiting in the queue


@dataclass
class FanoutRun:
    """One mode's run: every post's answer time and what reached the parents."""

    mode: Literal["request", "queue"]
    setup: FanoutSetup
    seconds: list[FanoutSecond]
    answers: list[tuple[int, int]] = field(default_factory=list)  # (posted at, answer) in ms
    failed: int = 0
    texts_sent: int = 0
    notices_complete: int = 0  # notices every parent got within the run
    delivery_s: list[float] = field(default_factory=list)  # post → its last text, per notice
    oldest_wait_s: float = 0.0  # the longest a queued job waited for its first try

    @property
    def answer_ms(self) -> list[int]:
        """How long each teacher waited for an answer (a success or an error)."""
        return [ms for _, ms in self.answers]

    def worst_answer_ms(self) -> list[int | None]:
        """For each second, the longest answer to a post made in it (None: no answer)."""
        worst: list[int | None] = [None] * len(self.seconds)
        for posted_ms, ms in self.answers:
            i = posted_ms // 1000
            current = worst[i]
            worst[i] = ms if current is None else max(current, ms)
        return worst

    def percentile_ms(self, p: float) -> float | None:
        """The p-th percentile of the teachers' answer times (nearest rank)."""
        if not self.answer_ms:
            return None
        ordered = sorted(self.answer_ms)
        rank = max(1, math.ceil(p / 100 * len(ordered)))
        return float(ordered[rank - 1])


def play_fanout(setup: FanoutSetup, mode: Literal["request", "queue"]) -> FanoutRun:
    """Play every post of `setup` with the texts sent inside the request, or queued."""
    if mode == "request":
        return _InsideRequest(setup).play()
    if mode == "queue":
        return _Queued(setup).play()
    raise ValueError(f"mode must be 'request' or 'queue', got {mode!r}")


class _Loop:
    """Events (time_ms, order, kind, payload) in time order, up to the end of the run."""

    mode: Literal["request", "queue"]

    def __init__(self, setup: FanoutSetup) -> None:
        self.s = setup
        self.end_ms = setup.duration_s * 1000
        self.run = FanoutRun(self.mode, setup, [FanoutSecond(i) for i in range(setup.duration_s)])
        self.events: list[tuple[int, int, str, object]] = []
        self.order = 0
        self.busy = 0
        self.waiting: list[object] = []
        self.head = 0

    def push(self, t_ms: int, kind: str, payload: object) -> None:
        self.order += 1
        heapq.heappush(self.events, (t_ms, self.order, kind, payload))

    def row(self, t_ms: int) -> FanoutSecond | None:
        i = t_ms // 1000
        return self.run.seconds[i] if i < len(self.run.seconds) else None

    def play(self) -> FanoutRun:
        gap_ms = 1000 / self.s.posts_per_s
        for i in range(self.s.posts):
            self.push(int(i * gap_ms), "post", int(i * gap_ms))
        while self.events:
            t_ms, _, kind, payload = heapq.heappop(self.events)
            if t_ms >= self.end_ms:
                break
            getattr(self, "on_" + kind)(t_ms, payload)
            row = self.row(t_ms)
            if row is not None:
                row.busy = max(row.busy, self.busy)
                row.waiting = max(row.waiting, len(self.waiting) - self.head)
        return self.run

    def answer(self, t_ms: int, posted_ms: int, ok: bool) -> None:
        """The teacher gets an answer: a success, or an error."""
        run = self.run
        run.answers.append((posted_ms, t_ms - posted_ms))
        row = self.row(t_ms)
        if ok:
            if row is not None:
                row.answered += 1
        else:
            run.failed += 1
            if row is not None:
                row.failed += 1

    def sent(self, t_ms: int, texts: int) -> None:
        self.run.texts_sent += texts
        row = self.row(t_ms)
        if row is not None:
            row.texts_sent += texts

    def texts_in(self, batch: int) -> int:
        s = self.s
        return min(s.batch_size, s.recipients - batch * s.batch_size)


class _InsideRequest(_Loop):
    """The web thread sends every batch itself before it answers the teacher."""

    mode = "request"

    def __init__(self, setup: FanoutSetup) -> None:
        super().__init__(setup)
        self.settled: set[int] = set()  # posts whose teacher already has an answer

    def on_post(self, t_ms: int, posted_ms: int) -> None:
        self.row(t_ms).posts += 1  # type: ignore[union-attr]  # posts start inside the run
        self.push(t_ms + self.s.gateway_timeout_ms, "gateway_timeout", posted_ms)
        if self.busy < self.s.web_threads:
            self.start(t_ms, posted_ms)
        else:
            self.waiting.append(posted_ms)

    def start(self, t_ms: int, posted_ms: int) -> None:
        self.busy += 1
        self.push(t_ms + self.s.save_ms, "call", (posted_ms, 0))

    def on_call(self, t_ms: int, payload: tuple[int, int]) -> None:
        posted_ms, batch = payload
        wait_ms, ok = self.s.call(t_ms)
        self.push(t_ms + wait_ms, "called", (posted_ms, batch, ok))

    def on_called(self, t_ms: int, payload: tuple[int, int, bool]) -> None:
        posted_ms, batch, ok = payload
        if ok:
            self.sent(t_ms, self.texts_in(batch))
            if batch + 1 < self.s.batches:
                self.push(t_ms, "call", (posted_ms, batch + 1))
                return
            self.run.notices_complete += 1
            self.run.delivery_s.append((t_ms - posted_ms) / 1000)
        self.finish(t_ms, posted_ms, ok)  # a failed call ends the request with an error

    def finish(self, t_ms: int, posted_ms: int, ok: bool) -> None:
        self.busy -= 1
        if self.head < len(self.waiting):
            nxt = self.waiting[self.head]
            self.head += 1
            self.start(t_ms, nxt)  # type: ignore[arg-type]
        self.answer(t_ms, posted_ms, ok)

    def on_gateway_timeout(self, t_ms: int, posted_ms: int) -> None:
        # The teacher now has a 504, whether or not the app is still sending; the app's own
        # answer, if it comes later, reaches nobody.
        if posted_ms not in self.settled:
            self.settled.add(posted_ms)
            super().answer(t_ms, posted_ms, False)

    def answer(self, t_ms: int, posted_ms: int, ok: bool) -> None:
        if posted_ms not in self.settled:
            self.settled.add(posted_ms)
            super().answer(t_ms, posted_ms, ok)


@dataclass
class _Job:
    posted_ms: int
    batch: int = 0
    tries: int = 0  # failed tries of the current batch
    first_try_ms: int | None = None


class _Queued(_Loop):
    """The request saves the notice and queues one job; workers send, retry and wait."""

    mode = "queue"

    def on_post(self, t_ms: int, posted_ms: int) -> None:
        self.row(t_ms).posts += 1  # type: ignore[union-attr]
        self.push(t_ms + self.s.save_ms + self.s.enqueue_ms, "queued", posted_ms)

    def on_queued(self, t_ms: int, posted_ms: int) -> None:
        self.answer(t_ms, posted_ms, True)  # 201: the notice is saved and its job queued
        self.offer(t_ms, _Job(posted_ms))

    def offer(self, t_ms: int, job: _Job) -> None:
        if self.busy < self.s.sms_workers:
            self.take(t_ms, job)
        else:
            self.waiting.append(job)

    def take(self, t_ms: int, job: _Job) -> None:
        self.busy += 1
        if job.first_try_ms is None:
            job.first_try_ms = t_ms
            self.run.oldest_wait_s = max(self.run.oldest_wait_s, (t_ms - job.posted_ms) / 1000)
        wait_ms, ok = self.s.call(t_ms)
        self.push(t_ms + wait_ms, "called", (job, ok))

    def on_called(self, t_ms: int, payload: tuple[_Job, bool]) -> None:
        job, ok = payload
        self.busy -= 1
        if ok:
            self.sent(t_ms, self.texts_in(job.batch))
            job.batch, job.tries = job.batch + 1, 0
            if job.batch == self.s.batches:
                self.run.notices_complete += 1
                self.run.delivery_s.append((t_ms - job.posted_ms) / 1000)
            else:
                self.waiting.append(job)  # the next batch goes to the back of the queue
        else:
            job.tries += 1
            pause_ms = min(RETRY_CAP_MS, 1000 * 2 ** (job.tries - 1))
            self.push(t_ms + pause_ms, "retry", job)
        self.next_job(t_ms)

    def on_retry(self, t_ms: int, job: _Job) -> None:
        self.offer(t_ms, job)

    def next_job(self, t_ms: int) -> None:
        while self.busy < self.s.sms_workers and self.head < len(self.waiting):
            job = self.waiting[self.head]
            self.head += 1
            self.take(t_ms, job)  # type: ignore[arg-type]
