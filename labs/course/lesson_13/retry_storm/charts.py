"""Charts for the retry storm: retries per slot with the busiest slot marked, and the comparison."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.charts.base import JITTER_COLOURS, JITTER_LABELS, bar, figure, pointer
from labs.text import gettext, gettext_noop, num


def build(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    s, summary = result["series"], result["summary"]
    chosen, width = summary["jitter"], summary["slot_ms"]
    # Bars start at the slot's start and span the slot, so sparse slots keep their width.
    x = [start + width / 2 for start in s["slot_start_ms"]]
    notes = [
        pointer(
            summary["busiest_slot_no_jitter_at_ms"] + width / 2,
            summary["busiest_slot_no_jitter"],
            gettext("no jitter: %(n)s at once") % {"n": num(summary["busiest_slot_no_jitter"])},
        ),
        pointer(
            summary["busiest_slot_at_ms"] + width / 2,
            summary["busiest_slot"],
            gettext("busiest with %(jitter)s: %(n)s")
            % {"jitter": gettext(JITTER_LABELS[chosen]), "n": num(summary["busiest_slot"])},
        ),
    ]
    storm = figure(
        title=gettext("Retries per %(ms)s ms slot, %(n)s clients")
        % {"ms": width, "n": num(summary["clients"])},
        x_title=gettext_noop("milliseconds after the shared failure"),
        y_title=gettext("retries in the %(ms)s ms slot") % {"ms": width},
        traces=[
            bar(
                x, s["no_jitter"], JITTER_LABELS["none"], color=JITTER_COLOURS["none"], width=width
            ),
            bar(
                x,
                s[f"{chosen}_jitter"],
                JITTER_LABELS[chosen],
                color=JITTER_COLOURS[chosen],
                width=width,
            ),
        ],
        barmode="overlay",
        annotations=notes,
        hovermode="closest",
    )
    data = result["tables"]["compare_data"]
    clients = [gettext("%(n)s clients") % {"n": num(n)} for n in data["clients"]]
    compare = figure(
        title=gettext("Busiest %(ms)s ms slot for each kind of jitter (log scale)") % {"ms": width},
        x_title=gettext_noop("clients failing together"),
        y_title=gettext_noop("retries at once"),
        traces=[
            bar(
                clients,
                data[kind],
                JITTER_LABELS[kind],
                color=JITTER_COLOURS[kind],
                text=data[kind],
            )
            for kind in JITTER_COLOURS
        ],
        barmode="group",
        y_log=True,
        x_category=True,
        hovermode="closest",
    )
    return [storm, compare]
