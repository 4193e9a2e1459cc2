"""Charts for fan-out on a real queue: jobs done against the formula, and the queue itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from labs.charts import live
from labs.charts.base import GREY, OK, figure, line, window
from labs.text import gettext, gettext_noop, num


def progress(samples: Sequence[Mapping[str, Any]], summary: Mapping[str, Any] | None = None):
    t = [s.get("t_s") for s in samples]
    traces = [
        line(t, [s.get("expected_done") for s in samples], gettext_noop("the formula: W × R × t"),
             color=GREY, dash="dash"),
        line(t, [s.get("done") for s in samples], gettext_noop("done on the real queue"), color=OK),
    ]  # fmt: skip
    shapes, notes = [], []
    if summary:
        shape, note = window(
            summary["formula_s"], summary["measured_s"],
            f"{summary['measured_s'] - summary['formula_s']:+.2f} s", color=GREY,
        )  # fmt: skip
        shapes, notes = [shape], [note]
    return figure(
        title=gettext_noop("Jobs done: the real queue against N / (W × R)"),
        x_title=gettext_noop("seconds since the jobs were sent"), y_title=gettext_noop("jobs done"),
        traces=traces, shapes=shapes, annotations=notes, height=340,
    )  # fmt: skip


def live_chart(samples: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> dict[str, Any]:
    """While it runs: the queue and the formula's line, growing."""
    expected = [s.get("expected_done") for s in samples]
    t = [s.get("t_s") for s in samples]
    return live.queue(
        samples,
        title=gettext_noop("Live: the queue, and jobs done against the formula"),
        extra=[line(t, expected, gettext_noop("done by the formula"), color=GREY, dash="dash")],
    )


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    samples = live.rows(result["series"])
    s = result["summary"]
    return [
        progress(samples, s),
        live.queue(
            samples,
            title=gettext("The queue: %(deliveries)s duplicate deliveries, %(sms)s duplicate SMS")
            % {"deliveries": num(s["duplicates_delivered"]), "sms": num(s["duplicate_effects"])},
        ),
    ]
