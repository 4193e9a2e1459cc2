"""The named figures a lab's result reports in its summary, declared up front.

Teachers grade runs with checks on these figures (`peak_backlog < 1000`), so the names
must be known before any run exists: a lab lists them next to its parameters, and a
catalogue test holds every lab's runner to its list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

FigureKind = Literal["int", "float", "bool", "str"]


@dataclass(frozen=True)
class Figure:
    """One key of a lab's `summary`: its name, what it means, and its kind of value."""

    name: str
    label: str
    kind: FigureKind
    unit: str = ""
    nullable: bool = False  # None means "did not happen" (e.g. the queue never cleared)

    def accepts(self, value: Any) -> bool:
        """True if `value` is of this figure's kind (what a runner must produce)."""
        if value is None:
            return self.nullable
        if self.kind == "bool":
            return isinstance(value, bool)
        if self.kind == "int":
            return isinstance(value, int) and not isinstance(value, bool)
        if self.kind == "float":
            return isinstance(value, int | float) and not isinstance(value, bool)
        return isinstance(value, str)


def latency_figures(
    windows: Sequence[tuple[str, Any]], *, calls: bool = False
) -> tuple[Figure, ...]:
    """The p50/p95/p99 figures (ms) a capstone model gives for each of its time windows.

    `windows` is `(suffix, words)`: suffix "after" names `p99_ms_after`, "" names `p99_ms`.
    With `calls`, the same again for whole calls (`call_p99_ms_after`: first attempt to
    answer, retries included). None when nobody was answered in the window.
    """
    kinds = [("", _("{p} wait of answered requests, {window}"))]
    if calls:
        kinds.append(("call_", _("{p} wait of whole calls (retries included), {window}")))
    return tuple(
        Figure(
            f"{prefix}p{p}_ms" + (f"_{suffix}" if suffix else ""),
            # A lazy string: shown in the language of the page that renders it.
            cast(str, format_lazy(label, p=f"p{p}", window=words)),
            "float",
            "ms",
            nullable=True,
        )
        for prefix, label in kinds
        for suffix, words in windows
        for p in (50, 95, 99)
    )
