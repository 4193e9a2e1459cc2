"""A worker's hold on a run, renewed while the run is alive.

The lease is short (`LAB_LEASE_S`, 20 s by default) and a background thread renews it four
times per lease, so a run whose worker was killed is noticed within seconds, not after the
lab's whole time limit: its lease runs out, and the run is taken over or marked failed.
"""

from __future__ import annotations

import threading
from datetime import timedelta

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone


def lease_s() -> int:
    """How long a claim holds without renewal (the `LAB_LEASE_S` setting)."""
    return settings.LAB_LEASE_S


class LeaseKeeper:
    """Renews `run_id`'s lease until the `with` block ends."""

    def __init__(self, run_id, *, lease_s: int | None = None, renew_every_s: float | None = None):
        self.run_id = run_id
        self.lease_s = lease_s or settings.LAB_LEASE_S
        # Four renewals per lease: one slow database write does not lose the run.
        self.renew_every_s = renew_every_s or self.lease_s / 4
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._renew_until_stopped, daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join(timeout=self.renew_every_s + 5)

    def _renew_until_stopped(self) -> None:
        from labs.runs.models import Run

        try:
            while not self._stop.wait(self.renew_every_s):
                close_old_connections()
                Run.objects.filter(pk=self.run_id, status=Run.Status.RUNNING).update(
                    lease_expires_at=timezone.now() + timedelta(seconds=self.lease_s)
                )
        finally:
            connection.close()  # this thread's own connection
