"""The pool-trap lab in production: the pool's size and the longest wait for a connection.

SQLAlchemy's `pool_size`, `max_overflow` and `pool_timeout` (seconds); HikariCP's
`maximumPoolSize` and `connectionTimeout` (milliseconds, 250 at least); a resilience4j
thread-pool bulkhead's `queueCapacity`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The pool-trap lab's pool: its size and the longest wait for a connection in
    SQLAlchemy and HikariCP, and a bulkhead's waiting room in resilience4j."""
    size = int(values["pool_size"])
    wait_ms = float(
        values["short_wait_ms"] if values["control"] == "short_wait" else values["pool_wait_ms"]
    )
    sqlalchemy = (
        "from sqlalchemy import create_engine\n\n"
        "engine = create_engine(\n"
        '    "postgresql+psycopg://USER@DB_HOST/jobs",\n'
        f"    pool_size={size},\n"
        "    max_overflow=0,  # " + gettext("never more connections than the pool") + "\n"
        f"    pool_timeout={wait_ms / 1000:g},  # "
        + gettext("seconds to wait for a connection")
        + "\n"
        ")\n"
    )
    hikari_ms = max(250, round(wait_ms))
    hikari = (
        f"maximumPoolSize={size}\n"
        "# " + gettext("milliseconds to wait for a connection; HikariCP accepts 250 or more") + "\n"
        f"connectionTimeout={hikari_ms}\n"
    )
    bulkhead = (
        "resilience4j.thread-pool-bulkhead:\n"
        "  instances:\n"
        "    database:\n"
        f"      maxThreadPoolSize: {size}\n"
        f"      coreThreadPoolSize: {size}\n"
        f"      queueCapacity: {int(values['bulkhead_waiters'])}  # "
        + gettext("more waiting are refused")
        + "\n"
    )
    return [
        Snippet("SQLAlchemy", "python", sqlalchemy),
        Snippet("HikariCP", "properties", hikari),
        Snippet("resilience4j", "yaml", bulkhead),
    ]
