"""Runs have succeeded: said to whoever above labs asked to hear it.

Teaching credits a challenge that a run meets, and keeps the draft that met it
(`teaching.challenge_credits`). Labs sits below teaching and may not import it, so
teaching asks once at start-up (`TeachingConfig.ready` calls `listen`), and every place
that ends runs as succeeded calls `tell` once their rows are saved: the worker's task
(`labs.runs.tasks`), a run answered at once from the result store (`labs.runs.dispatch`)
and the followers of an identical run (`labs.runs.result_store.settle_followers`).

`tell` names the runs that ended; a listener reads them and the runs that followed them
(`same_as`). A run answered at once from the store is handed over itself, as the POST holds
it (its result loaded, and no run ever follows it: only a run that computes leads), so a
listener judges it without reading it back: a class dragging one slider makes such a run
at nearly every move. So is a run the worker has just computed and saved when no run
followed it (nearly every draft with a student's own values): the task holds it as saved.
A listener must be idempotent: a run may be told twice (a follower settled by its leader's
task and again by the sweeper), and nothing here is ever a request's GET. A
listener that keeps a draft (`labs.runs.drafts.keep`) returns its id, and `tell` returns
them all: the worker's announcement then says the run is no longer a draft, and the press
it answers shows it kept without reading the row back (`labs.runs.ended`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

logger = logging.getLogger(__name__)

# Given the runs (their ids, or a run held as saved: module doc); returns
# the ids of the drafts it kept, if any (else None).
Listener = Callable[[list], Iterable | None]
_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Call `listener(run_ids)` whenever runs succeed (once per process, at start-up)."""
    if listener not in _listeners:
        _listeners.append(listener)


def tell(run_ids: Iterable) -> set[str]:
    """Say that these runs (and the runs that followed them) succeeded; the ids (as text)
    of the drafts the listeners kept. Each is a run's id, or a run held as saved (module
    doc).

    Never raises: a listener's failure is logged, and the run stays as it ended (a missed
    challenge credit is the student's to earn again, never a failed run).
    """
    ids = [run_id for run_id in run_ids if run_id is not None]
    kept: set[str] = set()
    if not ids:
        return kept
    for listener in _listeners:
        try:
            kept.update(str(run_id) for run_id in listener(ids) or ())
        except Exception:
            logger.exception("a listener failed on the runs %s", ids)
    return kept
