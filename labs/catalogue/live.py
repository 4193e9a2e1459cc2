"""What a run page shows while a real experiment runs: its latest figures and a growing chart.

The runner reports samples (one reading of the real queue every 0.1 s) through its
`Progress`; the run's row keeps the last few hundred, and the page, polled every second,
shows the newest sample's figures and a chart of all of them. Django-free, like the runners.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from labs.text import gettext, gettext_noop

Sample = Mapping[str, Any]


@dataclass(frozen=True)
class LiveNumber:
    """One figure of the newest sample, as the page labels it."""

    key: str
    label: str
    unit: str = ""
    none_text: str = "—"  # what a missing value means here ("not draining", "empty")

    def text(self, sample: Sample) -> str:
        value = sample.get(self.key)
        if value is None:
            return gettext(self.none_text)
        if isinstance(value, float) and not value.is_integer():
            shown = f"{value:,.2f}"
        else:
            shown = f"{int(value):,}" if isinstance(value, int | float) else str(value)
        return f"{shown} {self.unit}".strip()


@dataclass(frozen=True)
class LiveView:
    """How a lab shows a running experiment: figures of the newest sample, and one chart."""

    numbers: tuple[LiveNumber, ...]
    chart: Callable[[Sequence[Sample], Mapping[str, Any]], dict[str, Any]]  # (samples, params)

    def present(self, samples: Sequence[Sample], params: Mapping[str, Any]) -> dict[str, Any]:
        """`{"numbers": [(label, text), ...], "figure": {...}}`; empty before the first sample."""
        if not samples:
            return {"numbers": [], "figure": None}
        last = samples[-1]
        return {
            "numbers": [(gettext(n.label), n.text(last)) for n in self.numbers],
            "figure": self.chart(samples, params),
        }


# What an operator watches on a job queue: the same figures for every single-queue lab.
QUEUE_NUMBERS = (
    LiveNumber("visible", gettext_noop("Visible (waiting)")),
    LiveNumber("in_flight", gettext_noop("In flight")),
    LiveNumber("dlq_depth", gettext_noop("DLQ depth")),
    LiveNumber(
        "oldest_age_s",
        gettext_noop("Oldest message age"),
        "s",
        none_text=gettext_noop("queue empty"),
    ),
    LiveNumber(
        "drain_estimate_s",
        gettext_noop("Drain estimate"),
        "s",
        none_text=gettext_noop("not draining"),
    ),
    LiveNumber("done", gettext_noop("Done")),
    LiveNumber("duplicates_delivered", gettext_noop("Duplicates delivered")),
    LiveNumber("duplicate_effects", gettext_noop("Duplicate effects"), ""),
)
QUEUE_KEYS = ("t_s", *(n.key for n in QUEUE_NUMBERS))
