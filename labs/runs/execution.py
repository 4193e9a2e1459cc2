"""Running a lab: the one path shared by the Celery task and the `lab run` command."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from django.utils.translation import pgettext

from labs.catalogue.lab import Lab
from labs.interface.progress import Progress
from labs.runs.result_json import ReadFromJSON
from labs.text import SEED_MAX, gettext


class ParamsRefused(ValueError):
    """A run's params break its lab's bounds or rules: the input is wrong, not the lab.

    Raised before the runner starts, so a `ValueError` from inside a runner or model is
    never mistaken for this: that one is a bug, and is reported as a crash.
    """

    def __init__(self, errors: Mapping[str, str]) -> None:
        self.errors = dict(errors)
        super().__init__("; ".join(f"{name}: {why}" for name, why in self.errors.items()))


def refusals(lab: Lab, params: Mapping[str, Any]) -> dict[str, str]:
    """{param name: why} for every param outside its bounds, then the lab's own cross-field
    check; empty when the params are fine. `__all__` names a problem of the whole set."""
    errors: dict[str, str] = {}
    for param in lab.params:
        if param.name not in params:
            errors[param.name] = pgettext("a parameter not given", "missing")
        elif (why := param.refusal(params[param.name])) is not None:
            errors[param.name] = why
    unknown = sorted(set(params) - {p.name for p in lab.params})
    if unknown:
        errors["__all__"] = gettext("not parameters of this lab: %(names)s") % {
            "names": ", ".join(unknown)
        }
    if not errors and lab.check is not None:
        errors.update(lab.check(params))
    return errors


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

    Params outside the lab's bounds or rules raise `ParamsRefused` before the runner starts.

    The result goes through a JSON round trip here, so a runner that returns something
    the database cannot store fails now, with its name, rather than at save time; it keeps
    the text, which is what is saved (`labs.runs.result_json`).
    `series_order` and `tables_order` keep the runner's order (time first, tables as
    meant to be read): PostgreSQL's jsonb does not keep the order of an object's keys.
    """
    errors = refusals(lab, params)
    if errors:
        raise ParamsRefused(errors)
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
    return ReadFromJSON(json.dumps(result, allow_nan=False))
