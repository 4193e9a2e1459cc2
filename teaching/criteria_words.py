"""A grading check said as a student reads it: “Peak backlog: below 1,000 jobs”.

The teacher writes checks in the criteria language (`peak_backlog < 1000`,
`before.recovered == false`); a student reads each one as a sentence made from the lab's
own labels for its figures and their units, in the reader's language. The code stays on
the page for the teacher.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from labs.catalogue.lab import Lab
from labs.interface.figures import Figure
from labs.text import num, said
from labs.web.forms import field_for, locked_words
from teaching.criteria import Criterion, show

OP_WORDS = {
    "<": gettext_noop("below %(value)s"),
    "<=": gettext_noop("at most %(value)s"),
    ">": gettext_noop("above %(value)s"),
    ">=": gettext_noop("at least %(value)s"),
    "==": gettext_noop("exactly %(value)s"),
    "!=": gettext_noop("anything but %(value)s"),
}
# A pair hand-in's check names the run it reads.
SIDE_WORDS = {
    "before": gettext_noop("%(figure)s in the before run (controls off): %(wanted)s"),
    "after": gettext_noop("%(figure)s in the after run (controls on): %(wanted)s"),
}


def value_words(value: Any, unit: str = "", share: bool = False) -> str:
    """A value in a check or a run: yes/no, a number with its unit (a share as a
    percentage), or a word as written."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, int | float) and share:
        return f"{num(value * 100)}%"
    if isinstance(value, int | float):
        return f"{num(value)} {unit}".strip()
    if isinstance(value, list | tuple):  # a list setting, as the form shows it: 50, 800, 800
        return f"{', '.join(value_words(v) for v in value)} {unit}".strip()
    return str(said(show(value)))


def _figure(figures: Sequence[Figure], name: str) -> Figure | None:
    return next((f for f in figures if f.name == name), None)


def _unit(figure: Figure | None) -> str:
    return str(said(figure.unit)) if figure is not None and figure.unit else ""


def _share(figure: Figure | None) -> bool:
    """A share of a whole: the criteria say 0.99, a student reads 99%."""
    return figure is not None and figure.share


def criterion_words(criterion: Criterion, figures: Sequence[Figure]) -> str:
    """The check in a sentence: its figure's label, then what the value must be."""
    side, _dot, name = criterion.figure.rpartition(".")
    figure = _figure(figures, name)
    label = capfirst(str(said(figure.label))) if figure is not None else name
    value = criterion.value
    unit = _unit(figure)
    if isinstance(value, bool) and criterion.op in ("==", "!="):
        # “Recovered: no” reads better than “exactly no” (or “anything but yes”).
        wanted = value_words(value == (criterion.op == "=="))
    elif criterion.op in ("<=", "==") and value == 0 and figure is not None and figure.unit == "s":
        # A delay of at most 0 s is no delay: “0 s (at once)”, not “at most 0 s”.
        wanted = _("%(value)s (at once)") % {"value": value_words(0, unit)}
    else:
        shown = value_words(value, unit, _share(figure))
        wanted = _(OP_WORDS[criterion.op]) % {"value": shown}
    sentence = _(SIDE_WORDS[side]) if side in SIDE_WORDS else _("%(figure)s: %(wanted)s")
    return sentence % {"figure": label, "wanted": wanted}


def actual_words(criterion: Criterion, actual: Any, figures: Sequence[Figure]) -> str:
    """What the run had for the check's figure, with its unit."""
    if actual is None:
        return _("no value")
    figure = _figure(figures, criterion.figure.rpartition(".")[2])
    return value_words(actual, _unit(figure), _share(figure))


def preset_words(lab: Lab | None, presets: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each preset as a student reads it: the form's label and the value in words.

    “Jobs one worker finishes per second: 100”, not `per_worker=100`; a choice by its
    label, a switch as yes or no, with the parameter's unit. A preset the lab no longer
    has keeps its code name (nothing else could be said of it).
    """
    out = []
    for name, value in presets.items():
        try:
            param = lab.param(name) if lab is not None else None
        except KeyError:
            param = None
        if param is None:
            out.append((name, value_words(value)))
            continue
        words = locked_words(field_for(param), value)
        if param.unit and param.kind in ("int", "float", "int_list", "float_list"):
            words = f"{words} {said(param.unit)}"
        out.append((capfirst(str(said(param.label))), words))
    return out
