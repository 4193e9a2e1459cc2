"""The workers' Celery consumer: a Redis too full to take writes is waited out, never a
reason for a worker to stop.

At `maxmemory`, with nothing its policy may evict (data without a TTL: another program
sharing the Redis, a huge backlog), Redis refuses writes, and a worker's consumer writes
all the time: kombu acknowledges a finished run in a MULTI (`ZREM`, `HDEL`), which Redis 7
refuses whole at its limit, and takes its restore lock (`SET NX`) on every connection.
redis-py raises `OutOfMemoryError`, a `ResponseError`, which kombu counts as a channel
error, and Celery stops the worker on a channel error: "Unrecoverable error:
OutOfMemoryError" (the fault bench's finding 5, issue 39). Runs then waited, Redis room or
not, until someone started the workers again.

`CELERY_BROKER_CHANNEL_ERROR_RETRY` (settings) has Celery reconnect after a channel error
instead. Alone, it tries again five times a second for as long as Redis stays full, logs
an error each time and a traceback each second, and leaves each refused connection open
(two clients a try: Redis would run out of clients within the hour). This consumer

- closes a connection whose set-up Redis refused;
- while Redis refuses as full, waits between tries, from `FIRST_WAIT_S` doubling to
  `LONGEST_WAIT_S`, and stops waiting at once when the worker is told to stop;
- says once that it waits, and once that it took runs again.

Nothing is lost by it. A run whose acknowledgement was refused is finished and saved; its
message stays in kombu's `unacked` and comes back after the visibility timeout, to a
worker that finds the run finished and leaves it (the claim, `Run.objects.claim`). Runs
still queued wait in their lists for the worker's return, and a message taken but not
noted as taken is sent again by the sweeper (`labs.runs.lost`).
"""

from __future__ import annotations

import logging
import time

import redis
from celery.worker.consumer import Consumer as CeleryConsumer
from celery.worker.state import maybe_shutdown
from kombu.common import ignore_errors

logger = logging.getLogger(__name__)

FIRST_WAIT_S = 1.0
LONGEST_WAIT_S = 5.0
# How often a wait looks whether the worker was told to stop.
STOP_CHECK_S = 0.2


def refused_as_full(exc: BaseException) -> bool:
    """Whether `exc` is Redis refusing a write for want of memory (redis-py's own error, or
    its words inside another library's)."""
    return isinstance(exc, redis.OutOfMemoryError) or "maxmemory" in str(exc)


class Consumer(CeleryConsumer):
    """Celery's consumer, which waits out a full Redis (see the module)."""

    full_since: float | None = None
    wait_s = 0.0

    def connect(self):
        """Celery's `connect`, closing the connection when its set-up is refused."""
        conn = self.connection_for_read(heartbeat=self.amqheartbeat)
        if self.hub:
            try:
                conn.transport.register_with_event_loop(conn.connection, self.hub)
            except BaseException:
                ignore_errors(conn, conn.close)
                raise
        return conn

    def on_connection_error_before_connected(self, exc):
        if not refused_as_full(exc):
            return super().on_connection_error_before_connected(exc)
        self.wait_out_full(exc)

    def on_connection_error_after_connected(self, exc):
        super().on_connection_error_after_connected(exc)
        if refused_as_full(exc):
            self.wait_out_full(exc)

    def wait_out_full(self, exc: BaseException) -> None:
        """Before the next try: none at the first refusal (it may have been a moment's),
        then a wait that doubles up to `LONGEST_WAIT_S`."""
        if self.full_since is None:
            self.full_since = time.monotonic()
            logger.warning(
                "Redis refuses writes as full (%s): this worker waits for room, then takes "
                "runs again",
                exc,
            )
        else:
            logger.debug("Redis still full: next try in %.0f s", self.wait_s)
            pause(self.wait_s)
        self.wait_s = min(max(FIRST_WAIT_S, 2 * self.wait_s), LONGEST_WAIT_S)

    def on_ready(self):
        super().on_ready()
        if self.full_since is not None:
            waited_s = time.monotonic() - self.full_since
            logger.warning("Redis has room again after %.0f s: this worker takes runs", waited_s)
        self.full_since, self.wait_s = None, 0.0


def pause(seconds: float) -> None:
    """Sleep `seconds`, ending the worker's way (Celery's `maybe_shutdown` raises) as soon
    as it is told to stop."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        maybe_shutdown()
        time.sleep(min(STOP_CHECK_S, left))
    maybe_shutdown()
