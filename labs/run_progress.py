"""Progress of a run, saved to its row so every web process can show it."""

from __future__ import annotations

import time
from typing import Any

from labs.models import Run


class RunProgress:
    """Writes progress to the database at most a few times a second."""

    min_interval_s = 0.25

    def __init__(self, run: Run, *, limit_s: float) -> None:
        self.run = run
        self.deadline = time.monotonic() + limit_s
        self.last_write = 0.0

    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        now = time.monotonic()
        if now - self.last_write < self.min_interval_s and done < total:
            return
        self.last_write = now
        Run.objects.filter(pk=self.run.pk, status=Run.Status.RUNNING).update(
            progress={"done": done, "total": total, "live": live}
        )

    def should_stop(self) -> bool:
        return time.monotonic() >= self.deadline
