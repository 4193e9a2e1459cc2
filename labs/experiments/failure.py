"""Lesson 13 in one run: poison messages to the DLQ, retries with jitter, a shared breaker.

Runs the three failure experiments one after the other, each in its own namespace, and puts
their headline figures side by side (prefixed `poison_`, `retry_`, `breaker_`). The series
is the breaker's, the most time-shaped of the three; the others' are kept in `tables`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.flaky import flaky
from labs.experiments.outage import outage
from labs.experiments.poison import poison


def failure(
    *,
    seed: int = 0,
    poison_params: dict[str, Any] | None = None,
    retry_params: dict[str, Any] | None = None,
    breaker_params: dict[str, Any] | None = None,
    context: ExperimentContext = LOCAL,
) -> dict[str, Any]:
    """Run `poison`, `flaky` and `outage` with their defaults, or the params given for each.

    Each part keeps its own bounds and its own 60 s cap; the defaults take about 10 s in all.
    A part is skipped once `context.should_stop()` is true. Each part gets the context's
    samples (tagged with the part's name), stop and server, in a namespace of its own;
    nothing is kept.
    """
    parts = (
        ("poison", poison, poison_params),
        ("retry", flaky, retry_params),
        ("breaker", outage, breaker_params),
    )
    summary: dict[str, Any] = {"seed": seed}
    tables: dict[str, Any] = {}
    series: dict[str, list[Any]] = {"t_s": []}
    for name, experiment, params in parts:
        if context.should_stop is not None and context.should_stop():
            summary["stopped_early"] = True
            break

        def tag(sample: dict[str, Any], name: str = name) -> None:
            if context.on_sample is not None:
                context.on_sample({"part": name} | sample)

        part = replace(context, on_sample=tag, namespace=None, keep_dlq=None)
        result = experiment(**(params or {}), seed=seed, context=part)
        summary |= {f"{name}_{k}": v for k, v in result["summary"].items() if k != "seed"}
        tables[name] = result["tables"]
        if name == "breaker":
            series = result["series"]
        else:
            tables[f"{name}_series"] = result["series"]
    summary.setdefault(
        "stopped_early", any(v for k, v in summary.items() if k.endswith("_stopped_early"))
    )
    return {"summary": summary, "series": series, "tables": tables}
