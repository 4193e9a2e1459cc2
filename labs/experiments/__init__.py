"""Real queue experiments on a real Redis server, importable without Django.

`RedisQueue` gives SQS's rules (visibility timeout, receive count, dead-letter queue,
redrive, retention) on one Redis stream, and `FifoQueue` SQS FIFO's message groups and
deduplication; `WorkerPool` runs consumer threads with injected faults; `Sampler` and
`queue_panel` read the live queue. The lab entry points (`fanout`, `burst`, `poison`,
`flaky`, `outage`, `failure`, `fifo_vs_standard`) each take plain parameters, a seed and
a `context` (`ExperimentContext`: live samples, stop, server, namespace, where to keep the
DLQ; default `LOCAL`), and return the lab result dict `{"summary", "series", "tables"}`.
Every run owns a key namespace that it deletes at the end: a random one, or the context's
`namespace` (so a supervisor can find and delete the keys of a run whose process was
killed). Those with a dead-letter queue copy it into the context's `keep_dlq` namespace just
before the cleanup, so it can still be inspected and redriven.
"""

from labs.experiments.breaker import RedisBreakerStorage, shared_breaker
from labs.experiments.burst import LESSON_12_ARRIVALS, burst
from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.dlq import (
    RedriveReport,
    copy_dead_letters,
    keep_dead_letters,
    open_kept,
    redrive_all,
)
from labs.experiments.effects import Effects
from labs.experiments.failure import failure
from labs.experiments.fanout import fanout
from labs.experiments.faults import CrashAt, CrashPlan, Poison, StandInService, WorkerCrash
from labs.experiments.fifo import fifo_vs_standard
from labs.experiments.fifo_queue import FifoQueue
from labs.experiments.flaky import flaky
from labs.experiments.harness import ExperimentSession
from labs.experiments.metrics import Sampler, drain_estimate_s, queue_panel, queue_reader
from labs.experiments.namespace import Namespace, connect, redis_url
from labs.experiments.outage import outage
from labs.experiments.poison import poison
from labs.experiments.queue import DeadLetter, Message, QueueStats, RedisQueue
from labs.experiments.retries import FullJitter, retrying
from labs.experiments.workers import WorkerPool

__all__ = [
    "LOCAL",
    "ExperimentContext",
    "LESSON_12_ARRIVALS",
    "CrashAt",
    "CrashPlan",
    "DeadLetter",
    "Effects",
    "FifoQueue",
    "FullJitter",
    "Message",
    "Namespace",
    "Poison",
    "QueueStats",
    "RedisBreakerStorage",
    "RedisQueue",
    "RedriveReport",
    "ExperimentSession",
    "Sampler",
    "StandInService",
    "WorkerCrash",
    "WorkerPool",
    "burst",
    "connect",
    "copy_dead_letters",
    "drain_estimate_s",
    "failure",
    "fanout",
    "fifo_vs_standard",
    "keep_dead_letters",
    "flaky",
    "open_kept",
    "outage",
    "poison",
    "queue_panel",
    "queue_reader",
    "redis_url",
    "redrive_all",
    "retrying",
    "shared_breaker",
]
