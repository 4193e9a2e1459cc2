"""What a run page shows while a real experiment runs: its latest figures and a growing chart.

The runner reports samples (one reading of the real queue every 0.1 s) through its
`Progress`; the run's row keeps the last few hundred, and the page, polled every second,
shows the newest sample's figures and a chart of all of them. Django only for its lazy
translations, like the runners.
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
    none_text: str = "—"  # what a missing value means ("not draining", "empty")
    # A missing value whose sample has `steady_key` true reads `steady_text` instead.
    steady_key: str = ""
    steady_text: str = ""

    def text(self, sample: Sample) -> str:
        value = sample.get(self.key)
        if value is None:
            if self.steady_key and sample.get(self.steady_key):
                return gettext(self.steady_text)
            return gettext(self.none_text)
        if isinstance(value, float) and not value.is_integer():
            shown = f"{value:,.2f}"
        else:
            shown = f"{int(value):,}" if isinstance(value, int | float) else str(value)
        # The unit is a msgid too ("requests", "lesson s"): said in the reader's words.
        return f"{shown} {gettext(self.unit) if self.unit else ''}".strip()


@dataclass(frozen=True)
class LiveView:
    """How a lab shows a running experiment: figures of the newest sample, and one chart."""

    numbers: tuple[LiveNumber, ...]
    chart: Callable[[Sequence[Sample], Mapping[str, Any]], dict[str, Any]]  # (samples, params)
    # An operator's switches as the newest sample has them: [(control, "on (60 req/s)"), ...]
    switches: Callable[[Sample], list[tuple[str, str]]] | None = None

    def present(self, samples: Sequence[Sample], params: Mapping[str, Any]) -> dict[str, Any]:
        """`{"numbers": [(label, text), ...], "figure": {...}, "switches": [...]}`; empty
        before the first sample."""
        if not samples:
            return {"numbers": [], "figure": None, "switches": []}
        last = samples[-1]
        return {
            "numbers": [(gettext(n.label), n.text(last)) for n in self.numbers],
            "figure": self.chart(samples, params),
            "switches": self.switches(last) if self.switches else [],
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
        none_text=gettext_noop("not draining: the queue grows"),
        steady_key="keeping_up",
        steady_text=gettext_noop("keeping up (as much done as arrives)"),
    ),
    LiveNumber("done", gettext_noop("Done")),
    LiveNumber("duplicates_delivered", gettext_noop("Duplicates delivered")),
    LiveNumber("duplicate_effects", gettext_noop("Duplicate effects"), ""),
)
QUEUE_KEYS = ("t_s", *(n.key for n in QUEUE_NUMBERS), "keeping_up")
