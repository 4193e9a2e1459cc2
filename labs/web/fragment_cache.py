"""A finished run's rendered fragment, shared by every web process on every machine.

A class polls its runs at once: when 100 students' runs finish, each web process would
otherwise render the same charts for each of its workers. The rendered HTML goes into
Django's cache (Redis database 2 by default, apart from the broker and the experiments:
`CACHE_REDIS_URL`), so one render serves every process, once per language.

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
# What a fragment's HTML depends on besides the run: the code and words that render it.
RENDER_SOURCES = ("labs", "templates", "locale", "lessons")
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
    return f"run-body:{render_version()}:{run_pk}:{language}"


def cached_html(run_pk, language: str, render: Callable[[], str]) -> str:
    """The run's fragment in `language`: from the shared cache, else `render()`ed and kept."""
    name = key(run_pk, language)
    try:
        html = django_cache.get(name)
    except (redis.RedisError, OSError) as exc:
        logger.warning("fragment cache unavailable, rendering run %s: %s", run_pk, exc)
        return render()
    if html is None:
        html = render()
        try:
            django_cache.set(name, html, TTL_S)
        except (redis.RedisError, OSError) as exc:
            logger.warning("could not cache run %s's fragment: %s", run_pk, exc)
    return html


def forget(run_pk) -> None:
    """Drop a run's fragment in every language (after its name or note changes)."""
    names = [key(run_pk, code) for code, _name in settings.LANGUAGES]
    try:
        django_cache.delete_many(names)
    except (redis.RedisError, OSError) as exc:
        logger.warning("could not forget run %s's fragment: %s", run_pk, exc)
