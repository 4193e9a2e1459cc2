"""A student's recent runs of a unit's challenge labs, as the challenges read them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.http import QueryDict
from django.urls import reverse

from labs.runs.models import Run
from labs.text import plain
from teaching.challenges import Challenge, Status, statuses
from teaching.unit_challenges import get_challenge

RUNS_READ = 100  # the newest runs looked at: enough for a lesson's worth of trying
# What a challenge reads of a run: its params and only the summary of its result.
FIELDS = ("id", "lab", "params", "own_result__summary", "stored_result__data__summary")


def recent_runs(user: Any, labs: Sequence[str]) -> list[dict[str, Any]]:
    """The user's newest finished runs of `labs`, with only their summary figures read."""
    rows = (
        # Not drafts: a slider's passing values would push the student's runs out of the 100.
        Run.objects.filter(owner=user, lab__in=labs, status=Run.Status.SUCCEEDED, draft=False)
        .order_by("-created_at")
        .values(*FIELDS)[:RUNS_READ]
    )
    return [shown_row(row) for row in rows]


def statuses_for(user: Any, challenges: Sequence[Challenge]) -> list[Status]:
    """Each challenge against the user's own runs; nothing is met for a visitor."""
    if not getattr(user, "is_authenticated", False):
        return statuses(challenges, [])
    return statuses(challenges, recent_runs(user, sorted({c.lab for c in challenges})))


def start_url(challenge: Challenge) -> str:
    """The lab's page with the challenge's scenario filled in."""
    url = reverse("lab-detail", args=[challenge.lab])
    if not challenge.setting:
        return url
    query = QueryDict(mutable=True)
    for name, value in challenge.setting.items():
        query[name] = plain(value)
    return f"{url}?{query.urlencode()}"


def challenges_met(student_ids: Sequence[Any], assignments: Sequence[Any]) -> dict[tuple, int]:
    """(student id, assignment id) → how many of its challenges the student has met."""
    return {
        key: sum(s.met for s in found)
        for key, found in challenge_statuses(student_ids, assignments).items()
    }


def challenge_statuses(
    student_ids: Sequence[Any], assignments: Sequence[Any]
) -> dict[tuple, list[Status]]:
    """(student id, assignment id) → each of its challenges met or missed, with the run
    that met it (`Status.attempt.run_id`), in the assignment's order.

    One query for the whole class: every student's newest finished runs of the labs the
    assignments' challenges use, summaries only (at most RUNS_READ a student are checked).
    """
    wanted = {a.pk: [c for c in map(get_challenge, a.challenges or []) if c] for a in assignments}
    labs = sorted({c.lab for chosen in wanted.values() for c in chosen})
    if not labs or not student_ids:
        return {}
    runs: dict[Any, list[dict[str, Any]]] = {sid: [] for sid in student_ids}
    rows = (
        Run.objects.filter(
            owner_id__in=student_ids, lab__in=labs, status=Run.Status.SUCCEEDED, draft=False
        )
        .order_by("-created_at")
        .values("owner_id", *FIELDS)
    )
    for row in rows:
        mine = runs[row["owner_id"]]
        if len(mine) < RUNS_READ:
            mine.append(shown_row(row))
    out = {}
    for sid, theirs in runs.items():
        for pk, chosen in wanted.items():
            if chosen:
                out[(sid, pk)] = statuses(chosen, theirs)
    return out


def shown_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A run's row read with FIELDS, as the challenges read a run."""
    return {
        "id": row["id"],
        "lab": row["lab"],
        "params": row["params"] or {},
        "summary": row["stored_result__data__summary"] or row["own_result__summary"] or {},
    }
