"""Each Celery worker says, once a second, that it is alive and which queues it consumes.

A control ping (`ops.health`) asks every worker and waits for answers, too slow to do on
every press of Run or every second; a beat is one write per worker per second, and
reading who is alive is one read (`telemetry_store.workers_alive`). A worker that stops
says so at once; one that is killed falls silent and counts as gone after
`ALIVE_FOR_S` (3 s). The beats go to the telemetry database, on any machine.
"""

from __future__ import annotations

import contextlib
import logging
import threading

import redis
from celery.signals import worker_ready, worker_shutdown

from labs.runs import telemetry_store

logger = logging.getLogger(__name__)


class Heartbeat:
    """Beats for `worker` on `queues` from a thread of its own until stopped."""

    def __init__(self, worker: str, queues: list[str]) -> None:
        self.worker, self.queues = worker, queues
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name="heartbeat")

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        # If Redis does not answer, its beats stop anyway: gone within ALIVE_FOR_S.
        with contextlib.suppress(redis.RedisError):
            telemetry_store.gone(self.worker, self.queues)

    def _beat(self) -> None:
        failing = False
        while True:
            try:
                telemetry_store.beat(self.worker, self.queues)
                failing = False
            except redis.RedisError as exc:
                if not failing:  # once per outage, not once a second
                    logger.warning("heartbeat: Redis does not answer: %s", exc)
                failing = True
            if self._stop.wait(telemetry_store.BEAT_EVERY_S):
                return


_running: list[Heartbeat] = []


@worker_ready.connect
def _start_beating(sender=None, **_kwargs) -> None:
    queues = sorted(sender.app.amqp.queues.consume_from)
    _running.append(Heartbeat(sender.hostname, queues).start())


@worker_shutdown.connect
def _stop_beating(**_kwargs) -> None:
    while _running:
        _running.pop().stop()
