"""Keeping a draft the student acts on: one rule for every action that points at a run.

A draft (a run started by moving a control, `labs.runs.drafts`) is deleted after
`LAB_DRAFT_KEEP_MIN`. A student who names it, compares it, downloads it (JSON, CSV, a
chart's PNG) or hands it in has a link, a file or a submission that names it, so each of
those actions keeps it here: it becomes an ordinary run, in the history. Only its owner's
actions keep it (a teacher opening a student's draft changes nothing), and a second call
does nothing.
"""

from __future__ import annotations

from typing import Any

from labs.runs import drafts
from labs.runs.models import Run
from labs.web import fragment_cache


def keep_shown(run: Run, user: Any) -> bool:
    """Keep `run` if it is a draft of `user`'s; True if this call kept it."""
    if not run.draft or run.owner_id != getattr(user, "pk", None):
        return False
    if not drafts.keep(run):
        return False
    fragment_cache.forget(run.pk)  # its cached body says it is a draft
    return True
