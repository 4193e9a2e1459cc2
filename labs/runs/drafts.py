"""Drafts: the runs a lab starts by itself as a student moves its controls.

A quick simulation re-runs on every settled change of the form (the lab page's
`drafts.js`), through the same path as Run (`dispatch.start_runs`: the form's checks, the
budget, the caps, the quick queue, the result store), so every figure is still the
server's. What differs:

- a draft is made only where the run would go to the quick queue (`instant`, `allowed`):
  real-queue experiments and heavy runs keep the Run button alone;
- a student has at most one draft of a lab waiting for a worker: a new one deletes the
  older ones of that lab still queued (newest wins; a draft another run waits on is left
  to finish), so dragging a slider cannot fill the queue, and a second tab on another lab
  keeps its own; drafts count against the caps like any run;
- "newest" is the page's word, not the arrival's: a post carries its number on its page
  (`draft_order`), and one older than a post already taken is `Superseded`: it deletes
  nothing and starts nothing (on a loaded site the older of two posts can arrive second);
- drafts are not in the student's history, and the sweeper deletes them
  `LAB_DRAFT_KEEP_MIN` after they were made (`prune_drafts`), unless kept: naming,
  comparing, downloading, handing in, re-running or pressing "Keep this run" makes one an
  ordinary run (`keep`, through `labs.web.keeping.keep_shown`).
"""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from labs.catalogue.lab import Lab
from labs.runs import admission, draft_order, references
from labs.runs.dispatch import start_runs
from labs.runs.models import Run


def instant(lab: Lab) -> bool:
    """Whether the lab re-runs by itself as its controls move: a simulation whose run with
    the lesson's values goes to the quick queue."""
    return lab.kind == "sim" and allowed(lab, lab.defaults())


def allowed(lab: Lab, params: dict[str, Any]) -> bool:
    """Whether a draft with these values may run (a heavy run waits for Run)."""
    return lab.kind == "sim" and admission.queue_for(lab, params) == settings.LAB_QUEUE


class Superseded(Exception):
    """The page had already posted a newer draft of this lab: this one is not wanted."""


def start_draft(
    user, lab: Lab, params: dict[str, Any], seed: int, order: draft_order.Order | None = None
) -> Run:
    """Start a draft run, replacing the student's drafts still waiting for a worker.

    Raises `dispatch.RunRefused` as Run does (caps, broker, budget), and `Superseded` when
    `order` (the post's place on its page; None from a page that sends none) is older than
    a post already taken. The older drafts go in the same transaction as the new one is
    made, under the same lock of the student's row, so a refused draft deletes nothing.
    """
    replace = functools.partial(replace_if_newest, user, lab, order)
    return start_runs(user, lab, [(params, seed)], draft=True, under_lock=replace)[0]


def replace_if_newest(user, lab: Lab, order: draft_order.Order | None) -> int:
    """Take the post's number, then delete the student's drafts still waiting.

    Done with the student's row locked, so two posts of one student take turns here. If
    the newer comes first, its number is taken and the older is superseded when its turn
    comes; if the older comes first, it deletes and makes its draft and commits, and the
    newer then deletes that one in turn. Either way the older never deletes the newer's.
    """
    if order is not None and not draft_order.take(user.pk, lab.slug, order):
        raise Superseded
    return replace_waiting(user, lab.slug)


def replace_waiting(user, lab_slug: str) -> int:
    """Delete the user's drafts of this lab still queued that no other run waits on.

    Of this lab only: a student with two labs open in two tabs has a draft waiting for
    each, and one tab's move must not leave the other's chart unanswered.

    One conditional DELETE, its condition checked by the database as it deletes: a draft
    a worker claims meanwhile is running, not queued, and stays (it counts against the
    caps until it ends; other runs may wait on it: `result_store.stored_or_twin`); a deleted
    one's task finds no row and stops. Not `QuerySet.delete()`, which reads the rows first
    and then deletes them by key: a draft claimed in between went too, and a run that had
    just begun to wait on it failed its foreign key (bench/bench_drafts.py, PostgreSQL).
    Nothing else points at a queued draft, so there is nothing to cascade.
    """
    followed = Run.objects.filter(same_as=OuterRef("pk"))
    waiting = Run.objects.filter(owner=user, lab=lab_slug, draft=True, status=Run.Status.QUEUED)
    ids = list(waiting.filter(~Exists(followed)).values_list("pk", flat=True)[:20])
    if not ids:
        return 0
    still = Run.objects.filter(pk__in=ids, draft=True, status=Run.Status.QUEUED)
    still = still.filter(~Exists(followed))
    return still._raw_delete(still.db)


def keep(run: Run) -> bool:
    """Make a draft an ordinary run (in the history, pruned like any run).

    True only for the call that changed the row: two requests keeping one draft at once
    both leave it kept, and one of them says so. The web's actions go through
    `labs.web.keeping.keep_shown` (owner only, and the cached body forgotten).
    """
    if not run.draft:
        return False
    changed = Run.objects.filter(pk=run.pk, draft=True).update(draft=False)
    run.draft = False
    return changed == 1


def prunable_drafts(now=None):
    """Finished drafts older than `LAB_DRAFT_KEEP_MIN` that nothing holds (hand-in keys)."""
    now = now or timezone.now()
    before = now - timedelta(minutes=settings.LAB_DRAFT_KEEP_MIN)
    drafts = Run.objects.filter(draft=True, created_at__lt=before, status__in=Run.FINISHED)
    for model, key in references.holders():
        drafts = drafts.filter(~Exists(model._default_manager.filter(**{key: OuterRef("pk")})))
    return drafts


def prune_drafts(now=None, batch: int = 1000) -> int:
    """Delete old drafts, at most `batch` a pass (the sweeper comes back every few seconds).

    Their stored results go with the hourly prune, once no run points at them.
    """
    ids = list(prunable_drafts(now).values_list("pk", flat=True)[:batch])
    if not ids:
        return 0
    with transaction.atomic():
        # Locked first (PostgreSQL): a draft kept while it is collected for deletion waits,
        # and one kept just before is no longer a draft here. Without the lock, `delete()`
        # reads the rows, then deletes them by key: a draft kept in between went too.
        doomed = Run.objects.select_for_update().filter(pk__in=ids, draft=True)
        locked = list(doomed.values_list("pk", flat=True))
        deleted = Run.objects.filter(pk__in=locked, draft=True).delete()[1]
        return deleted.get(Run._meta.label, 0)
