"""Grading criteria: simple checks on a run's summary figures, like `peak_backlog < 1000`.

A teacher writes one check per line; `parse_criteria` turns the text into `Criterion`
values against the figures the lab declares, and refuses unknown names, nonsense
operators and values of the wrong kind with a message per line. No models or requests
here: only gettext, so each message reads in the teacher's language.
"""

from __future__ import annotations

import difflib
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from labs.interface.figures import Figure
from labs.text import parse_decimal

OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
# What people write for the same thing (the issue itself writes "= 0" and "≤ 60 s").
ALIASES = {"=": "==", "≤": "<=", "≥": ">=", "≠": "!="}
TRUE_WORDS, FALSE_WORDS = ("true", "yes"), ("false", "no")
MAX_CRITERIA = 20
MAX_LINE = 200
# In a pair hand-in every check names its run: `before.recovered == false`.
SIDES = ("before", "after")

# figure name, then a run of symbols (the operator, checked below), then the value.
LINE = re.compile(
    r"^(?P<name>(?:[A-Za-z]+\.)?[A-Za-z_]\w*)\s*(?P<op>[^\w\s\"'.+-]+)\s*(?P<value>.*?)\s*$"
)
# ASCII: \d alone would take "٣" or "１２" as digits.
NUMBER = re.compile(
    r"^[+-]?(\d{1,3}(,\d{3})+|\d[\d_]*)(\.\d+)?([eE][+-]?\d+)?$|^[+-]?\.\d+$", re.ASCII
)

Value = bool | int | float | str


class CriteriaError(ValueError):
    """The criteria text has mistakes; `messages` has one sentence per mistake."""

    def __init__(self, messages: list[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


@dataclass(frozen=True)
class Criterion:
    """One check: `figure op value`."""

    figure: str
    op: str
    value: Value

    def __str__(self) -> str:
        return f"{self.figure} {self.op} {show(self.value)}"

    def to_json(self) -> dict[str, Any]:
        return {"figure": self.figure, "op": self.op, "value": self.value}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Criterion:
        return cls(data["figure"], data["op"], data["value"])

    def check(self, summary: Mapping[str, Any]) -> Check:
        """Apply the check to a run's summary; a missing or empty figure fails it."""
        actual = summary.get(self.figure)
        return Check(self, actual, passes(self.op, actual, self.value))


@dataclass(frozen=True)
class Check:
    """A criterion applied to one run: the figure it found and whether it passed."""

    criterion: Criterion
    actual: Any
    passed: bool

    @property
    def shown_actual(self) -> str:
        return "no value" if self.actual is None else show(self.actual)


def passes(op: str, actual: Any, expected: Value) -> bool:
    if actual is None or op not in OPERATORS:
        return False
    if isinstance(expected, bool) or isinstance(actual, bool):
        # True == 1 in Python; a yes/no figure only matches a yes/no value.
        if not (isinstance(expected, bool) and isinstance(actual, bool)):
            return False
    elif isinstance(expected, int | float) != isinstance(actual, int | float):
        return False
    try:
        return bool(OPERATORS[op](actual, expected))
    except TypeError:
        return False


def show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)


def pair_summary(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Both runs' figures under one name each (`before.recovered`), for a pair's checks."""
    out: dict[str, Any] = {}
    for side, summary in zip(SIDES, (before, after), strict=True):
        out.update({f"{side}.{name}": value for name, value in (summary or {}).items()})
    return out


def parse_criteria(text: str, figures: Sequence[Figure], *, pair: bool = False) -> list[Criterion]:
    """One `Criterion` per non-empty line of `text` (lines starting with # are notes).

    With `pair`, each check names the run it reads (`before.` or `after.`). Raises
    CriteriaError with a message for every bad line, naming the line.
    """
    by_name = {f.name: f for f in figures}
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), start=1)]
    lines = [(n, line) for n, line in lines if line and not line.startswith("#")]
    if not lines:
        return []
    if not figures:
        raise CriteriaError(
            [_("This lab does not list its summary figures yet, so no checks can be written.")]
        )
    if len(lines) > MAX_CRITERIA:
        raise CriteriaError(
            [_("At most %(most)d checks, got %(got)d.") % {"most": MAX_CRITERIA, "got": len(lines)}]
        )
    out, problems = [], []
    for number, line in lines:
        try:
            out.append(parse_line(line, by_name, pair=pair))
        except ValueError as exc:
            problems.append(
                _("Line %(number)d ('%(line)s'): %(problem)s")
                % {"number": number, "line": line[:60], "problem": exc}
            )
    if problems:
        raise CriteriaError(problems)
    return out


def parse_line(line: str, figures: Mapping[str, Figure], *, pair: bool = False) -> Criterion:
    if len(line) > MAX_LINE:
        raise ValueError(_("too long: at most %(most)d characters.") % {"most": MAX_LINE})
    match = LINE.match(line)
    if not match:
        raise ValueError(
            _("write a check as: figure, operator, value — for example peak_backlog < 1000.")
        )
    full, op, raw = match["name"], match["op"], match["value"]
    side, _dot, name = full.rpartition(".")
    if pair and side not in SIDES:
        if side:
            raise ValueError(
                _("'%(side)s' is not a run of the pair: write before.%(name)s or after.%(name)s.")
                % {"side": side, "name": name}
            )
        raise ValueError(
            _("name the run this check reads: before.%(name)s or after.%(name)s.") % {"name": name}
        )
    if not pair and side:
        raise ValueError(
            _(
                "this assignment asks for one run, so write %(name)s without '%(side)s.'; "
                "before. and after. are for a before/after pair."
            )
            % {"name": name, "side": side}
        )
    figure = figures.get(name)
    if figure is None:
        close = difflib.get_close_matches(name, list(figures), n=1)
        known = ", ".join(figures)
        if close:
            raise ValueError(
                _(
                    "this lab has no figure called '%(name)s'. Did you mean %(close)s? "
                    "Its figures are: %(known)s."
                )
                % {"name": name, "close": close[0], "known": known}
            )
        raise ValueError(
            _("this lab has no figure called '%(name)s'. Its figures are: %(known)s.")
            % {"name": name, "known": known}
        )
    op = ALIASES.get(op, op)
    if op not in OPERATORS:
        raise ValueError(
            _("'%(op)s' is not an operator: use one of %(ops)s.")
            % {"op": op, "ops": " ".join(OPERATORS)}
        )
    if not raw:
        raise ValueError(_("no value after %(op)s.") % {"op": op})
    return Criterion(full, op, parse_value(figure, op, raw))


def parse_value(figure: Figure, op: str, raw: str) -> Value:
    if figure.kind == "bool":
        if op not in ("==", "!="):
            raise ValueError(
                _("%(name)s is yes or no: compare it with == or !=, not %(op)s.")
                % {"name": figure.name, "op": op}
            )
        word = raw.lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
        raise ValueError(
            _("%(name)s is yes or no: write true or false, not '%(raw)s'.")
            % {"name": figure.name, "raw": raw}
        )
    if figure.kind == "str":
        if op not in ("==", "!="):
            raise ValueError(
                _("%(name)s is a word: compare it with == or !=, not %(op)s.")
                % {"name": figure.name, "op": op}
            )
        return raw.strip("\"'")
    if not NUMBER.match(raw):
        if figure.unit:
            raise ValueError(
                _("'%(raw)s' is not a number; %(name)s is a number (%(unit)s).")
                % {"raw": raw, "name": figure.name, "unit": figure.unit}
            )
        raise ValueError(
            _("'%(raw)s' is not a number; %(name)s is a number.")
            % {"raw": raw, "name": figure.name}
        )
    try:
        number = parse_decimal(raw.replace(",", "").replace("_", ""))
    except ValueError:
        raise ValueError(_("'%(raw)s' is too large.") % {"raw": raw}) from None
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def criteria_text(criteria: Sequence[Criterion]) -> str:
    """The text a teacher would type for these criteria, one per line."""
    return "\n".join(str(c) for c in criteria)


def evaluate(criteria: Sequence[Criterion], summary: Mapping[str, Any] | None) -> list[Check]:
    return [c.check(summary or {}) for c in criteria]
