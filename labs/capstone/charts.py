"""Charts for the before/after report: the two timelines overlaid, and one chart per step."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import BLUE, FAILED, GREY, INK, OK, PURPLE, figure, hline, line, vline
from labs.text import gettext, gettext_noop, num

# Grey is the untreated case everywhere on the site; the run with controls gets blue.
LIMIT = PURPLE
SIDES = {
    "before": (gettext_noop("before (controls off)"), GREY),
    "after": (gettext_noop("after (controls on)"), BLUE),
}


# With one seed the runs match until the controls go on: draw "before" wide underneath
# so that it still shows where "after" covers it.
WIDTHS = {"before": 5, "after": 2}


def _both(report: Mapping[str, Any], name: str) -> list[dict]:
    t = report["timelines"]
    traces = []
    for side, (words, colour) in SIDES.items():
        trace = line(t[side]["second"], t[side][name], words, color=colour)
        trace["line"]["width"] = WIDTHS[side]
        traces.append(trace)
    return traces


def _controls_mark(report: Mapping[str, Any]) -> tuple[list[dict], list[dict]]:
    at = report["measures"]["after"]["recover_at_s"]
    shape, note = vline(at, gettext("controls on at %(t)s s") % {"t": num(at)}, OK)
    return [shape], [note]


def _figure(report: Mapping[str, Any], title: str, y_title: str, traces: list[dict], **kw) -> dict:
    shapes, notes = _controls_mark(report)
    extra_shapes, extra_notes = kw.pop("marks", ([], []))
    return figure(
        title=title,
        x_title=gettext_noop("second"),
        y_title=y_title,
        traces=traces,
        shapes=[*shapes, *extra_shapes],
        annotations=[*notes, *extra_notes],
        height=320,
        **kw,
    )


def timelines(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Backlog, age of the oldest request and useful answers, before and after, overlaid."""
    t = report["timelines"]["after"]
    return [
        _figure(
            report,
            gettext_noop("Backlog: requests waiting or in service"),
            gettext_noop("requests"),
            _both(report, "backlog"),
        ),
        _figure(
            report,
            gettext_noop("How long the oldest waiting request had waited"),
            gettext_noop("seconds"),
            _both(report, "oldest_age_s"),
        ),
        _figure(
            report,
            gettext_noop("Useful answers each second (goodput), and new requests in the after run"),
            gettext_noop("per second"),
            [
                *_both(report, "useful"),
                line(
                    t["second"],
                    t["arrivals"],
                    gettext_noop("new requests (after)"),
                    color=INK,
                    dash="dot",
                ),
            ],
        ),
    ]


def step_figure(report: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The chart that shows whether one step of the procedure worked."""
    m = report["measures"]["after"]
    t = report["timelines"]
    if key == "stop-amplification":
        return _figure(
            report,
            gettext_noop("Retries each second"),
            gettext_noop("retries per second"),
            _both(report, "retries"),
        )
    if key == "drop-expired":
        return _figure(
            report,
            gettext_noop("Completions for callers who had already gone (wasted work)"),
            gettext_noop("per second"),
            _both(report, "wasted"),
        )
    if key == "reconcile-payments":
        return _figure(
            report,
            gettext_noop("Payments with no owner (unknown), lost, and reconciled"),
            gettext_noop("payments"),
            [
                *_both(report, "payments_unknown"),
                line(
                    t["before"]["second"],
                    t["before"]["payments_lost"],
                    gettext_noop("lost (before)"),
                    color=FAILED,
                    dash="dot",
                ),
                line(
                    t["after"]["second"],
                    t["after"]["payments_lost"],
                    gettext_noop("lost (after)"),
                    color=FAILED,
                ),
                line(
                    t["after"]["second"],
                    t["after"]["payments_reconciled"],
                    gettext_noop("reconciled (after)"),
                    color=OK,
                ),
            ],
        )
    if key == "admit-below-capacity":
        level, note = hline(
            m["safe_capacity_rps"],
            gettext("safe useful capacity %(rate)s/s") % {"rate": num(m["safe_capacity_rps"])},
            OK,
        )
        return _figure(
            report,
            gettext_noop("Requests let into the queue each second"),
            gettext_noop("per second"),
            _both(report, "admitted"),
            marks=([level], [note]),
        )
    if key == "reopen":
        after = t["after"]
        limits = [v if v else None for v in after["admit_limit_rps"]]  # 0 = no limit: a gap
        return _figure(
            report,
            gettext_noop("After the drain: the admission limit, useful answers and new requests"),
            gettext_noop("per second"),
            [
                line(
                    after["second"],
                    limits,
                    gettext_noop("admission limit (after)"),
                    color=LIMIT,
                    shape="hv",
                ),
                line(
                    after["second"],
                    after["useful"],
                    gettext_noop("useful answers (after)"),
                    color=OK,
                ),
                line(
                    after["second"],
                    after["arrivals"],
                    gettext_noop("new requests (after)"),
                    color=INK,
                    dash="dot",
                ),
            ],
        )
    raise KeyError(key)
