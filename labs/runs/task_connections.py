"""A worker keeps its database connection from one task to the next, as the web does.

Celery's Django fixup closes every database connection before and after each task, unless
`CELERY_DB_REUSE_MAX` is set: every quick run then paid for a new PostgreSQL connection
(a backend forked and authenticated, its catalogue caches filled again), a few ms of the
worker's and the database's CPU per draft (bench/drag.py, docs/benchmarks.md). With
`CELERY_DB_REUSE_MAX` set (school/settings.py) Celery leaves it open, and here, around
each task, Django's own rule between two requests applies instead: a connection older than
`CONN_MAX_AGE`, or left unusable by an error, is closed, and the next query opens a fresh
one (checked first: `CONN_HEALTH_CHECKS`). With `CONN_MAX_AGE` 0 (no `DB_CONN_MAX_AGE`)
that closes it after every task, as before.
"""

from __future__ import annotations

from typing import Any

from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections


@task_prerun.connect
@task_postrun.connect
def between_tasks(sender: Any = None, **kwargs: Any) -> None:
    """Close the connection if it is too old or broken (not for a task run in its
    caller's process: tests and `lab run` share the caller's connection)."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    close_old_connections()
