"""A pool of consumer threads, each with its own Redis connection, taking from one queue.

A worker loops: receive a batch, handle each message, acknowledge the ones that worked, and
report the ones that failed (they come back after the visibility timeout). Faults are
injected at fixed points: a planned crash kills the thread without acknowledging anything, as
a killed process would, and the pool can start a replacement the way a supervisor would.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import redis

from labs.experiments.faults import CrashPlan, WorkerCrash
from labs.experiments.limits import MAX_WORKERS, check_float, check_int
from labs.experiments.namespace import connect
from labs.experiments.queue import Message, RedisQueue

MAX_DELIVERY_LOG = 50_000
_REDIS_DOWN = (redis.ConnectionError, redis.TimeoutError)


@dataclass(frozen=True)
class WorkerContext:
    """What a worker's handler may use: its slot, its consumer name and its own connection."""

    index: int
    consumer: str
    r: redis.Redis


Handle = Callable[[Message], None]
MakeHandler = Callable[[WorkerContext], Handle]


@dataclass(frozen=True)
class Delivery:
    """One message handed to one worker, as the pool saw it."""

    number: int  # pool-wide, 0-based, in the order the pool saw them
    t_s: float  # seconds since the pool started
    consumer: str
    msg_id: str
    receives: int
    received_ms: int  # Redis server time


@dataclass
class _Slot:
    index: int
    generation: int
    retire: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


def _no_work(ctx: WorkerContext) -> Handle:
    return lambda message: None


class WorkerPool:
    """N consumer threads on one queue, with a planned crash list and an optional pace.

    - `make_handler(ctx)` is called once per worker thread to build its handler, so the handler
      can hold per-worker things (its connection, its own breaker). The handler raises to fail
      a message; raising `WorkerCrash` kills the worker.
    - `batch`: messages taken per receive; they are acknowledged together after handling.
    - `rate_per_worker`: if set, each worker spends 1/rate seconds of "work" per message; a
      worker held up (a busy CPU) may catch up on at most `pace_slack_s` of lost time.
    - `crash_plan`: deliveries at which a worker dies; `restart_crashed` starts a replacement.
    - `fail_retry_after_s`: None leaves a failed message hidden for the rest of its visibility
      timeout (SQS's default); a number makes it visible again after that many seconds.
    """

    def __init__(
        self,
        queue: RedisQueue,
        make_handler: MakeHandler | None = None,
        *,
        workers: int = 1,
        batch: int = 1,
        rate_per_worker: float | None = None,
        pace_slack_s: float = 0.02,
        crash_plan: CrashPlan | None = None,
        restart_crashed: bool = True,
        fail_retry_after_s: float | None = None,
        idle_wait_s: float = 0.005,
        url: str | None = None,
        name: str = "w",
    ) -> None:
        self.target_workers = check_int("workers", workers, 0, MAX_WORKERS)
        self.batch = check_int("batch", batch, 1, 1000)
        self.rate_per_worker = (
            None
            if rate_per_worker is None
            else check_float("rate_per_worker", rate_per_worker, 0.01, 100_000.0)
        )
        self.idle_wait_s = check_float("idle_wait_s", idle_wait_s, 0.0, 1.0)
        self.pace_slack_s = check_float("pace_slack_s", pace_slack_s, 0.0, 5.0)
        self.queue = queue
        self.make_handler = make_handler or _no_work
        self.crash_plan = crash_plan or CrashPlan()
        self.restart_crashed = restart_crashed
        self.fail_retry_after_s = fail_retry_after_s
        self.url = url
        self.name = name

        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._slots: dict[int, _Slot] = {}
        self._threads: list[threading.Thread] = []
        self._t0 = time.monotonic()
        self.deliveries: list[Delivery] = []
        self.delivered = 0
        self.acked = 0
        self.late_acks = 0  # acks that found the message no longer ours
        self.handled = 0
        self.failed = 0
        self.crashes = 0
        self.crashed_msg_ids: list[str] = []
        self.connection_errors = 0
        self.errors: list[str] = []  # unexpected exceptions: bugs, reported by tests

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> WorkerPool:
        """Start the workers; returns the pool so it can be chained."""
        self._t0 = time.monotonic()
        self.resize(self.target_workers)
        return self

    def resize(self, workers: int) -> None:
        """Run `workers` threads: start new ones, or let extra ones finish their batch and go."""
        check_int("workers", workers, 0, MAX_WORKERS)
        with self._lock:
            self.target_workers = workers
            for index in sorted(self._slots):
                if index >= workers:
                    self._slots.pop(index).retire.set()
            for index in range(workers):
                if index not in self._slots:
                    self._spawn(_Slot(index, 0))

    @property
    def active_workers(self) -> int:
        """How many worker slots are running (a crashed slot waiting to restart does not count)."""
        with self._lock:
            return len(self._slots)

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask every worker to finish its batch and stop, and wait for them."""
        self._stop.set()
        deadline = time.monotonic() + timeout_s
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> WorkerPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, slot: _Slot) -> None:
        # Caller holds self._lock.
        self._slots[slot.index] = slot
        slot.thread = threading.Thread(
            target=self._run, args=(slot,), name=f"{self.name}{slot.index}", daemon=True
        )
        self._threads.append(slot.thread)
        slot.thread.start()

    def consumer_name(self, index: int, generation: int = 0) -> str:
        """The consumer-group name (and Redis client name suffix) of a worker."""
        return f"{self.name}{index}g{generation}"

    # -- the worker loop ---------------------------------------------------------------------

    def _run(self, slot: _Slot) -> None:
        consumer = self.consumer_name(slot.index, slot.generation)
        r = connect(self.url, name=f"{self.queue.ns.prefix}{consumer}")
        queue = self.queue.with_client(r)
        try:
            handle = self.make_handler(WorkerContext(slot.index, consumer, r))
            self._loop(slot, consumer, queue, handle)
        except WorkerCrash:
            with self._lock:
                self.crashes += 1
                if self._slots.get(slot.index) is slot:
                    del self._slots[slot.index]
                    if self.restart_crashed and not self._stop.is_set():
                        self._spawn(_Slot(slot.index, slot.generation + 1))
        except Exception as error:  # a bug, not a planned fault: keep it for the report
            with self._lock:
                self.errors.append(f"{consumer}: {error!r}")
                if self._slots.get(slot.index) is slot:
                    del self._slots[slot.index]
        finally:
            r.close()

    def _loop(self, slot: _Slot, consumer: str, queue: RedisQueue, handle: Handle) -> None:
        next_free = time.monotonic()
        while not self._stop.is_set() and not slot.retire.is_set():
            try:
                messages = queue.receive(consumer, self.batch)
            except _REDIS_DOWN:
                self._connection_error()
                continue
            if not messages:
                time.sleep(self.idle_wait_s)
                next_free = time.monotonic()
                continue
            numbers = self._log(consumer, messages)
            done: list[Message] = []
            for number, message in zip(numbers, messages, strict=True):
                self._crash_point(number, "after_receive", message)
                try:
                    handle(message)
                except _REDIS_DOWN:
                    # Could not even record the effect: leave it in flight, it comes back.
                    self._connection_error()
                    continue
                except Exception as error:
                    self._count("failed")
                    try:
                        queue.fail(message, repr(error), retry_after_s=self.fail_retry_after_s)
                    except _REDIS_DOWN:
                        self._connection_error()
                    continue
                self._count("handled")
                self._crash_point(number, "after_effect", message)
                done.append(message)
            if self.rate_per_worker:
                # Pace the worker: each message costs 1/rate seconds; lost time is caught up
                # only within the slack, so a slow moment does not turn into a burst later.
                next_free = max(next_free, time.monotonic() - self.pace_slack_s)
                next_free += len(messages) / self.rate_per_worker
                # Woken by stop(): a slow worker's batch (20 jobs at 1 a second) would
                # otherwise hold the run up to the end of its pace (burst-live ran 50 s
                # against its 40 s bound this way).
                self._stop.wait(max(0.0, next_free - time.monotonic()))
            if done:
                try:
                    acked = queue.ack_many(done)
                except _REDIS_DOWN:
                    self._connection_error()
                    continue
                with self._lock:
                    self.acked += acked
                    self.late_acks += len(done) - acked

    def _crash_point(self, number: int, point: str, message: Message) -> None:
        try:
            self.crash_plan.check(number, point)
        except WorkerCrash:
            with self._lock:
                self.crashed_msg_ids.append(message.msg_id)
            raise

    def _log(self, consumer: str, messages: list[Message]) -> list[int]:
        t_s = time.monotonic() - self._t0
        with self._lock:
            first = self.delivered
            self.delivered += len(messages)
            if len(self.deliveries) < MAX_DELIVERY_LOG:
                self.deliveries += [
                    Delivery(first + i, t_s, consumer, m.msg_id, m.receives, m.received_ms)
                    for i, m in enumerate(messages)
                ]
        return list(range(first, first + len(messages)))

    def _count(self, name: str) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)

    def _connection_error(self) -> None:
        self._count("connection_errors")
        time.sleep(0.02)

    # -- reading -----------------------------------------------------------------------------

    def counters(self) -> dict[str, int]:
        """The pool's own counts, for a summary."""
        with self._lock:
            return {
                "delivered": self.delivered,
                "handled": self.handled,
                "failed": self.failed,
                "acked": self.acked,
                "late_acks": self.late_acks,
                "crashes": self.crashes,
                "connection_errors": self.connection_errors,
                "workers": len(self._slots),
            }
