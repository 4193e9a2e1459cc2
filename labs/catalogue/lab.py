"""What a lab is: its parameters, runner, charts, headline, figures, prompts and live view.

Each lab's folder builds its own (`labs/course/<unit>/<lab>/lab.py`, `LAB = Lab.of(...)`);
`labs.catalogue.entries` holds the one list; this module holds only the shape of one entry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from labs.catalogue.advice import Production, TryNext
from labs.catalogue.prediction import Prompt
from labs.catalogue.spread import (
    LIMIT_MARGIN_S,
    OVER_SEEDS,
    SEEDS,
    time_limit_over_seeds,
    with_spread,
)
from labs.experiments.limits import MAX_WALL_S
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.live import LiveView
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.experiment import ending_if_stopped

Result = dict[str, Any]
# An experiment stops itself at MAX_WALL_S of wall time; the margin covers start-up and cleanup.
EXPERIMENT_TIME_LIMIT_S = int(MAX_WALL_S) + LIMIT_MARGIN_S
Runner = Callable[[Mapping[str, Any], int, Progress], Result]
Charts = Callable[[Result], list[dict[str, Any]]]  # result -> Plotly figures


@dataclass(frozen=True)
class Lab:
    """One runnable lab of a unit of the course."""

    slug: str
    unit: str  # the slug of the unit (lesson) it belongs to
    title: str
    intro: str  # what the student will see, in a sentence or two
    params: tuple[Param, ...]
    run: Runner  # (params, seed, progress) -> {"summary", "series", "tables"}
    charts: Charts
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
    # whose page offers them; its own page says so (tests/labs/catalogue/test_spread.py
    # holds the rule).
    seeds_twin: str = ""
    # Asked before a run, each answered by one of the lab's figures (labs.catalogue.prediction).
    prompts: tuple[Prompt, ...] = ()
    # Its own series' names (key -> English msgid) for the numbers table and the compare page,
    # where its charts name none; the names several labs share are labs.web.series_names'.
    series_names: Mapping[str, str] = field(default_factory=dict)
    # What the model leaves out and which of its numbers a real system would beat or miss, in
    # two to four plain sentences (an English msgid): a student should know how far to trust
    # a figure before carrying it to production. Shown under "About this lab".
    leaves_out: str = ""

    @classmethod
    def of(
        cls,
        runner: LabRunner,
        *,
        slug: str,
        unit: str,
        title: str,
        intro: str,
        charts: Charts,
        prompts: tuple[Prompt, ...] = (),
        try_next: tuple[TryNext, ...] = (),
        in_production: Production | None = None,
        live: LiveView | None = None,
        before_after: bool = False,
        seeds_twin: str = "",
        series_names: Mapping[str, str] | None = None,
        leaves_out: str = "",
    ) -> Lab:
        """A lab from its runner's declaration and the words of its entry.

        What every runner gets from the site is added here, once: an experiment's headline
        ends saying why, when the run was stopped early (`ending_if_stopped`), and a random
        lab that declares a `spread` gets the 20-seed parameter, run, sentence and charts.
        """
        experiment = runner.kind == "experiment"
        declared: dict[str, Any] = {
            "params": runner.params,
            "run": runner.run,
            "headline": ending_if_stopped(runner.headline) if experiment else runner.headline,
            "figures": runner.figures,
            "check": runner.check,
            "kind": runner.kind,
            "uses_seed": runner.uses_seed,
            "default_seed": runner.default_seed,
            "keeps_dlq": runner.keeps_dlq,
            "cost": runner.cost,
            "time_limit_s": runner.time_limit_s
            if runner.time_limit_s is not None
            else (EXPERIMENT_TIME_LIMIT_S if experiment else 30),
        }
        if runner.spread is not None and runner.uses_seed:
            declared = with_spread(declared, runner.spread)
            more_charts = declared.pop("charts_after")
            lab_charts = charts

            def charts(result: Result) -> list[dict[str, Any]]:
                return [*lab_charts(result), *more_charts(result)]

        return cls(
            slug=slug,
            unit=unit,
            title=title,
            intro=intro,
            charts=charts,
            prompts=prompts,
            try_next=try_next,
            in_production=in_production,
            live=live,
            before_after=before_after,
            seeds_twin=seeds_twin,
            series_names=dict(series_names or {}),
            leaves_out=leaves_out,
            **declared,
        )

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
