"""A finished run's rendered fragment, shared by every web process on every machine.

A class polls its runs at once: when 100 students' runs finish, each web process would
otherwise render the same charts for each of its workers. The rendered HTML goes into
Django's cache (Redis database 2 by default, apart from the broker and the experiments:
`CACHE_REDIS_URL`), so one render serves every process, once per language. Two levels:
a run's whole fragment (its id, links and timings are its own), and inside it the tables
and charts, which are most of the work and depend only on the result: they are kept by
the result store's key, so 100 students pressing Run on the same defaults get one render
of the charts between them.

The key names the code that renders it (templates, presenters, charts, catalogues), so a
new deploy never serves a fragment rendered by older code; each entry expires after an
hour, so Redis's `volatile-ttl` policy may evict it. A cache that does not answer is
skipped: the page is rendered, never a 500.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from functools import cache
from pathlib import Path

import redis
from django.conf import settings
from django.core.cache import cache as django_cache

logger = logging.getLogger(__name__)

# A finished run's fragment never changes; the TTL lets Redis evict it (volatile-ttl).
TTL_S = 3600
# A draft's page (a slider moved) is looked at once or twice, and a scripting student makes
# hundreds a minute (~15 MB a minute in the attack review): drafts' pages are kept for ten
# minutes, the newest DRAFT_PAGES_PER_STUDENT of each student and DRAFT_PAGES_IN_ALL of
# everyone, older ones deleted as new ones come.
DRAFT_TTL_S = 600
DRAFT_PAGES_PER_STUDENT = 20
DRAFT_PAGES_IN_ALL = 2000
# What a fragment's HTML depends on besides the run: the code and words that render it.
RENDER_SOURCES = ("labs", "templates", "locale", "lessons", "teaching")
RENDER_SUFFIXES = {".py", ".pyx", ".html", ".po"}


@cache
def render_version() -> str:
    """A short hash of the code and catalogues that render a run (once per process)."""
    base = Path(settings.BASE_DIR)
    digest = hashlib.sha256()
    for name in RENDER_SOURCES:
        root = base / name
        for path in sorted(p for p in root.rglob("*") if p.suffix in RENDER_SUFFIXES):
            digest.update(str(path.relative_to(base)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def key(run_pk, language: str) -> str:
    """A run's whole fragment."""
    return f"run-body:{render_version()}:{run_pk}:{language}"


def draft_body_key(run, language: str) -> str:
    """The body that the drafts of one result answered at once share (views.runs)."""
    return f"run-draft-body:{render_version()}:{run.result_key}:{language}"


def charts_key(run, language: str) -> str:
    """A result's tables and charts: one per result-store key (else per run)."""
    result = run.result_key or f"run-{run.pk}"
    return f"run-charts:{render_version()}:{result}:{language}"


def cached_html(name: str, render: Callable[[], str], *, draft_of: int | None = None) -> str:
    """The HTML kept under `name`: from the shared cache, else `render()`ed and kept (as a
    draft's page of student `draft_of`, bounded, when given)."""
    try:
        html = django_cache.get(name)
    except (redis.RedisError, OSError) as exc:
        logger.warning("fragment cache unavailable, rendering %s: %s", name, exc)
        return render()
    if html is None:
        html = render()
        try:
            if draft_of is None:
                django_cache.set(name, html, TTL_S)
            else:
                _keep_draft_page(name, html, draft_of)
        except (redis.RedisError, OSError) as exc:
            logger.warning("could not cache %s: %s", name, exc)
    return html


def _keep_draft_page(name: str, html: str, owner: int) -> None:
    """Keep a draft's page, and delete the oldest past the student's and everyone's bound."""
    django_cache.set(name, html, DRAFT_TTL_S)
    client = django_cache._cache.get_client(write=True)  # type: ignore[attr-defined]
    full = django_cache.make_key(name)
    for listed, most in (
        (f"draft-pages:{owner}", DRAFT_PAGES_PER_STUDENT),
        ("draft-pages:all", DRAFT_PAGES_IN_ALL),
    ):
        list_key = django_cache.make_key(listed)
        pipe = client.pipeline(transaction=True)
        pipe.lrem(list_key, 0, full)
        pipe.lpush(list_key, full)
        pipe.lrange(list_key, most, -1)
        pipe.ltrim(list_key, 0, most - 1)
        pipe.expire(list_key, DRAFT_TTL_S)
        over = pipe.execute()[2]
        if over:
            client.delete(*over)


def forget(run_pk) -> None:
    """Drop a run's fragment in every language (after its name or note changes)."""
    names = [key(run_pk, code) for code, _name in settings.LANGUAGES]
    try:
        django_cache.delete_many(names)
    except (redis.RedisError, OSError) as exc:
        logger.warning("could not forget run %s's fragment: %s", run_pk, exc)
