"""Sessions kept in the database, read from a copy in the shared Redis cache.

Every request with a cookie loads its session, and a class experiment's phones make about
a hundred calls a second: with Django's `db` engine each load is a query, a share of the
web's CPU that another class's pages wait behind (bench/tick_profile.py). This is Django's
`cached_db` engine: the database stays the record (every save and delete goes there first)
and a load reads the cache's copy, the database only when there is none.

The cache is the site's Redis, with 0.5 s timeouts (`CACHES` in school/settings.py). A
Redis that is down or slow must not sign anyone out nor answer 500, so every cache error
is skipped here and the session is read from and written to the database alone. Django's
own engine skips the errors of a read and of a save's copy, not those of the copy made
after a database read, of `exists` (a new key's check) or of the delete at logout.

A copy lives `COPY_TTL_S` at most, however long the session: a logout whose delete of the
copy failed (Redis unreachable for that moment) leaves the old copy no longer than that.
The browser's cookie is replaced at the logout in any case, and a signed-in session is
still checked against its user's row on every request (Django's auth: a changed password
or a deactivated account ends it at once, copy or not).

Only the synchronous methods are guarded: every page loads its session through the
middleware, synchronously, and the one async view (the class experiment's stream) reads
none. The async ones are Django's own.
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore
from django.contrib.sessions.backends.db import SessionStore as DBStore

logger = logging.getLogger("django.contrib.sessions")

COPY_TTL_S = 600  # a phone calls every second: a copy this old is still read ~600 times


class SessionStore(CachedDBStore):
    # Django's own attributes, as its `cached_db` and `db` engines use them (no stubs for them).
    _cache: Any
    _session: dict[str, Any]
    _get_session_from_db: Any

    def load(self) -> dict[str, Any]:
        try:
            data = self._cache.get(self.cache_key)
        except Exception as error:
            _skipped("read", error)
            return self._from_database(copy=False)  # the cache is failing: not again now
        if data is None:
            return self._from_database(copy=True)
        return data

    def _from_database(self, *, copy: bool) -> dict[str, Any]:
        row = self._get_session_from_db()
        if row is None:
            return {}
        data = self.decode(row.session_data)
        if copy:
            self._copy(data, self.get_expiry_age(expiry=row.expire_date))
        return data

    def save(self, must_create: bool = False) -> None:
        DBStore.save(self, must_create)  # the record first; `cached_db` would copy unguarded
        self._copy(self._session, self.get_expiry_age())

    def _copy(self, data: dict[str, Any], age_s: int) -> None:
        try:
            self._cache.set(self.cache_key, data, min(age_s, COPY_TTL_S))
        except Exception as error:
            _skipped("copy", error)

    def exists(self, session_key: str) -> bool:
        if session_key:
            try:
                if self.cache_key_prefix + session_key in self._cache:
                    return True
            except Exception as error:
                _skipped("check", error)
        return DBStore.exists(self, session_key)

    def delete(self, session_key: str | None = None) -> None:
        DBStore.delete(self, session_key)
        key = session_key or self.session_key
        if key is None:
            return
        try:
            self._cache.delete(self.cache_key_prefix + key)
        except Exception as error:
            _skipped("delete", error)


def _skipped(what: str, error: Exception) -> None:
    # One line, no traceback: an outage of the cache is expected, and said by /healthz/deep.
    logger.warning("session cache %s skipped: %s: %s", what, type(error).__name__, error)
