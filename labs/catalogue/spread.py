"""Noise made visible: a random lab run over 20 seeds in one task, beside the student's own.

A lab whose model draws random numbers shows one seed's result, and a student cannot tell
a lucky run from the rule. A runner that declares `SPREAD` gets one more parameter,
`over_seeds`: ticked, the same run is repeated with the next 19 seeds too, and the result
carries every seed's headline figures (a table of their range), a band over time of one
series, and a sentence saying whether the student's own seed is typical (the table and
the sentence are `labs.catalogue.spread_words`). It is one run
like any other: validated, result-stored, and within the run budget (its cost bound is
the lab's times the number of seeds).

A real-queue experiment plays its seeds one after another in the one task, each under a
namespace of its own inside the run's (`labs.runners.experiment.experiment_context`), so
each starts from empty keys and the run's cleanup still finds them all; only the student's
own seed keeps its DLQ for the queue panel. The live chart of one queue would mix twenty
runs, so the page says "seed k of 20" instead (`labs.web.presenters`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping
from typing import Any

from labs.catalogue.spread_words import seed_table, typical_words
from labs.charts import spread as spread_chart_builder
from labs.interface.figures import Figure
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.text import SEED_MAX, gettext, gettext_noop, num

SEEDS = 20
# The longest a real experiment's 20 seeds may hold a heavy worker, whatever the budget is
# set to: the task's time limit follows the bound (`time_limit_over_seeds`), and the
# broker's visibility timeout (300 s) must stay above that limit.
MAX_OVER_SEEDS_S = 110.0
# Beyond its cost bound a run's time limit leaves this much, as an experiment's does.
LIMIT_MARGIN_S = 15
OVER_SEEDS = Param(
    "over_seeds",
    gettext_noop("Also run 20 seeds"),
    "bool",
    False,
    gettext_noop(
        "Ticked: the same settings are run again with the next 19 seeds, so you can see "
        "how much of the result is chance."
    ),
    group=gettext_noop("Randomness"),  # beside the seed (labs.web.forms)
)


def seeds_after(seed: int, count: int = SEEDS) -> list[int]:
    """The student's seed and the next ones, wrapping below SEED_MAX."""
    return [(seed + i) % (SEED_MAX + 1) for i in range(count)]


def without_seeds(params: Mapping[str, Any]) -> dict[str, Any]:
    """The lab's own params: what its runner, model and checks know."""
    return {k: v for k, v in params.items() if k != OVER_SEEDS.name}


def over_seeds(
    run: Callable[[Mapping[str, Any], int, Progress], dict[str, Any]],
    spread: Spread,
    figures: tuple[Figure, ...],
) -> Callable[[Mapping[str, Any], int, Progress], dict[str, Any]]:
    """`run`, which with `over_seeds` ticked also plays the next 19 seeds."""

    def run_maybe_over_seeds(
        params: Mapping[str, Any], seed: int, progress: Progress
    ) -> dict[str, Any]:
        own = without_seeds(params)
        if not params.get(OVER_SEEDS.name):
            return run(own, seed, progress)
        seeds = seeds_after(seed)
        results = []
        for i, s in enumerate(seeds):
            if i and progress.should_stop():
                break  # out of time: the seeds done so far are the spread
            progress.update(i, len(seeds))  # the page says "seed i + 1 of 20" meanwhile
            results.append(run(own, s, _OneSeed(progress, i)))
        progress.update(len(results), len(seeds))
        result = results[0]
        if len(results) < len(seeds) and "stopped_early" in result["summary"]:
            result["summary"]["stopped_early"] = True
            result["summary"]["stop_reason"] = result["summary"]["stop_reason"] or "cancelled"
        result.setdefault("tables", {})
        result["tables"]["seed_spread"] = seed_table(results, figures)
        result["tables"]["seed_spread_data"] = _data(results, seeds[: len(results)], spread)
        return result

    return run_maybe_over_seeds


class _OneSeed:
    """One seed's progress inside the run: the outer loop reports the seeds as a whole, but
    a cancelled run still stops in the middle of a seed.

    An experiment reads two more things from it (`labs.runners.experiment`): `key_part`,
    the seed's own namespace inside the run's, and `keeps_dlq`, true for the student's own
    seed alone, whose DLQ the queue panel shows.
    """

    def __init__(self, outer: Progress, index: int) -> None:
        self.outer = outer
        self.run_key = outer.run_key
        self.key_part = f"seed-{index}"
        self.keeps_dlq = index == 0

    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        pass

    def sample(self, sample: dict[str, Any]) -> None:
        pass

    def should_stop(self) -> bool:
        return self.outer.should_stop()


def _data(results: list[dict[str, Any]], seeds: list[int], spread: Spread) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seeds": seeds,
        "figure": spread.figure,
        "values": [r["summary"].get(spread.figure) for r in results],
        "percent": spread.percent,
    }
    if spread.expected:
        data["expected"] = results[0]["summary"].get(spread.expected)
    if spread.x and spread.y:
        ys = [r["series"][spread.y] for r in results]
        length = min(len(y) for y in ys)
        columns = list(zip(*(y[:length] for y in ys), strict=True))
        data["band"] = {
            "x_label": spread.x_label,
            "y_label": spread.y_label or spread.y,
            "x": results[0]["series"][spread.x][:length],
            "low": [min(c) for c in columns],
            "median": [statistics.median(c) for c in columns],
            "high": [max(c) for c in columns],
            "own": ys[0][:length],
        }
    return data


def spread_charts(result: Mapping[str, Any], key: Figure) -> list[dict[str, Any]]:
    """The 20-seed charts of a result that has them, else none."""
    data = (result.get("tables") or {}).get("seed_spread_data")
    return spread_chart_builder.build(data, str(key.label)) if data else []


def with_spread(declared: dict[str, Any], spread: Spread) -> dict[str, Any]:
    """The lab's declarations with the 20-seed parameter, run, headline and cost added."""
    figures: tuple[Figure, ...] = declared["figures"]
    key = next((f for f in figures if f.name == spread.figure), None)
    if key is None:
        raise ValueError(f"SPREAD names {spread.figure!r}, which is not one of the lab's figures")
    headline, cost, check = declared["headline"], declared["cost"], declared["check"]
    experiment = declared["kind"] == "experiment"

    def check_own(params: Mapping[str, Any]) -> dict[str, str]:
        errors = check(without_seeds(params)) if check is not None else {}
        if experiment and cost is not None and params.get(OVER_SEEDS.name) and not errors:
            errors.update(_over_seeds_too_long(cost(without_seeds(params)).seconds))
        return errors

    def headline_with_spread(result: Mapping[str, Any]) -> list[str]:
        return [*headline(result), *typical_words(result, key)]

    def cost_over_seeds(params: Mapping[str, Any]) -> Any:
        bound = cost(without_seeds(params))
        if not params.get(OVER_SEEDS.name):
            return bound
        return type(bound)(bound.seconds * SEEDS, (*bound.drivers, OVER_SEEDS.name))

    return {
        **declared,
        "params": (*declared["params"], OVER_SEEDS),
        "charts_after": lambda result: spread_charts(result, key),
        "run": over_seeds(declared["run"], spread, figures),
        "headline": headline_with_spread,
        "cost": cost_over_seeds if cost is not None else None,
        "check": check_own if check is not None or experiment else None,
    }


def _over_seeds_too_long(one_s: float) -> dict[str, str]:
    """An experiment's 20 seeds run one after another: refused when together they could
    hold a worker longer than `MAX_OVER_SEEDS_S`, in words that say why it is twenty times."""
    if one_s * SEEDS <= MAX_OVER_SEEDS_S:
        return {}
    return {
        OVER_SEEDS.name: gettext(
            "One run of these settings could take %(one)s s of real time, so 20 seeds could "
            "take %(all)s s; 20 seeds may take at most %(most)s s. Untick it, or make one run "
            "shorter with the fields that set how long it holds a worker."
        )
        % {"one": num(one_s), "all": num(round(one_s * SEEDS)), "most": num(MAX_OVER_SEEDS_S)}
    }


def time_limit_over_seeds(time_limit_s: int, bound_s: float) -> int:
    """An experiment's 20-seed run's time limit: its bound (at most `MAX_OVER_SEEDS_S`) and
    the margin, and never less than one run's own limit."""
    return max(time_limit_s, math.ceil(bound_s) + LIMIT_MARGIN_S)
