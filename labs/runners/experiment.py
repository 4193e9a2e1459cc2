"""What the real-experiment runners share: where a run's keys live, live samples, the kept DLQ.

A run started from the site keeps its Redis keys under a namespace named after the run
(`qlab:{run-<id>}:`), with a short TTL, so whoever finds the run abandoned (its worker
killed) can delete them. Its dead-letter queue is copied at the end into a second namespace
(`qlab:{run-<id>-dlq}:`) that lives for `KEPT_DLQ_S`, where the queue panel can show and
redrive it. A run with no `run_key` (the `lab` command, tests) uses random namespaces and
keeps nothing. Django-free: the task and the panel import this, not the reverse.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from labs.experiments.metrics import OnSample
from labs.experiments.namespace import Namespace
from labs.figures import Figure
from labs.progress import Progress

# Refreshed by every write, so twice the longest run (60 s): a killed run's keys are gone
# two minutes after its last write even if nobody cleans them.
RUN_KEY_TTL_S = 120.0
# How long a run's DLQ stays after the run, for the queue panel.
KEPT_DLQ_S = 3600.0
# One reading of the queue every 0.1 s: 600 samples in the longest run.
SAMPLE_INTERVAL_S = 0.1


def run_key_for(run_pk: Any) -> str:
    """The namespace id of a saved run: `run-` and its UUID's hex."""
    return f"run-{uuid.UUID(str(run_pk)).hex}"


def run_namespace(run_key: str) -> Namespace:
    """Where the experiment of run `run_key` keeps its keys while it runs."""
    return Namespace(run_key, ttl_s=RUN_KEY_TTL_S)


def kept_id(run_key: str) -> str:
    """The namespace id of run `run_key`'s kept DLQ."""
    return f"{run_key}-dlq"


def kept_namespace(run_key: str) -> Namespace:
    """Where run `run_key`'s DLQ is kept after it ends, for `KEPT_DLQ_S`."""
    return Namespace(kept_id(run_key), ttl_s=KEPT_DLQ_S)


def live_sampler(progress: Progress, keys: Iterable[str]) -> OnSample:
    """An `on_sample` that reports the `keys` of each sample (floats to 3 places) to progress."""
    wanted = tuple(keys)

    def on_sample(sample: dict[str, Any]) -> None:
        progress.sample(
            {
                k: round(v, 3) if isinstance(v, float) else v
                for k, v in sample.items()
                if k in wanted
            }
        )

    return on_sample


def experiment_kwargs(
    progress: Progress,
    keys: Iterable[str],
    *,
    keep: bool,
    sample_interval_s: float | None = SAMPLE_INTERVAL_S,
) -> dict[str, Any]:
    """The keywords an experiment takes from the site: live samples, stop, namespaces.

    `keep`: copy the run's DLQ for the queue panel. `sample_interval_s` None leaves the
    interval to the experiment.
    """
    kwargs: dict[str, Any] = {
        "on_sample": live_sampler(progress, keys),
        "should_stop": progress.should_stop,
    }
    if sample_interval_s is not None:
        kwargs["sample_interval_s"] = sample_interval_s
    if progress.run_key:
        kwargs["namespace"] = run_namespace(progress.run_key)
        if keep:
            kwargs["keep_dlq"] = kept_namespace(progress.run_key)
    return kwargs


# The figures every experiment reports about the run itself, last in its summary.
FOOTER_FIGURES = (
    Figure("wall_s", "Wall time of the run", "float", "s"),
    Figure("stopped_early", "Stopped before the end", "bool"),
    Figure("stop_reason", "Why it stopped early", "str"),
    Figure("keys_left", "Redis keys left after the run", "int", "keys"),
)


def run_footer(summary: dict[str, Any]) -> dict[str, Any]:
    """The run's own figures from an experiment's summary, in `FOOTER_FIGURES` order."""
    return {f.name: summary[f.name] for f in FOOTER_FIGURES}
