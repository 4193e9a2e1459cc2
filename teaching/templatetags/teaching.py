"""`{{ user|shown_username }}`: a student's username, or "removed student";
`{% unit_challenges unit.slug %}`: a unit's challenges, met or not;
`{% lab_challenges lab %}` and `{% run_challenges run %}`: a lab's challenges on its page,
and how close a run came to each (teaching.lab_challenges);
`{% criterion_words criterion lab %}` and `{% actual_words check lab %}`: a grading check
and what a run had for it, in words (teaching.criteria_words)."""

from __future__ import annotations

from django import template
from django.utils import timezone

from teaching import criteria_words
from teaching import lab_challenges as lab_challenge_words
from teaching.challenge_runs import start_url, statuses_for
from teaching.my_assignments import assignments_of
from teaching.people import shown_username as _shown_username
from teaching.unit_challenges import for_unit, get_challenge

register = template.Library()


@register.filter
def shown_username(user) -> str:
    return _shown_username(user)


@register.inclusion_tag("teaching/my_assignments.html", takes_context=True)
def my_assignments(context: template.Context) -> dict:
    """A signed-in student's assignments, not handed in first, each with its due date."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"rows": []}
    return {"rows": assignments_of(user, timezone.now())}


@register.simple_tag
def criterion_words(criterion, lab) -> str:
    """The check in the lab's words; its code when the lab no longer exists."""
    if lab is None:
        return str(criterion)
    return criteria_words.criterion_words(criterion, lab.figures)


@register.simple_tag
def actual_words(check, lab) -> str:
    if lab is None:
        return check.shown_actual
    return criteria_words.actual_words(check.criterion, check.actual, lab.figures)


@register.inclusion_tag("teaching/unit_challenges.html", takes_context=True)
def unit_challenges(context: template.Context, unit_slug: str) -> dict:
    """The unit's challenges, each marked met or not from the reader's own runs."""
    return _shown(context, for_unit(unit_slug))


@register.inclusion_tag("teaching/unit_challenges.html", takes_context=True)
def assignment_challenges(context: template.Context, assignment) -> dict:
    """The challenges a teacher chose for an assignment, met or not from the reader's runs."""
    chosen = [c for c in map(get_challenge, assignment.challenges or []) if c is not None]
    return _shown(context, chosen)


def _shown(context: template.Context, challenges) -> dict:
    request = context.get("request")
    user = getattr(request, "user", None)
    shown = [
        {"status": status, "url": start_url(status.challenge)}
        for status in statuses_for(user, challenges)
    ]
    return {
        "challenges": shown,
        "request": request,
        "signed_in": bool(user and user.is_authenticated),
    }


@register.inclusion_tag("teaching/lab_challenges.html", takes_context=True)
def lab_challenges(context: template.Context, lab) -> dict:
    """The lab's challenges in its controls column: goal, what may change, what stays."""
    request = context.get("request")
    user = getattr(request, "user", None)
    picked = request.GET.get("challenge", "") if request is not None else ""
    return {
        "lab": lab,
        "offered": lab_challenge_words.offered(lab, user),
        "picked": picked,
        "signed_in": bool(user and user.is_authenticated),
    }


@register.inclusion_tag("teaching/run_challenges.html")
def run_challenges(run) -> dict:
    """How close a succeeded run came to each challenge of its lab, from its own figures."""
    return {"run": run, "distances": lab_challenge_words.distances(run)}
