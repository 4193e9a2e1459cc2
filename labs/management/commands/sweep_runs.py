"""`manage.py sweep_runs [--loop]`: end runs nobody picks up, fail dead workers' runs,
bound the kept queues, drop live samples and prune old runs; with `--loop`, also sample
the site's own queues once a second (`labs.runs.telemetry`, in a thread of its own).

`./dev run` and `./dev sweeper` start it with `--loop`. It needs no Celery worker, so it
still ends queued runs when every worker is down (that is when it matters). One per site
is enough; two are harmless (every step is a conditional update).
"""

from __future__ import annotations

import logging
import signal
import threading
import time

import redis
from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError, close_old_connections

from labs.runs import telemetry
from labs.runs.sweeps import sweep_once

logger = logging.getLogger(__name__)
PRUNE_EVERY_S = 3600


class Command(BaseCommand):
    help = "End overdue and abandoned runs, bound kept queues, prune old runs."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--loop", action="store_true", help="sweep until stopped")
        parser.add_argument(
            "--every", type=float, default=None, help="seconds between sweeps (LAB_SWEEP_EVERY_S)"
        )
        parser.add_argument("--prune", action="store_true", help="also prune now (once)")
        parser.add_argument(
            "--no-telemetry", action="store_true", help="do not sample the queues (--loop)"
        )

    def handle(
        self, *args, loop: bool, every: float | None, prune: bool, no_telemetry: bool, **options
    ) -> None:
        if not loop:
            report = sweep_once(prune_too=prune)
            self.stdout.write(str(report))
            return
        every = every or settings.LAB_SWEEP_EVERY_S
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
        last_prune = 0.0
        self.stdout.write(f"sweeping every {every:g} s")
        sampler = None
        if not no_telemetry:
            sampler = threading.Thread(target=telemetry.run_forever, args=(stop,), daemon=True)
            sampler.start()
        while not stop.is_set():
            prune_now = time.monotonic() - last_prune >= PRUNE_EVERY_S
            try:
                close_old_connections()
                report = sweep_once(prune_too=prune_now)
            except (DatabaseError, redis.RedisError) as exc:
                # The database or Redis is down or busy: say so and look again next time.
                logger.warning("sweep failed: %s", exc)
            else:
                if prune_now:
                    last_prune = time.monotonic()
                if any(report.__dict__.values()):
                    self.stdout.write(str(report))
            stop.wait(every)
        if sampler is not None:
            sampler.join(timeout=5)
