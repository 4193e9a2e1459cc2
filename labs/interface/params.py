"""What a lab lets a student change: one `Param` per form field.

The same descriptions build the web form, the `lab` command's `--set` parsing and
`lab list`, so a bound or a default is written in exactly one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from labs.text import gettext

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
    # A limit this field shares with others (`labs.text.phrase` or a msgid): the form's help
    # says it, so nobody learns it only from the error.
    limit: Any = None

    def __post_init__(self) -> None:
        if self.kind == "choice" and not self.choices:
            raise ValueError(f"param {self.name}: a choice needs choices")
        if self.kind.endswith("_list") and not self.max_items:
            raise ValueError(f"param {self.name}: a list needs max_items")

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description, as `lab list --json` prints it."""
        out: dict[str, Any] = {
            "name": self.name,
            "label": str(self.label),  # a lazy translation becomes text here
            "type": self.kind,
            "default": self.default,
            "help": str(self.help),
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
            out["unit"] = str(self.unit)  # a lazy translation becomes text here
        return out

    def refusal(self, value: Any) -> str | None:
        """Why `value` (as a run saves it) is not one this param takes, or None if it is.

        The form refuses such values before any run exists; a run reaching a worker with
        one (saved another way, or from an older version of the lab) is refused with this.
        """
        if self.kind == "bool":
            return None if isinstance(value, bool) else gettext("must be true or false")
        # The words only for a value refused: a worker checks every param of every run.
        if self.kind == "choice":
            ok = value in {v for v, _ in self.choices}
            return None if ok else self._must()
        if self.kind.endswith("_list"):
            if not isinstance(value, list | tuple) or not 1 <= len(value) <= (self.max_items or 0):
                return self._must()
            values = list(value)
        else:
            values = [value]
        whole = self.kind.startswith("int")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
                return self._must()  # NaN passes every comparison below, so it is refused here
            if whole and v != int(v):
                return self._must()
            if (self.min is not None and v < self.min) or (self.max is not None and v > self.max):
                return gettext("must be %(bounds)s, got %(value)s") % {
                    "bounds": self.bounds_text(),
                    "value": _num(v),
                }
        return None

    def _must(self) -> str:
        return gettext("must be %(bounds)s") % {"bounds": self.bounds_text()}

    def bounds_text(self) -> str:
        """The bounds in words, for `lab list` (names the values a command line takes)."""
        if self.kind == "choice":
            return gettext("one of %(values)s") % {
                "values": ", ".join(value for value, _ in self.choices)
            }
        if self.kind == "bool":
            return gettext("true or false")
        return self.range_text()

    def range_text(self) -> str:
        """The numbers a person may type, in the reader's words; '' for a choice or a switch.

        A form shows choices as a list and a switch as a box, so those need no words.
        """
        if self.kind in ("choice", "bool"):
            return ""
        span = gettext("%(low)s to %(high)s") % {"low": _num(self.min), "high": _num(self.max)}
        if self.kind.endswith("_list"):
            return gettext("up to %(n)s values separated by commas, each %(span)s") % {
                "n": self.max_items,
                "span": span,
            }
        return span


def bounded(
    name: str,
    label: str,
    kind: ParamKind,
    default: Any,
    help_text: str,
    low: float,
    high: float,
    group: str,
    unit: str = "",
) -> Param:
    """A number param on one line, bounds and group by position: for the long PARAMS
    tables, where the keyword form would take a screen for a few fields."""
    return Param(name, label, kind, default, help_text, min=low, max=high, group=group, unit=unit)


def within_limits(
    limits: Mapping[str, tuple[float, float]],
    name: str,
    label: str,
    kind: ParamKind,
    default: Any,
    help_text: str,
    **more: Any,
) -> Param:
    """A param whose bounds are its model's own `LIMITS[name]`, so a bound is written once,
    in the model that refuses values outside it."""
    low, high = limits[name]
    return Param(name, label, kind, default, help_text, min=low, max=high, **more)


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:g}"
    return f"{int(value):,}"  # 1,000,000 rather than 1e+06


# A model's spec names a unit by its suffix: service_ms, recover_at_s, admit_rps.
_SUFFIX_UNITS = (("_ms", "ms"), ("_s", "s"), ("_rps", "/s"))
_SPEC_KINDS: dict[str, ParamKind] = {"int": "int", "float": "float", "bool": "bool"}


def params_from_specs(
    specs: Sequence[Mapping[str, Any]],
    layout: Sequence[tuple[str, Sequence[tuple[str, str]]]],
) -> tuple[Param, ...]:
    """`Param`s for a model's own specs (type, default, bounds, help), laid out in groups.

    `layout` is `[(group, [(name, label), ...]), ...]`: the order and headings the form
    shows, and a label a student reads. Everything else comes from the model's spec, so
    a bound changed in the model changes the form. A spec missing from the layout, or a
    name the model does not have, is an error at import time rather than a silent gap.
    """
    by_name = {spec["name"]: spec for spec in specs}
    placed = [name for _, fields in layout for name, _ in fields]
    unknown = sorted(set(placed) - set(by_name))
    missing = [name for name in by_name if name not in placed]
    if unknown or missing or len(placed) != len(set(placed)):
        raise ValueError(
            f"the layout must place every spec once: unknown {unknown}, missing {missing}"
        )
    out = []
    for group, fields in layout:
        for name, label in fields:
            spec = by_name[name]
            choices = spec.get("choices") or ()
            kind: ParamKind = "choice" if choices else _SPEC_KINDS[spec["type"]]
            unit = next((u for suffix, u in _SUFFIX_UNITS if name.endswith(suffix)), "")
            out.append(
                Param(
                    name,
                    label,
                    kind,
                    spec["default"],
                    spec["help"],
                    min=spec.get("min"),
                    max=spec.get("max"),
                    choices=tuple((c, c) for c in choices),
                    group=group,
                    unit=unit,
                )
            )
    return tuple(out)
