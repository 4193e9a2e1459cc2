"""What every experiment is handed besides its own parameters, checked once.

The site, a test or a benchmark says where a run's keys live, how its live samples are
reported, when it must stop, and where its dead letters are kept afterwards; the
experiment says only what it does. One frozen object carries that, so each experiment
takes `context=` instead of the same six keywords, and the bounds live here.
"""

from __future__ import annotations

from dataclasses import dataclass

from labs.experiments.harness import ExperimentSession, ShouldStop
from labs.experiments.limits import check_float
from labs.experiments.metrics import OnSample
from labs.experiments.namespace import Namespace

# How often the queue is read for live samples: fast enough for a smooth chart, slow
# enough that the reads are a small share of what Redis does for the run.
MIN_SAMPLE_INTERVAL_S = 0.02
MAX_SAMPLE_INTERVAL_S = 5.0


@dataclass(frozen=True)
class ExperimentContext:
    """`on_sample(sample)` gets each live reading; `should_stop()` ends the run early;
    `sample_interval_s` None leaves the interval to the experiment; `redis_url` None is the
    default server; `namespace` None is a fresh random one; `keep_dlq` copies the DLQ there
    at the end (for the queue panel)."""

    on_sample: OnSample | None = None
    should_stop: ShouldStop | None = None
    sample_interval_s: float | None = None
    redis_url: str | None = None
    namespace: Namespace | None = None
    keep_dlq: Namespace | None = None

    def __post_init__(self) -> None:
        if self.sample_interval_s is not None:
            check_float(
                "sample_interval_s",
                self.sample_interval_s,
                MIN_SAMPLE_INTERVAL_S,
                MAX_SAMPLE_INTERVAL_S,
            )

    def interval_s(self, default_s: float) -> float:
        """The sampling interval: the one asked for, else the experiment's own default."""
        return self.sample_interval_s if self.sample_interval_s is not None else default_s

    def run(self, seed: int) -> ExperimentSession:
        """The experiment's `with` block: its namespace, connection, stop and cleanup."""
        return ExperimentSession(
            seed=seed, url=self.redis_url, should_stop=self.should_stop, namespace=self.namespace
        )


# No live samples, no stop but the time cap, a random namespace, nothing kept.
LOCAL = ExperimentContext()
