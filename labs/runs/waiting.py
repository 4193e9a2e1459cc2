"""What a run's page says while it waits, and how soon the page looks again.

A queued run tells its student how many runs are ahead of it on its queue (only runs that
will take a worker: a run waiting on an identical one does not) and, once it has waited a
while, that the runners may be busy or down and when it will give up. The page polls
soon after Run and less often as the run ages, so a 10 ms lab shows within a few tenths
of a second while a minute-long one costs no more requests than a poll a second did.

When a whole class waits at once, the pages share a budget of polls a second
(`LAB_POLLS_PER_S`): with 100 runs waiting, each page looks about once a second rather
than six times. A class's polls would otherwise take the CPU its runs, its presses and
its charts need (measured: bench/burst.py, docs/benchmarks.md).
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from labs.runs.admission import experiment_slugs
from labs.runs.models import Run
from labs.runs.turns import whose_turn_it_waits_for

# (age below which, poll delay): fast at first, then backing off. The first look comes
# 50 ms after Run: a quick lab (tens of ms of CPU) is done by then on a quiet site, and a
# student sees the chart without waiting out a fixed delay longer than the run itself.
# Only the first: each poll costs the site a few ms of CPU, and on a busy machine a run
# takes longer, so a second 50 ms step would mostly add polls.
POLL_STEPS_MS = ((0.1, 50), (1.0, 150), (5.0, 300), (20.0, 1000))
POLL_SLOWEST_MS = 2000
# After this long in the queue, the page says the runners may be busy or down.
SLOW_AFTER_S = 20


def poll_delay_ms(run: Run, now=None, waiting_runs: int | None = None) -> int:
    """How long the page waits before it asks about `run` again.

    The longer of the run's own pace (by its age) and its share of the site's poll budget
    (`waiting_runs` pages polling; counted here when not given), at most 2 s.
    """
    age_s = ((now or timezone.now()) - run.created_at).total_seconds()
    own_ms = next((ms for below_s, ms in POLL_STEPS_MS if age_s < below_s), POLL_SLOWEST_MS)
    if waiting_runs is None:
        waiting_runs = waiting_count()
    share_ms = int(1000 * waiting_runs / settings.LAB_POLLS_PER_S)
    return min(max(own_ms, share_ms), POLL_SLOWEST_MS)


def waiting_count() -> int:
    """Runs queued or running on the whole site: the pages polling now (one indexed COUNT)."""
    return Run.objects.active().count()


def runs_ahead(run: Run) -> int:
    """Queued runs on the same queue that a worker takes before this one: sent at a higher
    priority (a class with fewer runs waiting: `labs.runs.fair_share`), or at the same one
    and before it."""
    ahead = Q(priority__lt=run.priority) | Q(priority=run.priority, created_at__lt=run.created_at)
    return Run.objects.filter(
        ahead,
        status=Run.Status.QUEUED,
        queue=run.queue,
        same_as__isnull=True,
    ).count()


def waiting_text(run: Run, now=None) -> str:
    """What a queued run's page says about the wait; "" once it is not queued."""
    if run.status != Run.Status.QUEUED:
        return ""
    if run.same_as_id:
        return _(
            "Someone started the very same run (same lab, parameters and seed) a moment "
            "ago: yours will show its result as soon as it is ready."
        )
    # Only experiments take turns: a simulation's page need not ask (a query per poll).
    waits_for = whose_turn_it_waits_for(run.pk) if run.lab in experiment_slugs() else None
    if waits_for == "own":
        return _(
            "Your other experiment is running. Each student's experiments take turns, one at "
            "a time, so everyone gets a worker: this one starts when that one ends."
        )
    if waits_for == "address":
        return _(
            "Another experiment from this device or network address is running. Experiments "
            "take turns one per person, and one address counts as one person however many "
            "accounts use it: this one starts when that one ends."
        )
    ahead = runs_ahead(run)
    if ahead:
        words = ngettext(
            "%(n)d run ahead of yours in the queue.",
            "%(n)d runs ahead of yours in the queue.",
            ahead,
        ) % {"n": ahead}
    else:
        words = _("Yours is next in the queue.")
    waited_s = int(((now or timezone.now()) - run.created_at).total_seconds())
    if waited_s >= SLOW_AFTER_S:
        minutes = max(1, round(settings.LAB_QUEUE_TIMEOUT_S / 60))
        words += " " + _(
            "Waiting %(s)d s so far: the runners are busy, or none is running. If no runner "
            "takes it within %(m)d minutes, the run stops and says so."
        ) % {"s": waited_s, "m": minutes}
    return words
