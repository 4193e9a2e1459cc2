"""Runs have succeeded: said to whoever above labs asked to hear it.

Teaching credits a challenge that a run meets, and keeps the draft that met it
(`teaching.challenge_credits`). Labs sits below teaching and may not import it, so
teaching asks once at start-up (`TeachingConfig.ready` calls `listen`), and every place
that ends runs as succeeded calls `tell` once their rows are saved: the worker's task
(`labs.runs.tasks`), a run answered at once from the result store (`labs.runs.dispatch`)
and the followers of an identical run (`labs.runs.result_store.settle_followers`).

`tell` names the runs that ended; a listener reads them and the runs that followed them
(`same_as`). A listener must be idempotent: a run may be told twice (a follower settled by
its leader's task and again by the sweeper), and nothing here is ever a request's GET.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

logger = logging.getLogger(__name__)

Listener = Callable[[list], Any]  # given the run ids; what it returns is not read
_listeners: list[Listener] = []


def listen(listener: Listener) -> None:
    """Call `listener(run_ids)` whenever runs succeed (once per process, at start-up)."""
    if listener not in _listeners:
        _listeners.append(listener)


def tell(run_ids: Iterable) -> None:
    """Say that these runs (and the runs that followed them) succeeded.

    Never raises: a listener's failure is logged, and the run stays as it ended (a missed
    challenge credit is the student's to earn again, never a failed run).
    """
    ids = [run_id for run_id in run_ids if run_id is not None]
    if not ids:
        return
    for listener in _listeners:
        try:
            listener(ids)
        except Exception:
            logger.exception("a listener failed on the runs %s", ids)
