"""Why a drain missed its estimate, in the reader's language.

The model keeps the reasons as keys with their figures (`tables.drain_reasons`, made by
`labs.sim.capstone.report.drain_reasons`) because a worker has no reader; the page, the
headline and the report say them here, while they render. Django-free: the runner's
headline uses it too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.text import gettext, num


def _whole(value: float) -> str:
    return num(round(value))


def _reason(r: Mapping[str, Any]) -> str:
    why = r["why"]
    if why == "no-estimate":
        return gettext("no estimate: the controls never went on (recover_at_s = horizon_s)")
    if why == "ran-out":
        return gettext(
            "the run ended first: the estimate needs %(est)s s, only %(left)s s were left"
        ) % {"est": _whole(r["est_s"]), "left": _whole(r["left_s"])}
    if why == "never-drained":
        return gettext("never drained: admitted work stayed at or above useful capacity")
    if why == "said-never":
        return gettext("the estimate said never, yet it drained")
    if why == "drop-not-enough":
        return gettext("discarding expired work is not enough while retries keep the load up")
    if why == "expired-discarded":
        return gettext("expired work was discarded at the dequeue check instead of being served")
    rates = {
        "admitted": _whole(r.get("admitted_rps", 0)),
        "assumed": _whole(r.get("assumed_rps", 0)),
    }
    if why == "more-arrived":
        return (
            gettext(
                "more arrived than assumed (%(admitted)s/s vs %(assumed)s/s): retries kept "
                "feeding the queue"
            )
            % rates
        )
    if why == "less-arrived":
        return (
            gettext(
                "less arrived than assumed (%(admitted)s/s vs %(assumed)s/s): callers gave up "
                "or were refused"
            )
            % rates
        )
    if why == "cost-varies":
        return gettext("job cost varies: the queue held %(ratio)sx the work its count suggests") % {
            "ratio": f"{r['ratio']:.2f}"
        }
    if why == "contention":
        return gettext("contention: capacity came back at the trigger's end, not at once")
    if why == "noise":
        return gettext("noise: random arrivals and service times")
    return str(why)  # a reason this version does not know: its key, not a wrong sentence


def gap_words(result: Mapping[str, Any]) -> str:
    """Why the drain estimate missed, in one line; "" when it held.

    A result saved before the reasons were kept has only the English `drain_gap`: it is
    said in the reader's words when it is one of the sentences above, else shown as saved.
    """
    reasons = result.get("tables", {}).get("drain_reasons")
    if reasons is None:
        saved = result["summary"].get("drain_gap") or ""
        return gettext(saved) if saved else ""
    return "; ".join(_reason(r) for r in reasons)
