"""Lesson 13 in one run: poison messages to the DLQ, retries with jitter, a shared breaker.

Runs the three failure experiments one after the other, each in its own namespace, and puts
their headline figures side by side (prefixed `poison_`, `retry_`, `breaker_`). The series
is the breaker's, the most time-shaped of the three; the others' are kept in `tables`.
"""

from __future__ import annotations

from typing import Any

from labs.experiments.flaky import flaky
from labs.experiments.harness import ShouldStop
from labs.experiments.metrics import OnSample
from labs.experiments.outage import outage
from labs.experiments.poison import poison


def failure(
    *,
    seed: int = 0,
    poison_params: dict[str, Any] | None = None,
    retry_params: dict[str, Any] | None = None,
    breaker_params: dict[str, Any] | None = None,
    on_sample: OnSample | None = None,
    should_stop: ShouldStop | None = None,
    redis_url: str | None = None,
) -> dict[str, Any]:
    """Run `poison`, `flaky` and `outage` with their defaults, or the params given for each.

    Each part keeps its own bounds and its own 60 s cap; the defaults take about 10 s in all.
    A part is skipped once `should_stop()` is true.
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
        if should_stop is not None and should_stop():
            summary["stopped_early"] = True
            break

        def tag(sample: dict[str, Any], name: str = name) -> None:
            if on_sample is not None:
                on_sample({"part": name} | sample)

        result = experiment(
            **(params or {}),
            seed=seed,
            on_sample=tag,
            should_stop=should_stop,
            redis_url=redis_url,
        )
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
