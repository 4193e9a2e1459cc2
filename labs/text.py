"""How figures and values are written for a student: shared by runners, charts and reports.

Django-free and model-free, so any layer may use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# The largest seed a run takes (and the widest a form offers): a signed 32-bit integer.
SEED_MAX = 2**31 - 1


def num(value: float) -> str:
    """A number as a student reads it: thousands separated, no needless '.0'."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def given(value: float) -> str:
    """A percentage as a lesson writes it, with at least one place: 99.0, 99.5, 99.95."""
    text = f"{value:g}"
    return text if "." in text or "e" in text else f"{value:.1f}"


def listed(values: Sequence[Any], last_word: str = "and") -> str:
    """'a', 'a and b', 'a, b and c'."""
    items = [str(v) for v in values]
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last_word} {items[-1]}"


def plain(value: Any) -> str:
    """A param value as `lab run --set` takes it: true, 80, 0.25, fifo."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
