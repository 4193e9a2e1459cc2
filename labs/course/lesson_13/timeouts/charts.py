"""Charts for the timeouts lab: stuck requests per wait, and how long each caller is held."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import FAILED, GREY, OK, bar, figure, hline
from labs.text import gettext, gettext_noop, num


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, held = result["series"], result["tables"]["held"]
    timeout_ms = result["params"]["timeout_ms"]
    waits = [gettext("wait %(s)s s") % {"s": num(w)} for w in s["wait_s"]]
    stuck = figure(
        title=gettext("Requests stuck at once at %(rate)s req/s")
        % {"rate": num(result["summary"]["rate_per_s"])},
        x_title=gettext_noop("longest wait"),
        y_title=gettext_noop("requests stuck"),
        traces=[
            bar(
                waits,
                s["stuck_requests"],
                gettext_noop("stuck"),
                text=[num(n) for n in s["stuck_requests"]],
            )
        ],
        x_category=True,
        hovermode="closest",
    )
    calls = [f"{num(lat)} ms" for lat in held["latency_ms"]]
    level, note = hline(
        timeout_ms, gettext("timeout %(ms)s ms") % {"ms": num(timeout_ms)}, FAILED, y_log=True
    )
    colours = [OK if outcome == "ok" else FAILED for outcome in held["outcome"]]
    # A zero cannot sit on a log axis; show it as 1 ms.
    # Each bar says its outcome in words too: colour alone does not reach every reader.
    words = [
        gettext("ok") if outcome == "ok" else gettext("timed out") for outcome in held["outcome"]
    ]
    caller = bar(
        calls,
        [max(1, v) for v in held["held_ms"]],
        gettext_noop("caller held"),
        text=words,
    )
    caller["marker"] = {"color": colours}
    answers = bar(
        calls,
        [max(1, v) for v in held["latency_ms"]],
        gettext_noop("service answers after"),
        color=GREY,
    )
    held_fig = figure(
        title=gettext_noop("How long each caller is held (log scale)"),
        x_title=gettext_noop("the service answers after"),
        y_title=gettext_noop("milliseconds"),
        traces=[answers, caller],
        barmode="group",
        y_log=True,
        x_category=True,
        shapes=[level],
        annotations=[note],
        hovermode="closest",
    )
    return [stuck, held_fig]
