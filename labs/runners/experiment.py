"""What the real-experiment runners share: the run's namespaces, live samples, the footer.

A run started from the site keeps its Redis keys under namespaces named after the run
(`labs.experiments.namespace.run_namespace` / `kept_namespace`); a run with no `run_key`
(the `lab` command, tests) uses random namespaces and keeps nothing. Django-free.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from labs.experiments.context import ExperimentContext
from labs.experiments.metrics import OnSample
from labs.experiments.namespace import kept_namespace, run_namespace
from labs.interface.figures import Figure
from labs.interface.progress import Progress
from labs.sim.capstone.cost import Cost
from labs.text import gettext, gettext_noop

# One reading of the queue every 0.1 s: 600 samples in the longest run.
SAMPLE_INTERVAL_S = 0.1


def live_sampler(
    progress: Progress,
    keys: Iterable[str],
    words: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> OnSample:
    """An `on_sample` that reports the `keys` of each sample (floats to 3 places) to progress.

    `words` adds to a sample what the live view says in words (phrases, said at render).
    """
    wanted = tuple(keys)

    def on_sample(sample: dict[str, Any]) -> None:
        reported = {
            k: round(v, 3) if isinstance(v, float) else v for k, v in sample.items() if k in wanted
        }
        progress.sample(reported | (words(sample) if words else {}))

    return on_sample


def experiment_context(
    progress: Progress,
    keys: Iterable[str],
    *,
    keep: bool,
    sample_interval_s: float | None = SAMPLE_INTERVAL_S,
    words: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> ExperimentContext:
    """What an experiment takes from the site: live samples, stop, the run's namespaces.

    `keep`: copy the run's DLQ for the queue panel. `sample_interval_s` None leaves the
    interval to the experiment. One seed of a run over 20 (`labs.catalogue.spread`) says
    which part of the run's namespace is its own (`key_part`), so each seed starts from
    empty keys and the run's cleanup still finds them, and whether its DLQ is the one kept.
    """
    namespace = keep_dlq = None
    if progress.run_key:
        namespace = run_namespace(progress.run_key)
        part = getattr(progress, "key_part", None)
        if part:
            namespace = namespace.child(part)
        if keep and getattr(progress, "keeps_dlq", True):
            keep_dlq = kept_namespace(progress.run_key)
    return ExperimentContext(
        on_sample=live_sampler(progress, keys, words),
        should_stop=progress.should_stop,
        sample_interval_s=sample_interval_s,
        namespace=namespace,
        keep_dlq=keep_dlq,
    )


# The figures every experiment reports about the run itself, last in its summary.
FOOTER_FIGURES = (
    Figure("wall_s", gettext_noop("Wall time of the run"), "float", gettext_noop("s")),
    Figure("stopped_early", gettext_noop("Stopped before the end"), "bool"),
    Figure("stop_reason", gettext_noop("Why it stopped early"), "str"),
    Figure("keys_left", gettext_noop("Redis keys left after the run"), "int", gettext_noop("keys")),
)


# Why a harness stops a run early (`stop_reason`), for the catalogue.
STOP_REASONS = (gettext_noop("cancelled"), gettext_noop("time cap"))


def stopped_early(summary: Mapping[str, Any]) -> str:
    """The sentence a headline ends with when the run was stopped before the end."""
    reason = summary.get("stop_reason") or ""
    return gettext("The run stopped early (%(reason)s).") % {
        "reason": gettext(reason) if reason else "—"
    }


def ending_if_stopped(
    headline: Callable[[Mapping[str, Any]], list[str]],
) -> Callable[[Mapping[str, Any]], list[str]]:
    """An experiment's headline with `stopped_early`'s sentence last when the run was
    stopped before the end: the catalogue wraps every experiment's, so none forgets it."""

    def lines(result: Mapping[str, Any]) -> list[str]:
        said = headline(result)
        if result["summary"].get("stopped_early"):
            said.append(stopped_early(result["summary"]))
        return said

    return lines


def run_footer(summary: dict[str, Any]) -> dict[str, Any]:
    """The run's own figures from an experiment's summary, in `FOOTER_FIGURES` order."""
    return {f.name: summary[f.name] for f in FOOTER_FIGURES}


# Seconds an experiment holds its worker beyond its own timeline: opening the run's Redis
# namespace, starting and joining its worker threads and sampler, deleting its keys (up to
# 2 x 10,000 messages) and keeping its DLQ. Measured by `bench/bench_worst_case.py
# --experiments` (docs/benchmarks.md), with room for a loaded machine.
SETUP_S = 2.0


def wall_cost(timeline_s: float, drivers: tuple[str, ...]) -> Cost:
    """An experiment's cost: the wall seconds of one heavy worker process it holds.

    `timeline_s` is what its parameters ask for (arrivals, retries, outages, all in real
    seconds); the fields in `drivers` are the ones a student lowers to shorten it.
    """
    return Cost(round(timeline_s + SETUP_S, 1), drivers)
