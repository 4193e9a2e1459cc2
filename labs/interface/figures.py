"""The named figures a lab's result reports in its summary, declared up front.

Teachers grade runs with checks on these figures (`peak_backlog < 1000`), so the names
must be known before any run exists: a lab lists them next to its parameters, and a
catalogue test holds every lab's runner to its list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from labs.text import Words, gettext_noop, phrase

FigureKind = Literal["int", "float", "bool", "str"]
# A figure named for a share of a whole (`hit_share`, `own_pages_share_stall`) is 0 to 1.
SHARE_NAME = re.compile(r"(^|_)share(_|$)")


@dataclass(frozen=True)
class Figure:
    """One key of a lab's `summary`: its name, what it means, and its kind of value."""

    name: str
    label: Words  # a msgid, or a `phrase` for one made of parts (said where shown)
    kind: FigureKind
    unit: str = ""
    nullable: bool = False  # None means "did not happen" (e.g. the queue never cleared)

    @property
    def share(self) -> bool:
        """A share of a whole, 0 to 1 with no unit: 0.82 is read as 82%, never as 0.82."""
        return self.kind == "float" and not self.unit and bool(SHARE_NAME.search(self.name))

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
    kinds = [("", gettext_noop("%(p)s wait of answered requests, %(window)s"))]
    if calls:
        kinds.append(
            ("call_", gettext_noop("%(p)s wait of whole calls (retries included), %(window)s"))
        )
    return tuple(
        Figure(
            f"{prefix}p{p}_ms" + (f"_{suffix}" if suffix else ""),
            # Said in the language of the page that shows it (`labs.text.said`).
            phrase(label, p=f"p{p}", window=phrase(words)),
            "float",
            "ms",
            nullable=True,
        )
        for prefix, label in kinds
        for suffix, words in windows
        for p in (50, 95, 99)
    )
