"""Run a catalogue lab, or fill in its form, the way the site and the `lab` command do."""

from __future__ import annotations

from functools import cache
from typing import Any

from labs.catalogue.entries import get_lab
from labs.catalogue.lab import Lab
from labs.interface.progress import SilentProgress
from labs.management.commands.lab import _as_form_value
from labs.runs.execution import run_lab
from labs.web.forms import LabForm


def lab(slug: str) -> Lab:
    found = get_lab(slug)
    assert found is not None, f"no lab {slug!r} in the catalogue"
    return found


def run(slug: str, *, seed: int | None = None, **changes: Any) -> dict[str, Any]:
    """The lab's result for its defaults with `changes`, under its default seed unless given."""
    chosen = lab(slug)
    params = chosen.defaults() | changes
    return run_lab(chosen, params, chosen.default_seed if seed is None else seed, SilentProgress())


def headline(slug: str, result: dict[str, Any]) -> str:
    """The headline sentences as one text, for `in` checks."""
    return "\n".join(lab(slug).headline(result))


def form(slug: str, **changes: Any) -> LabForm:
    """The lab's form filled with its defaults and `changes`, as a browser would send it."""
    chosen = lab(slug)
    data = {p.name: _as_form_value(p.default) for p in chosen.params}
    data.update({name: _as_form_value(value) for name, value in changes.items()})
    return LabForm(chosen, data)


def refusal(slug: str, **changes: Any) -> dict[str, list[str]]:
    """The form's errors for these changes; fails the test if the form accepts them."""
    filled = form(slug, **changes)
    assert not filled.is_valid(), f"{slug} accepted {changes}"
    return {field: list(errors) for field, errors in filled.errors.items()}


# Labs whose defaults take a minute of wall time, run shorter for the checks that run every
# lab: the same scenario (a trigger, then the trap), 40 simulated seconds at 0.2 s each.
SHORTER = {
    "trapped-live": {
        "time_scale": 0.2,
        "horizon_s": 40,
        "trigger_start_s": 5,
        "trigger_end_s": 15,
        "recover_at_s": 40,
        "payment_share": 0.2,
    },
}


@cache
def default_result(slug: str) -> dict[str, Any]:
    """The lab's result for its defaults and seed 7, run once per test session.

    Real experiments take seconds each: the catalogue's checks and a lab's own tests share
    this one run instead of each starting their own. A lab in `SHORTER` runs shorter.
    """
    chosen = lab(slug)
    return run_lab(chosen, chosen.defaults() | SHORTER.get(slug, {}), 7, SilentProgress())
