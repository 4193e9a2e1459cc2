"""What happened, read from a run's samples and the teacher's moves (pure)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

RESCUES = ("policy", "admission", "drop_expired", "slow_off")
SETTLE_S = 5.0  # the service gets this long after the spike ends before it is judged


def recovered(
    samples: Sequence[Mapping[str, Any]], moves: Sequence[Mapping[str, Any]]
) -> str | None:
    """'recovers' or 'trapped': the service's state after the first spike ended, before any rescue.

    Recovered when some sample from SETTLE_S after the spike's end until the first rescue
    move (or the end) is not trapped; None when no spike ended, or no sample is in reach.
    """
    ends = [m["t"] for m in moves if m.get("action") == "spike_off"]
    if not ends:
        return None
    t0 = ends[0]
    rescue = min(
        (m["t"] for m in moves if m.get("action") in RESCUES and m["t"] > t0), default=float("inf")
    )
    judged = [s for s in samples if t0 + SETTLE_S <= s["t"] <= rescue]
    if not judged:
        return None
    return "recovers" if any(not s.get("trapped", False) for s in judged) else "trapped"


def tally(predictions: Sequence[str]) -> dict[str, int]:
    return {"recovers": predictions.count("recovers"), "trapped": predictions.count("trapped")}
