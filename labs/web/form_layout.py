"""How a lab's form is laid out beside its charts: groups that fold, sliders, list presets.

The form (`labs.web.forms.LabForm`) converts and bounds values; this module only decides
how its fields are shown, so a long form (trapped-service has 32 fields) fits a column
beside the charts: every group can fold, and in a long form the groups between the first
and the last start folded unless something in them differs from the lesson or was refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as default
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.interface.params import Param
from labs.web.sliders import Slider, slider_for

# A form with this many fields folds its middle groups.
LONG_FORM = 12
# A list this long (or longer) is a series over time: it gets the spike and ramp presets.
SERIES_FROM = 5

PRESET_NAMES = {
    "lesson": gettext_lazy("The lesson's values"),
    "spike": gettext_lazy("A spike"),
    "ramp": gettext_lazy("A ramp"),
    "steady": gettext_lazy("Steady"),
}


@dataclass
class Control:
    """One field as the panel shows it: the bound field, its slider and its presets."""

    field: forms.BoundField
    param: Param | None
    slider: Slider | None = None
    presets: list[tuple[str, str]] = default(default_factory=list)  # (words, the list typed)

    @property
    def slider_data(self) -> dict[str, str]:
        return self.slider.data() if self.slider else {}

    @property
    def lesson_value(self) -> str:
        """The lesson's value, as the box would show it."""
        if self.param is None:
            return ""
        return typed(self.param.default)

    @property
    def lesson_words(self) -> str:
        """Where the lesson's value is, for a screen reader (the track's mark says it)."""
        return _("The lesson's value is %(value)s.") % {"value": self.lesson_value}


@dataclass
class Group:
    """A heading and its controls, folded or open."""

    title: str
    controls: list[Control]
    open: bool = True
    changed: int = 0  # how many of its fields differ from the lesson's values


def lay_out(form) -> list[Group]:
    """The form's groups, in parameter order, with the seed's last and folded."""
    params = {p.name: p for p in form.lab.params}
    groups = []
    for title, fields in form.groups():
        controls = [_control(f, params.get(f.name)) for f in fields]
        groups.append(Group(title, controls, changed=sum(_differs(form, c) for c in controls)))
    long_form = len(params) >= LONG_FORM
    for index, group in enumerate(groups):
        refused = any(c.field.errors for c in group.controls)
        is_seed = group.controls[0].param is None
        middle = long_form and 0 < index < len(groups) - 1 - ("seed" in form.fields)
        group.open = refused or bool(group.changed) or not (is_seed or middle)
    return groups


def _control(bound: forms.BoundField, param: Param | None) -> Control:
    if param is None or bound.field.disabled:
        return Control(bound, param)
    if param.kind.endswith("_list"):
        return Control(bound, param, presets=list_presets(param))
    return Control(bound, param, slider=slider_for(param))


def _differs(form, control: Control) -> bool:
    """Whether the value the form shows differs from the lesson's (as typed)."""
    if control.param is None:
        return False
    shown = control.field.value()
    if isinstance(control.param.default, bool):
        return _as_bool(shown) != control.param.default
    return str(control.field.field.prepare_value(shown)).strip() != typed(control.param.default)


def _as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("on", "true", "yes", "1")
    return bool(value)


def list_presets(param: Param) -> list[tuple[str, str]]:
    """Ready-made lists for a list param: the lesson's, and for a series over time a spike,
    a ramp and a steady load made from the lesson's own lowest and highest values."""
    lesson = list(param.default)
    presets = [("lesson", lesson)]
    if len(lesson) >= SERIES_FROM and param.min is not None and param.max is not None:
        n, low, high = len(lesson), min(lesson), max(lesson)
        whole = param.kind == "int_list"
        spike = [low] * n
        spike[1] = min(param.max, high * 2)
        ramp = [low + (high - low) * i / (n - 1) for i in range(n)]
        steady = [sum(lesson) / n] * n
        for name, values in (("spike", spike), ("ramp", ramp), ("steady", steady)):
            shaped = [_bounded(v, param.min, param.max, whole) for v in values]
            if shaped != lesson:
                presets.append((name, shaped))
    return [(str(PRESET_NAMES[name]), typed(values)) for name, values in presets]


def _bounded(value: float, low: float, high: float, whole: bool) -> float:
    value = min(max(value, low), high)
    return round(value) if whole else round(value, 2)


def typed(value: Any) -> str:
    """A value as a person types it in the box: 100, 0.05, `50, 800, 800`, true."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(typed(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
