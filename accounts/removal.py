"""Removing one student's personal data on request, keeping the class's figures.

The account is not deleted: its runs (`Run.owner` cascades) and hand-ins carry the
figures the class's statistics count. What identifies the person goes: the username
becomes `~removed-<random>` (shown as "removed student", `teaching.people`), names and
e-mail are emptied, the password can no longer log in, sessions, login records and the
profile are deleted, and what they wrote (analyses, run names and notes) and what was
written about them (feedback text, extensions) is deleted or emptied. Scores, criteria
figures and the runs' results stay. The cached pages of the student's classes (gradebook,
class results) are purged from Redis at once; backups keep everything until they are
deleted (README, "Removing a student").
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from importlib import import_module

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import transaction

from accounts.models import Profile
from labs.capstone.analysis import Analysis
from labs.runs.models import Run
from teaching.gradebook import cache as gradebook_cache
from teaching.models import Assignment, Extension, Invitation, Submission, SubmissionVersion
from teaching.people import REMOVED_PREFIX, is_removed


@dataclass
class Removed:
    username: str  # the shell's new username
    runs_kept: int
    analyses_deleted: int


def remove_student(user) -> Removed:
    """Empty `user`'s account of everything personal, in one transaction."""
    if is_removed(user):
        raise ValueError("this account was already removed")
    if user.is_staff or user.is_superuser or user.classrooms_taught.exists():
        raise ValueError("only a student's account can be removed this way")
    old = user.get_username()
    with transaction.atomic():
        analyses = Analysis.objects.filter(owner=user).delete()[0]
        Run.objects.filter(owner=user).update(name="", note="")
        for model in (Submission, SubmissionVersion):
            owner = "student" if model is Submission else "submission__student"
            model.objects.filter(**{owner: user}).update(feedback="")
        Extension.objects.filter(student=user).delete()
        Invitation.objects.filter(student=user).delete()
        Profile.objects.filter(user=user).delete()
        for model in (AccessAttempt, AccessLog, AccessFailureLog):
            model.objects.filter(username=old).delete()
        _delete_sessions(user)
        user.username = f"{REMOVED_PREFIX}{secrets.token_hex(6)}"
        user.first_name = user.last_name = user.email = ""
        user.set_unusable_password()
        user.is_active = False
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
    _purge_cached_pages(user)
    return Removed(user.get_username(), Run.objects.filter(owner=user).count(), analyses)


def _purge_cached_pages(user) -> None:
    """The rendered gradebooks and class results of the student's classes: they held the
    name, and would otherwise stay in Redis until they expire (up to an hour)."""
    class_ids = list(user.memberships.values_list("classroom_id", flat=True))
    assignment_ids = Assignment.objects.filter(classroom_id__in=class_ids).values_list(
        "pk", flat=True
    )
    gradebook_cache.purge(class_ids, list(assignment_ids))


def _delete_sessions(user) -> None:
    """Every session logged in as `user`: its row, and its copy in the cache through the
    site's session engine (school/sessions.py)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    key = str(user.pk)
    for session in Session.objects.iterator():
        if session.get_decoded().get("_auth_user_id") == key:
            store().delete(session.session_key)
