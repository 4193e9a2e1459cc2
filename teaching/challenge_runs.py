"""A student's recent runs of a unit's challenge labs, as the challenges read them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import QueryDict
from django.urls import reverse

from labs.runs.models import Run
from labs.text import plain
from teaching.challenges import Challenge, Status, statuses

RUNS_READ = 100  # the newest runs looked at: enough for a lesson's worth of trying


def recent_runs(user: Any, labs: Sequence[str]) -> list[dict[str, Any]]:
    """The user's newest finished runs of `labs`, with only their summary figures read."""
    rows = (
        Run.objects.filter(owner=user, lab__in=labs, status=Run.Status.SUCCEEDED)
        .order_by("-created_at")
        .values("id", "lab", "params", "own_result__summary", "stored_result__data__summary")[
            :RUNS_READ
        ]
    )
    return [
        {
            "id": row["id"],
            "lab": row["lab"],
            "params": row["params"] or {},
            "summary": row["stored_result__data__summary"] or row["own_result__summary"] or {},
        }
        for row in rows
    ]


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
