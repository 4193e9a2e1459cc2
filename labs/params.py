"""What a lab lets a student change: one `Param` per form field.

The same descriptions build the web form, the `lab` command's `--set` parsing and
`lab list`, so a bound or a default is written in exactly one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ParamKind = Literal["int", "float", "choice", "bool", "int_list", "float_list"]


@dataclass(frozen=True)
class Param:
    """One parameter of a lab, with the bounds that keep a run within seconds."""

    name: str
    label: str
    kind: ParamKind
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple[tuple[str, str], ...] = ()
    max_items: int | None = None  # for list kinds: how many values at most
    group: str = ""  # a heading the form shows above this field
    unit: str = ""

    def __post_init__(self) -> None:
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"param {self.name}: a choice needs choices")
        if self.kind.endswith("_list") and not self.max_items:
            raise ValueError(f"param {self.name}: a list needs max_items")

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description, as `lab list --json` prints it."""
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "type": self.kind,
            "default": self.default,
            "help": self.help,
        }
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        if self.choices:
            out["choices"] = [value for value, _ in self.choices]
        if self.max_items:
            out["max_items"] = self.max_items
        if self.unit:
            out["unit"] = self.unit
        return out

    def bounds_text(self) -> str:
        """The bounds in words, for help text and `lab list`."""
        if self.kind == "choice":
            return "one of " + ", ".join(value for value, _ in self.choices)
        if self.kind == "bool":
            return "yes or no"
        span = f"{_num(self.min)} to {_num(self.max)}"
        if self.kind.endswith("_list"):
            return f"up to {self.max_items} comma-separated values, each {span}"
        return span


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:g}" if isinstance(value, float) else f"{value:,}"
