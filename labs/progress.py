"""How a running lab reports progress and learns that it should stop.

The runner only sees this small interface; the Celery task saves what it reports
to the run's row (so any web process on any machine can show it), and the `lab`
command prints it.
"""

from __future__ import annotations

from typing import Any, Protocol


class Progress(Protocol):
    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        """Record that `done` of `total` steps are finished, with optional live figures."""

    def should_stop(self) -> bool:
        """True once the run has been cancelled or has used up its time."""


class SilentProgress:
    """Progress that is not shown anywhere: for tests and the command line."""

    def __init__(self) -> None:
        self.done = 0
        self.total = 0
        self.live: dict[str, Any] | None = None

    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        self.done, self.total, self.live = done, total, live

    def should_stop(self) -> bool:
        return False
