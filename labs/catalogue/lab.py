"""What a lab is: its parameters, runner, charts, headline, figures and live view.

`labs.catalogue.entries` holds the list; this module holds only the shape of one entry,
so the runners and charts never need the list to describe themselves.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from labs.catalogue.advice import Production, TryNext
from labs.catalogue.spread import (
    LIMIT_MARGIN_S,
    OVER_SEEDS,
    SEEDS,
    time_limit_over_seeds,
    with_spread,
)
from labs.experiments.limits import MAX_WALL_S
from labs.interface.figures import Figure
from labs.interface.live import LiveView
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.experiment import ending_if_stopped

Result = dict[str, Any]
# An experiment stops itself at MAX_WALL_S of wall time; the margin covers start-up and cleanup.
EXPERIMENT_TIME_LIMIT_S = int(MAX_WALL_S) + LIMIT_MARGIN_S
Runner = Callable[[Mapping[str, Any], int, Progress], Result]


@dataclass(frozen=True)
class Lab:
    """One runnable lab of a unit of the course."""

    slug: str
    unit: str  # the slug of the unit (lesson) it belongs to
    title: str
    intro: str  # what the student will see, in a sentence or two
    params: tuple[Param, ...]
    run: Runner  # (params, seed, progress) -> {"summary", "series", "tables"}
    charts: Callable[[Result], list[dict[str, Any]]]  # result -> Plotly figures
    headline: Callable[[Result], list[str]]  # result -> sentences a student reads
    check: Callable[[Mapping[str, Any]], dict[str, str]] | None = None  # cross-field checks
    kind: Literal["sim", "experiment"] = "sim"  # experiments use the real Redis
    uses_seed: bool = False  # random draws: the seed is shown and can be set
    default_seed: int = 1  # the seed the form offers first (the lesson's, where it has one)
    time_limit_s: int = 30  # a run longer than this is stopped and marked failed
    figures: tuple[Figure, ...] = ()  # the summary's keys, which teachers grade on
    # Offers "Run before/after": the same seed with the controls off, then on, and a
    # report comparing the two (labs.capstone.report).
    before_after: bool = False
    live: LiveView | None = None  # experiments: what the page shows while the run goes
    keeps_dlq: bool = False  # experiments: the DLQ is kept after the run for the queue panel
    # After a result: one or two changes worth trying, each with the question it answers.
    try_next: tuple[TryNext, ...] = ()
    # Beside the lab: its settings as real systems spell them, from the current values.
    in_production: Production | None = None
    # An upper bound on a run's worker time from its params (`labs.sim.capstone.cost.Cost`):
    # over the budget the form refuses; above `LAB_HEAVY_FROM_S` the run goes to the heavy queue.
    cost: Callable[[Mapping[str, Any]], Any] | None = None
    # A random lab too long to run over 20 seeds names the simulated lab of the same model
    # whose page offers them; its own page says so (tests/test_spread.py holds the rule).
    seeds_twin: str = ""

    @classmethod
    def from_runner(cls, runner: Any, **entry: Any) -> Lab:
        """A lab whose runner module says how it runs; `entry` gives the rest.

        The runner module declares, once, what belongs to it: `PARAMS`, `run`, `headline`,
        `FIGURES`, and optionally `check`, `KIND` ("experiment" for the real-Redis labs),
        `USES_SEED`, `DEFAULT_SEED`, `KEEPS_DLQ`, `cost` and `TIME_LIMIT_S` (an experiment's default
        is `EXPERIMENT_TIME_LIMIT_S`). The entry names the slug, unit, title, intro, charts
        and what the page adds (`live`, `before_after`, `links`). An experiment's headline
        gets the stopped-early sentence here (`ending_if_stopped`), not in each runner.
        """
        kind = getattr(runner, "KIND", "sim")
        declared: dict[str, Any] = {
            "params": runner.PARAMS,
            "run": runner.run,
            # An experiment's headline ends saying why, when the run was stopped early.
            "headline": ending_if_stopped(runner.headline)
            if kind == "experiment"
            else runner.headline,
            "figures": runner.FIGURES,
            "check": getattr(runner, "check", None),
            "kind": kind,
            "uses_seed": getattr(runner, "USES_SEED", False),
            "default_seed": getattr(runner, "DEFAULT_SEED", 1),
            "keeps_dlq": getattr(runner, "KEEPS_DLQ", False),
            "cost": getattr(runner, "cost", None),
            "time_limit_s": getattr(
                runner, "TIME_LIMIT_S", EXPERIMENT_TIME_LIMIT_S if kind == "experiment" else 30
            ),
        }
        spread = getattr(runner, "SPREAD", None)
        if spread is not None and declared["uses_seed"]:
            declared = with_spread(declared, spread)
            more_charts = declared.pop("charts_after")
            lab_charts = entry["charts"]
            entry["charts"] = lambda result: [*lab_charts(result), *more_charts(result)]
        twice = declared.keys() & entry.keys()
        if twice:
            name = getattr(runner, "__name__", repr(runner))
            raise TypeError(f"{name} declares {', '.join(sorted(twice))} already")
        return cls(**declared, **entry)

    def time_limit_for(self, params: Mapping[str, Any]) -> int:
        """The run's time limit: the lab's own, except for an experiment's 20 seeds, which
        run one after another and are held to their cost bound and a margin instead."""
        if self.kind == "experiment" and params.get(OVER_SEEDS.name) and self.cost is not None:
            return time_limit_over_seeds(self.time_limit_s, self.cost(params).seconds)
        return self.time_limit_s

    def over_seeds_minutes(self) -> int:
        """How many minutes 20 seeds of the lesson's settings could hold a worker: the
        figure the page of a lab too long for them gives (`seeds_twin`)."""
        if self.cost is None:
            return 0
        return math.ceil(self.cost(self.defaults()).seconds * SEEDS / 60)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    def figure(self, name: str) -> Figure | None:
        """The summary figure called `name`, or None if the lab reports none by that name."""
        for f in self.figures:
            if f.name == name:
                return f
        return None

    def describe(self) -> dict[str, Any]:
        """JSON-ready description for `lab list --json`."""
        return {
            "slug": self.slug,
            "unit": self.unit,
            "title": str(self.title),
            "kind": self.kind,
            "uses_seed": self.uses_seed,
            "params": [p.describe() for p in self.params],
            "figures": [f.name for f in self.figures],
        }
