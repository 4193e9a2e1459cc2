"""Why a drain missed its estimate, in the reader's language.

The model keeps the reasons as keys with their figures (`tables.drain_reasons`, made by
`labs.sim.capstone.summary.drain_reasons`) because a worker has no reader; the page, the
headline and the report say them here, while they render. Django-free: the runner's
headline uses it too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from labs.sim.capstone.summary import GAP_ENGLISH
from labs.text import gettext, num


def _whole(value: float) -> str:
    return num(round(value))


def _reason(r: Mapping[str, Any]) -> str:
    why = r["why"]
    if why == "no-estimate":
        return gettext("no estimate: no control went on during the run")
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


def _pattern(english: str) -> re.Pattern[str]:
    """`GAP_ENGLISH`'s line for one reason as a regex that reads its figures back."""
    parts = re.split(r"\{(\w+)(?::[^}]*)?\}", english)
    # re.split alternates literal text and the names of the figures between them.
    body = "".join(
        re.escape(part) if i % 2 == 0 else rf"(?P<{part}>-?[\d.]+)" for i, part in enumerate(parts)
    )
    return re.compile(body)


_PATTERNS = {why: _pattern(english) for why, english in GAP_ENGLISH.items()}
# Lines saved before issue 36 reworded a reason, read back as that reason.
_OLD_PATTERNS = {
    "no-estimate": re.compile(
        re.escape("no estimate: the controls never went on (recover_at_s = horizon_s)")
    ),
}


def _read_back(gap: str) -> list[dict[str, Any]] | None:
    """The reasons inside an English `drain_gap` line, or None if a part is not one of ours.

    A run saved before the reasons were kept as keys (or a stored experiment result from
    then) has only this line; reading it back lets the page say it in the reader's words.
    """
    reasons = []
    for part in gap.split("; "):
        for why, pattern in [*_PATTERNS.items(), *_OLD_PATTERNS.items()]:
            found = pattern.fullmatch(part)
            if found:
                figures = {k: float(v) for k, v in found.groupdict().items()}
                reasons.append({"why": why, **figures})
                break
        else:
            return None
    return reasons


def gap_words(result: Mapping[str, Any], leave_out: tuple[str, ...] = ()) -> str:
    """Why the drain estimate missed, in one line; "" when it held.

    `leave_out` names reasons the caller has already said in its own sentence. A result
    saved before the reasons were kept has only the English `drain_gap`: it is read back
    into reasons when it can be, else said as one sentence or shown as saved.
    """
    reasons = gap_reasons(result)
    if reasons is None:
        gap = result["summary"].get("drain_gap") or ""
        return gettext(gap) if gap else ""
    return "; ".join(_reason(r) for r in reasons if r["why"] not in leave_out)


def gap_reasons(result: Mapping[str, Any]) -> Sequence[Mapping[str, Any]] | None:
    """The drain's reasons as kept (or read back from an older result's English); None
    when an older result's sentence cannot be read back."""
    reasons = result.get("tables", {}).get("drain_reasons")
    if reasons is None:
        gap = result["summary"].get("drain_gap") or ""
        return _read_back(gap) if gap else []
    return reasons
