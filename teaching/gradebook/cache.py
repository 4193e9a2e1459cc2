"""The gradebook's table (and its CSV), made once per class and language until something in it
changes.

A class of 100 × 20 renders 2,000 cells (most of a second of CPU); a teacher reloading it
while marking would pay that each time. The rendered table is kept in Django's shared cache
(Redis: every web process on every machine reads the same copy) under the class's version,
a counter bumped by every save or delete that changes a cell (`teaching.apps` connects
`bump_for` to submissions, versions, extensions, memberships, assignments, the class,
self-check attempts and a student's name). A cell's timing also changes when a due date
passes, so a copy lives at most until the class's next due date (and never over an hour).

A Redis that does not answer (stopped, or full and refusing writes) never refuses the save
that bumps: a hand-in or a student signing in (their last login is a save of the user) went
on while it was away (`bench/faults.py`, docs/benchmarks.md "Faults of the attack review,
re-run"). The bump is skipped and logged; a copy it could not mark stale lives out its
hour at most, and a Redis that restarted (it keeps nothing on disk) holds none.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime

import redis
from django.core.cache import cache
from django.db import connection
from django.db.models import Min
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from teaching.gradebook.book import build_gradebook
from teaching.gradebook.cells import row_cells
from teaching.models import Classroom, Extension

logger = logging.getLogger(__name__)

RENDERING = 3  # bump when the table's template or data change shape: old copies are ignored
MAX_AGE_S = 3600


def site() -> str:
    """Which database the class ids are of: sites and test runs share one Redis."""
    name = str(connection.settings_dict["NAME"])
    return hashlib.sha1(f"{connection.vendor}:{name}".encode()).hexdigest()[:12]


def _version_key(class_id: int) -> str:
    return f"gradebook:version:{site()}:{class_id}"


def version(class_id: int) -> int:
    """The class's version: changes whenever a cell of its gradebook may have (other
    class-wide caches, such as the class results page's, key on it too)."""
    return cache.get(_version_key(class_id), 0)


def bump(class_ids) -> None:
    """Forget the classes' rendered tables (their next view renders a new one)."""
    for class_id in set(class_ids):
        key = _version_key(class_id)
        try:
            if not cache.add(key, 1, timeout=None):
                try:
                    cache.incr(key)
                except ValueError:  # evicted between add and incr
                    cache.set(key, 1, timeout=None)
        except (redis.RedisError, OSError) as exc:
            logger.warning("could not mark class %s's gradebook stale: %s", class_id, exc)


def purge(class_ids, assignment_ids) -> int:
    """Delete every rendered copy of these classes' gradebooks and these assignments' class
    results, current or stale: a removed student's name must not wait out an hour in
    Redis (`accounts.removal`). How many copies went."""
    patterns = [f"gradebook:*:{site()}:{class_id}:*" for class_id in set(class_ids)]
    patterns += [f"class-results:*:{site()}:{pk}:*" for pk in set(assignment_ids)]
    client = cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    gone = 0
    for pattern in patterns:
        keys = list(client.scan_iter(match=cache.make_key(pattern), count=1000))
        if keys:
            gone += client.delete(*keys)
    return gone


def table(request: HttpRequest, classroom: Classroom) -> SafeString:
    """The gradebook's table for `classroom`, from the cache when it is current."""
    key = (
        f"gradebook:table:{RENDERING}:{site()}:{classroom.pk}:{version(classroom.pk)}:"
        f"{get_language()}"
    )
    html = cache.get(key)
    if html is None:
        now = timezone.now()
        book = build_gradebook(classroom, now)
        html = render_to_string(
            "teaching/gradebook.html#book-table",
            {"classroom": classroom, "book": book, "rows": row_cells(book.rows)},
            request=request,
        )
        cache.set(key, html, timeout=_lifetime(classroom, now))
    return mark_safe(html)  # noqa: S308 - our own template's output


def csv_bytes(request: HttpRequest, classroom: Classroom) -> bytes:
    """The gradebook's CSV (`gradebook_csv.gradebook_table`), from the cache when it is
    current: kept like the table, per class version (English only, so not per language;
    per host, as its run links are absolute)."""
    from labs.web.exports import csv_response
    from teaching.gradebook.plain_table import gradebook_table

    host = hashlib.sha1(request.build_absolute_uri("/").encode()).hexdigest()[:12]
    key = f"gradebook:csv:{RENDERING}:{site()}:{classroom.pk}:{version(classroom.pk)}:{host}"
    body = cache.get(key)
    if body is None:
        now = timezone.now()
        header, rows = gradebook_table(build_gradebook(classroom, now), request)
        body = csv_response("-", header, rows).content
        cache.set(key, body, timeout=_lifetime(classroom, now))
    return body


def _lifetime(classroom: Classroom, now: datetime) -> int:
    """Seconds until the class's next due date (a cell's timing changes then), at most an hour."""
    dues = [
        classroom.assignments.filter(due_at__gt=now).aggregate(at=Min("due_at"))["at"],
        Extension.objects.filter(assignment__classroom=classroom, due_at__gt=now).aggregate(
            at=Min("due_at")
        )["at"],
    ]
    soonest = min((d for d in dues if d is not None), default=None)
    if soonest is None:
        return MAX_AGE_S
    return max(1, min(MAX_AGE_S, int((soonest - now).total_seconds())))
