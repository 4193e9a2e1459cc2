"""The operator view of a trapped-service run: which payments still need someone, and who.

It reads the run's saved result only: counts by state from the summary, and the rows
the model kept for an operator (`tables.obligations`: the oldest unresolved payments,
then recent unknown, reconciled and lost ones, each shown once in its current state).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from labs.words.recovery_controls import PAYMENT_WORDS

UNRESOLVED = ("pending", "unknown", "reconciling")
SECTIONS = (
    (
        gettext_noop("Unresolved: someone still has to find the outcome"),
        UNRESOLVED,
        gettext_noop(
            "Age: how old the payment was at the end of the run (for an unknown one: when its "
            "caller gave up)."
        ),
    ),
    (
        gettext_noop("Reconciled: settled later by the reconciliation owner"),
        ("reconciled",),
        gettext_noop("Age: how long it took from the payment to its outcome."),
    ),
    (
        gettext_noop("Lost: thrown away with no record"),
        ("lost",),
        gettext_noop("Age: how long it had lived when the last copy was thrown away."),
    ),
)


# A payment's state is a key the result keeps in English; these are its words on the page.
STATE_WORDS = {
    "confirmed": gettext_noop("confirmed"),
    "reconciled": gettext_noop("reconciled"),
    "failed": gettext_noop("refused"),
    "pending": gettext_noop("pending"),
    "reconciling": gettext_noop("reconciling"),
    "unknown": gettext_noop("unknown"),
    "lost": gettext_noop("lost"),
}


# Who must act on a payment: a key the result keeps in English. "payments-reconciliation"
# is the owning team's name as a ticket would show it; its Marathi keeps the name beside
# the words.
OWNER_WORDS = {
    "caller": gettext_noop("caller"),
    "nobody": gettext_noop("nobody"),
    "payments-reconciliation": gettext_noop("payments-reconciliation"),
}


def owner_word(owner: str) -> str:
    return _(OWNER_WORDS[owner]) if owner in OWNER_WORDS else owner


def state_word(state: str) -> str:
    return _(STATE_WORDS[state]) if state in STATE_WORDS else state


def obligations_view(result: Mapping[str, Any]) -> dict[str, Any]:
    """Counts by state, and the kept rows in sections: unresolved, reconciled, lost."""
    s = result["summary"]
    rows = result["tables"].get("obligations", [])
    counts = [
        {
            "state": state,
            "label": state_word(state),
            "count": s[f"obligations_{state}"],
            "words": _(words),
        }
        for state, words in PAYMENT_WORDS.items()
    ]
    sections = []
    for title, states, note in SECTIONS:
        kept = [
            row | {"label": state_word(row["state"]), "owner_words": owner_word(row["owner"])}
            for row in rows
            if row["state"] in states
        ]
        total = sum(s[f"obligations_{state}"] for state in states)
        if total or kept:
            sections.append({"title": _(title), "note": _(note), "rows": kept, "total": total})
    return {
        "total": s["obligations_total"],
        "unresolved": sum(s[f"obligations_{state}"] for state in UNRESOLVED),
        "accounted": s["obligations_accounted"],
        "counts": counts,
        "sections": sections,
    }
