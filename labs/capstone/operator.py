"""The operator view of a trapped-service run: which payments still need someone, and who.

It reads the run's saved result only: counts by state from the summary, and the rows
the model kept for an operator (`tables.obligations`: the oldest unresolved payments,
then recent unknown, reconciled and lost ones, each shown once in its current state).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.capstone.controls import PAYMENT_WORDS

UNRESOLVED = ("pending", "unknown", "reconciling")
SECTIONS = (
    (
        "Unresolved: someone still has to find the outcome",
        UNRESOLVED,
        "Age: how old the payment was at the end of the run (for an unknown one: when its "
        "caller gave up).",
    ),
    (
        "Reconciled: settled later by the reconciliation owner",
        ("reconciled",),
        "Age: how long it took from the payment to its outcome.",
    ),
    (
        "Lost: thrown away with no record",
        ("lost",),
        "Age: how long it had lived when the last copy was thrown away.",
    ),
)


def obligations_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """Counts by state, and the kept rows in sections: unresolved, reconciled, lost."""
    s = result["summary"]
    rows = result["tables"].get("obligations", [])
    counts = [
        {"state": state, "count": s[f"obligations_{state}"], "words": words}
        for state, words in PAYMENT_WORDS.items()
    ]
    sections = []
    for title, states, note in SECTIONS:
        kept = [row for row in rows if row["state"] in states]
        total = sum(s[f"obligations_{state}"] for state in states)
        if total or kept:
            sections.append({"title": title, "note": note, "rows": kept, "total": total})
    return {
        "total": s["obligations_total"],
        "unresolved": sum(s[f"obligations_{state}"] for state in UNRESOLVED),
        "accounted": s["obligations_accounted"],
        "counts": counts,
        "sections": sections,
    }
