"""Running a lab: the one path shared by the Celery task and the `lab run` command."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from labs.catalogue.lab import Lab
from labs.runs.progress import Progress
from labs.text import SEED_MAX


def new_seed() -> int:
    """A fresh seed for a run that did not ask for one (saved, so it can be replayed)."""
    return random.SystemRandom().randint(0, SEED_MAX)


def choose_seed(lab: Lab, requested: int | None) -> int:
    """The seed a run is saved with: the one asked for, a fresh one, or 0 if nothing is random."""
    if requested is not None:
        return requested
    return new_seed() if lab.uses_seed else 0


def run_lab(lab: Lab, params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Run `lab` and return its result: lab, params, seed, summary, series, tables.

    The result goes through a JSON round trip here, so a runner that returns something
    the database cannot store fails now, with its name, rather than at save time.
    `series_order` and `tables_order` keep the runner's order (time first, tables as
    meant to be read): PostgreSQL's jsonb does not keep the order of an object's keys.
    """
    body = lab.run(params, seed, progress)
    missing = {"summary", "series"} - body.keys()
    if missing:
        raise TypeError(f"runner of {lab.slug} returned no {', '.join(sorted(missing))}")
    result = {
        "lab": lab.slug,
        "params": dict(params),
        "seed": seed,
        "summary": body["summary"],
        "series": body["series"],
        "series_order": list(body["series"]),
        "tables": body.get("tables", {}),
        "tables_order": list(body.get("tables", {})),
    }
    return json.loads(json.dumps(result, allow_nan=False))
