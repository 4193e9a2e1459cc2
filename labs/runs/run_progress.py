"""Progress of a run, saved to its row so every web process can show it."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any

from django.db import DatabaseError, close_old_connections, connection

from labs.experiments.namespace import run_key_for
from labs.interface.progress import LIVE_HISTORY
from labs.runs.models import Run

logger = logging.getLogger(__name__)


class RunProgress:
    """Writes progress to the database at most a few times a second.

    `update` writes from the runner's thread. Live samples arrive on the experiment's
    sampler thread; they are kept in memory (the last `history`) and written by a thread
    of this object's own every `flush_every_s`, so no sampler thread opens a database
    connection and a minute of samples costs a few dozen writes. Use it as a context
    manager: leaving the block writes the last samples and stops that thread.
    """

    min_interval_s = 0.25
    flush_every_s = 0.5

    def __init__(self, run: Run, *, limit_s: float, history: int = LIVE_HISTORY) -> None:
        self.run = run
        self.run_key = run_key_for(run.pk)
        self.deadline = time.monotonic() + limit_s
        # The first write waits `min_interval_s` too: a run done sooner (most quick labs)
        # writes no progress at all, only its result: one write per run.
        self.last_write = time.monotonic()
        self.written = False
        self._lock = threading.Lock()
        self._state: dict[str, Any] = {"done": 0, "total": 0, "live": None}
        self._samples: deque[dict[str, Any]] = deque(maxlen=history)
        self._dirty = False
        self._stop = threading.Event()
        self._flusher: threading.Thread | None = None

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        now = time.monotonic()
        with self._lock:
            self._state = {"done": done, "total": total, "live": live}
            if now - self.last_write < self.min_interval_s and (done < total or not self.written):
                self._dirty = True  # the flusher (if running) or a later update writes it
                return
            self.last_write = now
            self.written = True
        self._write()

    def sample(self, sample: dict[str, Any]) -> None:
        with self._lock:
            self._samples.append(sample)
            self._dirty = True
            if self._flusher is None and not self._stop.is_set():
                self._flusher = threading.Thread(
                    target=self._flush_until_stopped, name="progress-flush", daemon=True
                )
                self._flusher.start()

    def should_stop(self) -> bool:
        return time.monotonic() >= self.deadline

    def close(self) -> None:
        """Write what is left and stop the flusher thread."""
        self._stop.set()
        with self._lock:
            flusher = self._flusher
        if flusher is not None:
            flusher.join(timeout=10)

    def _snapshot(self) -> dict[str, Any]:
        with self._lock:
            self._dirty = False
            return self._state | {"samples": list(self._samples)}

    def _write(self) -> None:
        # Only while running: a late write must not overwrite a finished run's row.
        Run.objects.filter(pk=self.run.pk, status=Run.Status.RUNNING).update(
            progress=self._snapshot()
        )

    def _flush_until_stopped(self) -> None:
        try:
            while not self._stop.wait(self.flush_every_s):
                if self._dirty:
                    close_old_connections()
                    self._flush()
            if self._dirty:
                self._flush()
        finally:
            connection.close()  # this thread's own connection

    def _flush(self) -> None:
        try:
            self._write()
        except DatabaseError as exc:
            # The live view misses a beat; the run itself goes on, and the next flush retries.
            logger.warning("could not save the live samples of run %s: %s", self.run.pk, exc)
            self._dirty = True
