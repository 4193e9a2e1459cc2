"""Challenges: a goal a student reaches by running a lab, checked from the run's own figures.

A challenge names a lab, the goal in words, the checks that decide it (the criteria
language teachers already use, `cleared_at_s <= 10`, over the lab's figures and its
parameters), which parameters the student may change, and the scenario's own settings.
Every other parameter must stay at the lab's default: "empty the queue with at most 4
workers" means nothing if the arrivals were changed too. A student's latest runs of the lab
are checked when the unit page renders; a near miss says which check failed and by how much,
or which parameter the challenge keeps fixed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from django.utils.translation import gettext as _

from labs.catalogue.entries import get_lab
from labs.catalogue.lab import Lab
from labs.interface.figures import Figure
from labs.interface.params import Param
from teaching.criteria import Check, Criterion, evaluate, parse_criteria
from teaching.criteria_words import actual_words, criterion_words, value_words

# Parameters a run carries that no challenge is about.
IGNORED = frozenset({"over_seeds"})


@dataclass(frozen=True)
class Challenge:
    slug: str
    unit: str
    lab: str
    goal: str  # a msgid: the goal as the student reads it
    criteria: str  # one check per line, over the lab's figures and parameters
    may_change: tuple[str, ...]
    setting: Mapping[str, Any] = field(default_factory=dict)  # the scenario's own values

    @property
    def lab_entry(self) -> Lab:
        lab = get_lab(self.lab)
        if lab is None:
            raise LookupError(f"challenge {self.slug}: no lab {self.lab!r}")
        return lab

    @cached_property
    def parsed(self) -> list[Criterion]:
        """The checks, parsed once: a unit page checks every run against them."""
        return parse_criteria(self.criteria, _checkable(self.lab_entry))

    def checks(self) -> list[Criterion]:
        return self.parsed

    @cached_property
    def fixed_values(self) -> dict[str, Any]:
        """What every parameter the student may not change must be, worked out once."""
        return self._fixed()

    def fixed(self) -> dict[str, Any]:
        return self.fixed_values

    def _fixed(self) -> dict[str, Any]:
        """What every parameter the student may not change must be."""
        lab = self.lab_entry
        wanted = {p.name: p.default for p in lab.params if p.name not in IGNORED}
        wanted.update(self.setting)
        return {k: v for k, v in wanted.items() if k not in self.may_change}

    def start_params(self) -> dict[str, Any]:
        """The lab's defaults with the scenario's settings: where the student starts."""
        return {**self.lab_entry.defaults(), **self.setting}


def _checkable(lab: Lab) -> list[Figure]:
    """The lab's figures, and its parameters as figures too (`max_workers <= 4`)."""
    figures = list(lab.figures)
    names = {f.name for f in figures}
    kinds = {"int": "int", "float": "float", "bool": "bool", "choice": "str"}
    for p in lab.params:
        if p.name not in names and p.kind in kinds:
            figures.append(Figure(p.name, p.label, kinds[p.kind]))  # type: ignore[arg-type]
    return figures


@dataclass(frozen=True)
class Attempt:
    """One run checked against one challenge."""

    run_id: Any
    checks: list[Check]
    changed: list[tuple[Param, Any]]  # parameters the challenge keeps, with the value wanted

    @property
    def met(self) -> bool:
        return not self.changed and all(c.passed for c in self.checks)

    @property
    def failed(self) -> int:
        return sum(1 for c in self.checks if not c.passed) + len(self.changed)


def attempt(challenge: Challenge, run_id: Any, params: Mapping[str, Any], summary: Any) -> Attempt:
    """Check one run (its params and summary figures) against `challenge`."""
    lab = challenge.lab_entry
    changed = [
        (lab.param(name), wanted)
        for name, wanted in challenge.fixed().items()
        if params.get(name, wanted) != wanted
    ]
    figures = {**params, **(summary or {})}
    return Attempt(run_id, evaluate(challenge.checks(), figures), changed)


def best(attempts: Iterable[Attempt]) -> Attempt | None:
    """A met attempt if there is one, else the nearest miss (newest first among equals)."""
    ordered = list(attempts)  # newest first
    met = [a for a in ordered if a.met]
    if met:
        return met[0]
    return min(ordered, key=lambda a: (bool(a.changed), a.failed), default=None)


def check_words(lab: Lab, criterion: Criterion) -> str:
    """A check in words: “Second the queue was empty again: at most 10”."""
    return criterion_words(criterion, _checkable(lab))


def near_miss_words(challenge: Challenge, a: Attempt) -> list[str]:
    """What stands between this run and the goal, one sentence per gap."""
    lab = challenge.lab_entry
    lines = [
        _("This challenge keeps “%(param)s” at %(value)s; your run changed it.")
        % {"param": _(str(param.label)), "value": value_words(wanted)}
        for param, wanted in a.changed
    ]
    figures = _checkable(lab)
    for c in a.checks:
        if c.passed:
            continue
        actual = actual_words(c.criterion, c.actual, figures)
        lines.append(
            _("%(check)s — your run: %(actual)s.")
            % {"check": check_words(lab, c.criterion), "actual": actual}
        )
    return lines


@dataclass(frozen=True)
class Status:
    challenge: Challenge
    attempt: Attempt | None

    @property
    def met(self) -> bool:
        return self.attempt is not None and self.attempt.met

    def near_miss(self) -> list[str]:
        if self.attempt is None or self.attempt.met:
            return []
        return near_miss_words(self.challenge, self.attempt)

    def check_lines(self) -> list[str]:
        lab = self.challenge.lab_entry
        return [check_words(lab, c) for c in self.challenge.checks()]


def statuses(challenges: Sequence[Challenge], runs: Iterable[Mapping[str, Any]]) -> list[Status]:
    """Each challenge against the runs (newest first: `id`, `lab`, `params`, `summary`)."""
    by_lab: dict[str, list[Mapping[str, Any]]] = {}
    for run in runs:
        by_lab.setdefault(run["lab"], []).append(run)
    out = []
    for challenge in challenges:
        tries = [
            attempt(challenge, r["id"], r["params"], r["summary"])
            for r in by_lab.get(challenge.lab, [])
        ]
        out.append(Status(challenge, best(tries)))
    return out
