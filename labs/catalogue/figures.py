"""The named figures a lab's result reports in its summary, declared up front.

Teachers grade runs with checks on these figures (`peak_backlog < 1000`), so the names
must be known before any run exists: a lab lists them next to its parameters, and a
catalogue test holds every lab's runner to its list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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
