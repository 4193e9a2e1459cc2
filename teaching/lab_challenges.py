"""The challenges on a lab's own page, and how close each of its runs came to them.

The unit page lists a unit's challenges; a student trying one works on the lab's page,
moving its sliders. There the controls column names each challenge of the lab (the
unit's, marked when one of the student's assignments asks for it): the goal in words,
the settings it lets change, the others it keeps fixed, and a link that sets the lab up
for it. Every run's body (drafts too) says, from that run's own figures, whether it met
each one, or what stands between it and the goal (`teaching.challenges.near_miss_words`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.utils.text import capfirst

from labs.catalogue.lab import Lab
from labs.runs.models import Run
from labs.text import said
from teaching.challenge_credits import credits_of
from teaching.challenge_runs import start_url, statuses_for
from teaching.challenges import Challenge, attempt, near_miss_words
from teaching.criteria_words import preset_words
from teaching.models import Assignment
from teaching.unit_challenges import CHALLENGES


def of_lab(slug: str) -> list[Challenge]:
    """Every challenge played on this lab, in teaching order."""
    return [c for c in CHALLENGES if c.lab == slug]


@dataclass(frozen=True)
class Offered:
    """A challenge as the lab's page offers it."""

    challenge: Challenge
    may_change: list[str]  # the lab's labels of the settings the student may move
    fixed: list[tuple[str, str]]  # every other setting: (label, its value in words)
    url: str  # the lab set up for it (`challenge_runs.start_url`)
    met: bool = False  # by one of the reader's own kept runs
    asked_by: list[str] = field(default_factory=list)  # the reader's assignments' titles


def offered(lab: Lab, user: Any) -> list[Offered]:
    """The lab's challenges for this reader: those their assignments ask for first."""
    chosen = of_lab(lab.slug)
    if not chosen:
        return []
    asked = _asked_by(user, {c.slug for c in chosen})
    met = {s.challenge.slug: s.met for s in statuses_for(user, chosen)}
    out = [
        Offered(
            challenge=c,
            may_change=[capfirst(str(said(lab.param(name).label))) for name in c.may_change],
            fixed=preset_words(lab, c.fixed()),
            url=_set_up(c),
            met=met.get(c.slug, False),
            asked_by=asked.get(c.slug, []),
        )
        for c in chosen
    ]
    return sorted(out, key=lambda o: not o.asked_by)  # stable: teaching order otherwise


def _set_up(challenge: Challenge) -> str:
    """The lab at the challenge's starting values, its card opened on the page."""
    url = start_url(challenge)
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}{urlencode({'challenge': challenge.slug})}"


def _asked_by(user: Any, slugs: set[str]) -> dict[str, list[str]]:
    """Challenge slug → titles of the reader's assignments (open classes) that ask for it."""
    if not getattr(user, "is_authenticated", False):
        return {}
    rows = Assignment.objects.filter(
        classroom__memberships__student=user, classroom__archived_at__isnull=True
    ).values_list("title", "challenges")
    out: dict[str, list[str]] = {}
    for title, challenges in rows:
        for slug in challenges or []:
            if slug in slugs:
                out.setdefault(slug, []).append(title)
    return out


@dataclass(frozen=True)
class Distance:
    """One run against one challenge."""

    challenge: Challenge
    met: bool
    gaps: Sequence[str]  # what stands between the run and the goal, one sentence each
    kept: bool  # the run was a draft, kept because it earned the challenge's credit


def distances(run: Run) -> list[Distance]:
    """A succeeded run against each challenge of its lab, from its own figures."""
    chosen = of_lab(run.lab)
    if not chosen or run.status != Run.Status.SUCCEEDED:
        return []
    summary = (run.result or {}).get("summary") or {}
    tries = [(c, attempt(c, run.pk, run.params or {}, summary)) for c in chosen]
    # Only a met challenge can have been credited to this run: most drafts of a drag meet
    # none, and their bodies then ask nothing about credits.
    credits = credits_of(run) if any(tried.met for _c, tried in tries) else {}
    out = []
    for c, tried in tries:
        credit = credits.get(c.slug)
        kept = tried.met and credit is not None and credit.met_by == run.pk and credit.kept
        gaps = [] if tried.met else near_miss_words(c, tried)
        out.append(Distance(c, tried.met, gaps, kept))
    return out
