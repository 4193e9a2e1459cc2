"""Who outside `labs` holds on to a run: the one door labs asks through.

A run handed in to an assignment is pointed at from `teaching` (a submission's run and
before run, and the same in each of its earlier versions). `labs` sits below `teaching`
and does not know those models or their field names: `teaching` describes each foreign
key here once, at start-up (`teaching.apps.TeachingConfig.ready`), and every question
labs has about them goes through this module: which runs are handed in
(`Run.objects.handed_in()`), which are half of a handed-in pair (`in_handed_in_pairs`,
`pair_is_handed_in`) and which a teacher may open (`Run.objects.visible_to`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any

from django.db import models


@dataclass(frozen=True)
class Reference:
    """One foreign key onto `Run` from another app's model."""

    model: type[models.Model]  # the model holding the key (teaching.Submission)
    field: str  # its key onto Run ("run")
    teacher: str  # from a row of `model` to the teacher who reads it ("assignment__...")
    # On the same row, the key holding the "before" run of a before/after pair, when this
    # key holds its "after" run (Submission.run: "before_run").
    pair_before: str = ""
    # This key holds a pair's "before" run (Submission.before_run).
    is_pair_before: bool = False

    @property
    def reverse(self) -> str:
        """The name `Run` queries this key by ("submissions")."""
        key = self.model._meta.get_field(self.field)
        assert isinstance(key, models.ForeignKey), key
        return key.related_query_name()


_references: list[Reference] = []
# Keys onto Run that keep a run from being pruned without making it handed in: a
# student's analysis of a pair they have not handed in yet (`labs.capstone.analysis.
# KEEPS_RUNS`, registered by `LabsConfig.ready`).
_keepers: list[tuple[type[models.Model], str]] = []


def register(*references: Reference) -> None:
    """Declare the keys another app holds onto runs (once per process, at start-up)."""
    for reference in references:
        if reference not in _references:
            _references.append(reference)


def register_keeper(model: type[models.Model], field: str) -> None:
    """Declare a key onto runs that must keep them (not prune them), at start-up."""
    if (model, field) not in _keepers:
        _keepers.append((model, field))


def holders() -> tuple[tuple[type[models.Model], str], ...]:
    """(model, key) for every row outside labs that holds on to a run: the pruning's list.

    Teaching's hand-ins (`teaching.models.RUN_REFERENCES`) and the capstone's draft analyses
    (`labs.capstone.analysis.KEEPS_RUNS`), both declared at start-up by their apps' `ready`.
    """
    return tuple((r.model, r.field) for r in _references) + tuple(_keepers)


def references() -> tuple[Reference, ...]:
    """Every key onto a run from outside labs (datasafe, pruning: what holds a run)."""
    return tuple(_references)


def _any(qs: Iterable[models.Q]) -> models.Q:
    """The OR of `qs`; with none (no app declared a key), a Q that matches no row."""
    found = list(qs)
    return reduce(or_, found) if found else models.Q(pk__in=[])


def handed_in() -> models.Q:
    """Runs some other app's row points at, by any key (a hand-in, current or earlier)."""
    return _any(models.Q(_holding(r)) for r in _references)


def seen_by(teacher: Any) -> models.Q:
    """Runs handed in to a class `teacher` teaches (by any key).

    One EXISTS per key, probing the key's own indexed column for the run at hand, so the
    cost follows the runs asked about (one run page: four index look-ups), never a join of
    every run to every hand-in.
    """
    return _any(models.Q(_holding(r, **{r.teacher: teacher})) for r in _references)


def _holding(r: Reference, **where: Any) -> models.Exists:
    """EXISTS a row of `r.model` whose key `r.field` is the outer run (and matches `where`)."""
    return models.Exists(
        r.model._default_manager.filter(**{r.field: models.OuterRef("pk")}, **where)
    )


def in_pairs() -> models.Q:
    """Runs handed in as either half of a before/after pair."""
    return _any(
        models.Q(**{f"{r.reverse}__isnull": False})
        if r.is_pair_before
        else models.Q(**{f"{r.reverse}__{r.pair_before}__isnull": False})
        for r in _references
        if r.is_pair_before or r.pair_before
    )


def pair_handed_in(before: Any, after: Any) -> models.Q:
    """Matches `after` when it was handed in with `before` as its pair's "before" run."""
    return _any(
        models.Q(**{f"{r.reverse}__{r.pair_before}": before}) for r in _references if r.pair_before
    ) & models.Q(pk=after.pk)
