"""The one list of labs: slug → parameters, runner, charts and headline.

Adding a lab means adding one `Lab` entry here (and its runner and chart modules).
The web forms, the `lab` management command and the Celery task all read this list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from labs.charts import drain as drain_charts
from labs.figures import Figure
from labs.params import Param
from labs.progress import Progress
from labs.runners import drain as drain_runner

Result = dict[str, Any]
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
    time_limit_s: int = 30  # a run longer than this is stopped and marked failed
    figures: tuple[Figure, ...] = ()  # the summary's keys, which teachers grade on

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
            "title": self.title,
            "kind": self.kind,
            "uses_seed": self.uses_seed,
            "params": [p.describe() for p in self.params],
            "figures": [f.name for f in self.figures],
        }


LABS: tuple[Lab, ...] = (
    Lab(
        slug="drain",
        unit="lesson-12",
        title="Drain a burst: fixed workers or workers scaled on the backlog",
        intro=(
            "Jobs arrive second by second; each worker finishes a fixed number a second. "
            "Choose how many workers run and watch the backlog build and clear."
        ),
        params=drain_runner.PARAMS,
        run=drain_runner.run,
        charts=drain_charts.build,
        headline=drain_runner.headline,
        check=drain_runner.check,
        figures=drain_runner.FIGURES,
    ),
)

_BY_SLUG = {lab.slug: lab for lab in LABS}
if len(_BY_SLUG) != len(LABS):
    raise RuntimeError("two labs share a slug")


def get_lab(slug: str) -> Lab | None:
    """The lab with this slug, or None."""
    return _BY_SLUG.get(slug)


def labs_for_unit(unit_slug: str) -> list[Lab]:
    """The labs of one unit, in the order the lesson meets them."""
    return [lab for lab in LABS if lab.unit == unit_slug]
