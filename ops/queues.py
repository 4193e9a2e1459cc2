"""The operations page: the site's own queues, for teachers and admins to watch (and
project) while a class presses Run. Students get 404, as for a page that is not there.

It reads only what the sweeper's sampler wrote to Redis (`labs.runs.telemetry_store`), so
a projector polling it every 2 s costs one Redis GET and one LRANGE per look, well within
the site's poll budget (`LAB_POLLS_PER_S`, 100 a second for all pages together).
"""

from __future__ import annotations

import math
import time
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from labs.charts import operations as charts
from labs.roles import is_teacher
from labs.runs import telemetry_store

POLL_S = 2


def queue_labels() -> list[tuple[str, str]]:
    return [
        (settings.LAB_QUEUE, str(gettext_lazy("Quick labs"))),
        (settings.LAB_HEAVY_QUEUE, str(gettext_lazy("Heavy work"))),
    ]


def in_words(figures: dict[str, Any] | None) -> str:
    """One sentence in the course's terms: how many wait, how old the oldest, whether the
    queue drains and when it will be empty (depth ÷ net rate, as in Lesson 12)."""
    if figures is None:
        return _("No figures: the sweeper's sampler is not running.")
    if not figures.get("workers"):
        return _("No worker is up for this queue: its runs cannot start.")
    depth = figures.get("depth") or 0
    if not depth:
        return _("No runs waiting: the queue is empty.")
    waiting = ngettext(
        "%(n)d run waiting, the oldest %(age)s s",
        "%(n)d runs waiting, the oldest %(age)s s",
        depth,
    ) % {"n": depth, "age": f"{figures.get('oldest_s') or 0:.1f}"}
    drain = figures.get("drain_s")
    if drain is None:
        rest = _("not draining: runs arrive as fast as they leave, or faster.")
    else:
        rest = _("draining at %(rate)s/s, empty in about %(s)d s.") % {
            "rate": f"{figures.get('net_per_s') or 0:g}",
            "s": max(1, math.ceil(drain)),
        }
    return _("%(waiting)s: %(rest)s") % {"waiting": waiting, "rest": rest}


def spread(figures: dict[str, Any] | None) -> str:
    """p50 / p95 / p99 in seconds, or a dash when no run finished in the window."""
    if not figures or not figures.get("n"):
        return "—"
    return " / ".join(f"{figures[p]:.2f}" for p in ("p50", "p95", "p99"))


@login_required
@require_GET
@never_cache
def queues_page(request: HttpRequest) -> HttpResponse:
    if not (is_teacher(request.user) or request.user.is_staff):
        raise Http404("not here")
    snap = telemetry_store.snapshot()
    rows = []
    for queue, label in queue_labels():
        figures = snap["queues"].get(queue) if snap else None
        f = figures or {}
        rows.append(
            {
                "queue": queue,
                "label": label,
                "f": f,
                "said": in_words(figures),
                "run_s": spread((f.get("run_s") or {}).get("5m")),
                "latency_s": spread((f.get("latency_s") or {}).get("5m")),
                "failures": ", ".join(
                    f"{code} {n}"
                    for code, n in sorted(((f.get("failures") or {}).get("60m") or {}).items())
                ),
            }
        )
    context = {
        "rows": rows,
        "charts": charts.build(telemetry_store.samples(), queue_labels(), now=time.time()),
        "poll_s": POLL_S,
    }
    template = "ops/queues_body.html" if request.headers.get("HX-Request") else "ops/queues.html"
    return render(request, template, context)
