"""What a lab's runner declares to the site: the typed contract between a lab and the rest.

Each lab's `run.py` ends with one `RUNNER = LabRunner(...)` naming its own functions and
constants, so a reader goes from the catalogue to a lab's run and headline by "go to
definition", and mypy checks each field's type. The catalogue (`Lab.of`) adds what the site
wraps around every runner: an experiment's stopped-early sentence, the 20-seed spread.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from labs.interface.figures import Figure
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.interface.spread import Spread

Result = dict[str, Any]
Params = Mapping[str, Any]
RunFunction = Callable[[Params, int, Progress], Result]  # (params, seed, progress) -> result
Headline = Callable[[Mapping[str, Any]], list[str]]  # result -> sentences a student reads
Check = Callable[[Params], dict[str, str]]  # cross-field checks: field -> why it is refused
# An upper bound on a run's worker time (`labs.sim.capstone.cost.Cost`: `.seconds`).
CostBound = Callable[[Params], Any]


@dataclass(frozen=True)
class LabRunner:
    """One lab's model side: its parameters, how it runs, and what its result reports."""

    params: tuple[Param, ...]
    run: RunFunction
    headline: Headline
    figures: tuple[Figure, ...]  # the summary's keys, which teachers grade on
    check: Check | None = None
    kind: Literal["sim", "experiment"] = "sim"  # experiments use the real Redis
    uses_seed: bool = False  # random draws: the seed is shown and can be set
    default_seed: int = 1  # the seed the form offers first (the lesson's, where it has one)
    keeps_dlq: bool = False  # experiments: the DLQ is kept after the run for the queue panel
    cost: CostBound | None = None  # over the budget the form refuses; heavy ones queue apart
    time_limit_s: int | None = None  # None: the kind's default (30 s, or an experiment's)
    spread: Spread | None = None  # a random lab's key figure shown over 20 seeds
