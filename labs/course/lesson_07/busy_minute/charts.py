"""Charts for the busy-minute lab: the backlog building in the spell and draining after."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import BUSY, figure, line, pointer, window
from labs.text import gettext, gettext_noop


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, summary, p = result["series"], result["summary"], result["params"]
    x = s["second"]
    spell, spell_note = window(-0.5, p["busy_s"] - 0.5, gettext_noop("busy spell"), color=BUSY)
    notes = [spell_note]
    if summary["cleared_at_s"] is not None and summary["peak_backlog"]:
        empty = gettext("empty at %(t)s s") % {"t": summary["cleared_at_s"]}
        notes.append(pointer(summary["cleared_at_s"], 0, empty))
    return [
        figure(
            title=gettext_noop("Jobs waiting in the queue, second by second"),
            x_title=gettext_noop("second"),
            y_title=gettext_noop("jobs"),
            traces=[
                line(x, s["backlog"], gettext_noop("waiting (backlog)"), fill=True),
                line(x, s["arrived"], gettext_noop("arrived"), dash="dot"),
                line(x, s["done"], gettext_noop("done")),
            ],
            shapes=[spell],
            annotations=notes,
        )
    ]
