"""One line, not a traceback, for the failures the site expects: a refused request (403)
and a request while the database is down.

Django logs both through `django.request` with the exception attached, so a scripted probe
of forbidden pages, or a 30 s database outage (~270 requests), wrote a full traceback each
and buried everything else. The line keeps the reason (the refusal's sentence, the
database's error); a real bug (any other exception) keeps its traceback.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, InterfaceError, OperationalError

EXPECTED = (PermissionDenied, OperationalError, InterfaceError)


class OneLineForExpected(logging.Filter):
    """A filter for the `django.request` logger (settings.LOGGING)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, EXPECTED):
            what = "database" if isinstance(exc, DatabaseError) else "refused"
            reason = " ".join(str(exc).split())[:300]
            record.msg = f"{record.getMessage()} ({what}: {type(exc).__name__}: {reason})"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True
