"""How a running lab reports progress and learns that it should stop.

The runner only sees this small interface; the Celery task saves what it reports
to the run's row (so any web process on any machine can show it), and the `lab`
command prints it. A real experiment also reports live samples (one reading of its
queue every fraction of a second), of which the last `LIVE_HISTORY` are kept, and
keeps its Redis keys under `run_key` so they can be found again if its worker dies.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

# Samples kept for the live chart: a minute at the experiments' 0.1 s interval.
LIVE_HISTORY = 600


class Progress(Protocol):
    @property
    def run_key(self) -> str | None:
        """The id a real experiment's Redis keys live under; None: a random one."""

    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        """Record that `done` of `total` steps are finished, with optional live figures."""

    def sample(self, sample: dict[str, Any]) -> None:
        """Record one live reading of a running experiment (may be called from any thread)."""

    def should_stop(self) -> bool:
        """True once the run has been cancelled or has used up its time."""


class SilentProgress:
    """Progress that is not shown anywhere: for tests and the command line."""

    run_key: str | None = None

    def __init__(self, *, history: int = LIVE_HISTORY) -> None:
        self.done = 0
        self.total = 0
        self.live: dict[str, Any] | None = None
        self.samples: deque[dict[str, Any]] = deque(maxlen=history)
        self.sampled = 0  # every sample ever reported, kept or not

    def update(self, done: int, total: int, live: dict[str, Any] | None = None) -> None:
        self.done, self.total, self.live = done, total, live

    def sample(self, sample: dict[str, Any]) -> None:
        self.samples.append(sample)
        self.sampled += 1

    def should_stop(self) -> bool:
        return False
