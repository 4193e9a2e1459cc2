"""A run that meets a challenge is credited once, and a draft that met it is kept.

A draft (a run made while a slider moves, `labs.runs.drafts`) is deleted after an hour
and read by no challenge: a student who reached the goal by dragging a slider would lose
it. So as runs succeed (`labs.runs.succeeded`, told by the worker that ended them or by
the POST that answered them from the result store, never by a page view) each one of a
lab with challenges is checked against them; the first run of a student to meet a
challenge gets its credit (`ChallengeCredit`, one row per student and challenge, unique
in the database, so two workers finishing two passing drafts at once credit one), and if
it is a draft it is kept in the student's runs. Later passing drafts are not kept: the
slider's every passing value would otherwise fill the history.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.db.models import Q

from labs.runs import drafts
from labs.runs.models import Run
from labs.web import fragment_cache
from teaching.challenge_runs import FIELDS, shown_row
from teaching.challenges import attempt
from teaching.models import ChallengeCredit
from teaching.unit_challenges import CHALLENGES

# The most runs read for one announcement (a popular run's followers, settled at once).
RUNS_READ = 200


def credit_runs(run_ids: Sequence[Any]) -> int:
    """Credit the challenges these runs, and the runs that followed them, meet; how many
    credits this call made. Safe to call again: a credit is made once."""
    return len(credited(run_ids))


def kept_drafts(run_ids: Sequence[Any]) -> list[Any]:
    """`labs.runs.succeeded`'s listener: credit these runs, and name the drafts kept for it
    (their ended announcement says so: the press it answers shows the run kept)."""
    return [run_id for run_id, draft in credited(run_ids) if draft]


def credited(run_ids: Sequence[Any]) -> list[tuple[Any, bool]]:
    """(run id, whether it was a draft) of each credit made for these runs (module doc).

    Each is a run's id, read here with the runs that followed it, or a run held as saved
    (answered from the store by its POST, or computed by the task with no follower:
    `labs.runs.succeeded`): judged as it is, unread.
    """
    in_hand = [r for r in run_ids if isinstance(r, Run)]
    ids = [r for r in run_ids if not isinstance(r, Run)]
    rows = [(r.owner_id, r.draft, _shown(r)) for r in in_hand if r.status == Run.Status.SUCCEEDED]
    if ids:
        labs = sorted({c.lab for c in CHALLENGES})
        read = (
            Run.objects.filter(Q(pk__in=ids) | Q(same_as__in=ids))
            .filter(status=Run.Status.SUCCEEDED, lab__in=labs)
            .order_by("created_at")
            .values("owner_id", "draft", *FIELDS)[:RUNS_READ]
        )
        rows += [(row["owner_id"], row["draft"], shown_row(row)) for row in read]
    made = []
    for owner_id, draft, run in rows:
        for challenge in CHALLENGES:
            if challenge.lab != run["lab"]:
                continue
            met = attempt(challenge, run["id"], run["params"], run["summary"]).met
            if met and credit(owner_id, challenge.slug, run["id"], draft=draft):
                made.append((run["id"], draft))
    return made


def _shown(run: Run) -> dict[str, Any]:
    """A run in hand as the challenges read a row (`challenge_runs.shown_row`)."""
    summary = (run.result or {}).get("summary") or {}
    return {"id": run.pk, "lab": run.lab, "params": run.params or {}, "summary": summary}


def credit(student_id: Any, slug: str, run_id: Any, *, draft: bool) -> int:
    """Credit `slug` to the student with this run, unless it was credited already (1 if
    this call made the credit); a draft that earns it is kept."""
    with transaction.atomic():
        _credit, made = ChallengeCredit.objects.get_or_create(
            student_id=student_id, challenge=slug, defaults={"met_by": run_id, "kept": draft}
        )
        if made and draft:
            kept = Run.objects.filter(pk=run_id).defer("own_result", "progress").first()
            if kept is not None:
                drafts.keep(kept)
    if made:
        fragment_cache.forget(run_id)  # its cached body says it is a draft, not yet credited
    return int(made)


def credits_of(run: Run) -> dict[str, ChallengeCredit]:
    """The owner's credits for the challenges of the run's lab, by challenge slug."""
    slugs = [c.slug for c in CHALLENGES if c.lab == run.lab]
    found = ChallengeCredit.objects.filter(student_id=run.owner_id, challenge__in=slugs)
    return {c.challenge: c for c in found}
