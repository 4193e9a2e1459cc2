"""Forms built from a lab's `Param` list: they convert and validate, views only read them."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.catalogue.entries import LABS
from labs.catalogue.lab import Lab
from labs.interface.params import Param
from labs.runs.admission import lab_cost, over_budget
from labs.runs.models import Run
from labs.text import SEED_MAX, listed, num, said
from labs.text import plain as plain_text
from labs.web.form_layout import Group, lay_out
from labs.web.plain_input import (
    decimal_message,
    parse_decimal,
    parse_whole,
    parse_yes_no,
    whole_message,
)


class NumberListField(forms.CharField):
    """A comma-separated list of numbers, each within bounds, at most `max_items` long."""

    def __init__(self, *, number: type, low: float, high: float, max_items: int, **kwargs):
        self.number, self.low, self.high, self.max_items = number, low, high, max_items
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return ", ".join(str(plain(v)) for v in value)
        return value

    def to_python(self, value: Any) -> list:
        if isinstance(value, list | tuple):
            raw_items = [str(v) for v in value]
        else:
            text = (super().to_python(value) or "").strip()
            if not text:
                return []
            raw_items = [part.strip() for part in text.replace(";", ",").split(",")]
        if len(raw_items) > self.max_items:
            raise ValidationError(
                _("At most %(most)d values, got %(got)d.")
                % {"most": self.max_items, "got": len(raw_items)},
                code="too_many",
            )
        parse = parse_whole if self.number is int else parse_decimal
        how = whole_message() if self.number is int else decimal_message()
        out = []
        for position, item in enumerate(raw_items, start=1):
            where = {"position": position, "item": item}
            if item == "":
                raise ValidationError(
                    _("Value %(position)s is empty: remove the extra comma.") % where
                )
            try:
                number = parse(item)
            except ValueError:
                raise ValidationError(
                    f"Value {position} ({item!r}) is not a number. {how}"
                ) from None
            if not self.low <= number <= self.high:
                raise ValidationError(
                    _("Value %(position)s (%(item)s) is out of range: each must be %(span)s.")
                    % (where | {"span": f"{num(self.low)} – {num(self.high)}"})
                )
            out.append(number)
        return out


class PlainIntegerField(forms.IntegerField):
    """A whole number typed with the digits 0-9 only (not "1_0", "٣" or "１２")."""

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return parse_whole(str(value))
        except ValueError:
            raise ValidationError(whole_message(), code="invalid") from None


class PlainFloatField(forms.FloatField):
    """A finite number typed with the digits 0-9 and a dot."""

    def to_python(self, value: Any) -> float | None:
        if value in self.empty_values:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        try:
            return parse_decimal(str(value))
        except ValueError:
            raise ValidationError(decimal_message(), code="invalid") from None


class YesNoWidget(forms.CheckboxInput):
    """A checkbox that hands the field what was sent, so the field can refuse nonsense."""

    def value_from_datadict(self, data, files, name):
        return data.get(name)


class YesNoField(forms.BooleanField):
    """Yes from "on", "true", "yes" or "1"; no from their opposites or nothing; else an error."""

    widget = YesNoWidget

    def to_python(self, value: Any) -> bool:
        return parse_yes_no(value)


def plain(value: Any) -> Any:
    """A whole float as an int, so a form shows 1000 rather than 1000.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def locked_words(field: forms.Field, value: Any) -> str:
    """A locked value as the student reads it: a choice's label, yes or no, 50, 800."""
    if isinstance(field, forms.ChoiceField):
        return str(dict(field.choices).get(value, value))
    if isinstance(field, YesNoField):
        return _("yes") if value else _("no")
    if isinstance(value, list | tuple):
        return ", ".join(plain_text(v) for v in value)
    return plain_text(value)


def field_for(param: Param, shared: str = "") -> forms.Field:
    """The Django form field that converts and bounds one parameter.

    `shared` is a limit the field shares with others (the run's cost budget), said after
    the field's own limit in its help.
    """
    help_text = _(param.help) if param.help else ""
    if param.range_text():
        help_text = f"{help_text} ({param.range_text()})"
    for limit in (said(param.limit) if param.limit else "", shared):
        if limit:
            help_text = f"{help_text} {limit}".strip()
    common: dict[str, Any] = {
        "label": _(param.label),
        "help_text": help_text,
        "initial": plain(param.default),
    }
    if param.kind == "int":
        return PlainIntegerField(min_value=param.min, max_value=param.max, **common)
    if param.kind == "float":
        return PlainFloatField(min_value=param.min, max_value=param.max, **common)
    if param.kind == "choice":
        return forms.ChoiceField(choices=[(v, _(label)) for v, label in param.choices], **common)
    if param.kind == "bool":
        return YesNoField(required=False, **common)
    return NumberListField(
        widget=forms.TextInput(attrs={"class": "wide", "inputmode": "decimal"}),
        number=int if param.kind == "int_list" else float,
        low=param.min,
        high=param.max,
        max_items=param.max_items,
        **common,
    )


def budget_drivers(lab: Lab) -> tuple[str, ...]:
    """The params that set a run's worker time together, for a lab with a cost bound."""
    estimate = lab_cost(lab, lab.defaults())
    return tuple(estimate.drivers) if estimate is not None else ()


def budget_words(lab: Lab, drivers: tuple[str, ...], name: str) -> str:
    """The shared budget, said once in full (on the first field that counts towards it);
    the others name that field instead of repeating the sentence down a phone's form."""
    if name not in drivers:
        return ""
    labels = {p.name: p.label for p in lab.params}
    shown = [p.name for p in lab.params if p.name in drivers]
    if name != shown[0]:
        return _("With “%(first)s”, this sets how long the run holds a worker.") % {
            "first": _(labels[shown[0]])
        }
    experiment = lab.kind == "experiment"
    budget = settings.LAB_EXPERIMENT_BUDGET_S if experiment else settings.LAB_RUN_BUDGET_S
    others = [f"“{_(labels[d])}”" for d in shown if d != name]
    return _(
        "With %(others)s, this sets how long the run holds a worker: at most %(budget)s s a "
        "run, so the whole class gets its turn."
    ) % {"others": listed(others, _("and")), "budget": num(budget)}


class LabForm(forms.Form):
    """The parameters of one lab, plus the seed when the lab draws random numbers."""

    def __init__(self, lab: Lab, *args: Any, locked: dict[str, Any] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lab = lab
        self.locked = dict(locked or {})
        drivers = budget_drivers(lab)
        for param in lab.params:
            self.fields[param.name] = field_for(param, budget_words(lab, drivers, param.name))
        if lab.uses_seed:
            self.fields["seed"] = PlainIntegerField(
                label=_("Seed"),
                min_value=0,
                max_value=SEED_MAX,
                required=False,
                initial=lab.default_seed,
                help_text=_("The same seed gives the same run; leave empty for a fresh draw."),
                error_messages={"invalid": _("Use a whole number.")},
            )
        for name, value in self.locked.items():
            self._lock(name, value)
        self._mark_start_values()

    def _lock(self, name: str, value: Any) -> None:
        """A locked value is never taken from the request (a disabled field cleans to its
        initial value), nor from a form-level `initial` passed in. The page shows it in a
        read-only box and posts it in a hidden input (`locked_value`), not as a disabled
        control: a browser never posts a disabled one, so any button of the form (Run
        before/after too) sends the teacher's value."""
        field = self.fields[name]
        field.disabled = True
        field.initial = value
        self.initial[name] = value
        sent = ", ".join(plain_text(v) for v in value) if isinstance(value, list) else value
        field.locked_value = plain_text(sent)
        field.locked_words = locked_words(field, value)

    def _mark_start_values(self) -> None:
        """Write on each field the value the page starts with (the lesson's, or the teacher's
        preset), so "Reset to the lesson's values" can put it back without a request."""
        for name, field in self.fields.items():
            value = field.prepare_value(self.initial.get(name, field.initial))
            if isinstance(field.widget, forms.CheckboxInput):
                shown = "true" if value else "false"
            else:
                formatted = field.widget.format_value(value)
                if isinstance(formatted, list):  # a <select> lists its chosen values
                    formatted = formatted[0] if formatted else None
                shown = "" if formatted is None else str(formatted)
            field.widget.attrs["data-start"] = shown

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        params = {p.name: cleaned[p.name] for p in self.lab.params}
        if self.lab.check:
            for name, message in self.lab.check(params).items():
                self.add_error(name if name in self.fields else None, message)
        if not self.errors:
            self._check_budget(params)
        return cleaned

    def _check_budget(self, params: dict[str, Any]) -> None:
        """Refuse, in words and next to the fields that set it, a run over the budget."""
        over = over_budget(self.lab, params)
        if over is None:
            return
        message, drivers = over
        marked = [name for name in drivers if name in self.fields and name not in self.locked]
        for name in marked[:1]:
            self.add_error(name, message)
        for name in marked[1:]:
            self.add_error(name, _("Lowering this one makes the run cheaper too."))
        if not marked:
            self.add_error(None, message)

    def params(self) -> dict[str, Any]:
        """The validated parameters, ready to save on a run."""
        return {p.name: self.cleaned_data[p.name] for p in self.lab.params}

    def seed(self) -> int | None:
        return self.cleaned_data.get("seed")

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """Fields under their group headings, in parameter order."""
        grouped: list[tuple[str, list[forms.BoundField]]] = []
        for param in self.lab.params:
            if not grouped or grouped[-1][0] != param.group:
                grouped.append((param.group, []))
            grouped[-1][1].append(self[param.name])
        shown = [(_(group) if group else "", fields) for group, fields in grouped]
        if "seed" in self.fields:
            randomness = _("Randomness")
            if shown and shown[-1][0] == randomness:  # "Also run 20 seeds" sits there too
                shown[-1][1].insert(0, self["seed"])
            else:
                shown.append((randomness, [self["seed"]]))
        return shown

    def layout(self) -> list[Group]:
        """The groups as the lab's panel shows them: folding, with sliders and presets."""
        return lay_out(self)


class RunLabelForm(forms.ModelForm):
    """The owner's name and note for a run, so a history of runs reads like a notebook."""

    class Meta:
        model = Run
        fields = ["name", "note"]
        widgets = {"note": forms.Textarea(attrs={"rows": 3})}
        labels = {"name": gettext_lazy("Name"), "note": gettext_lazy("Note")}
        help_texts = {
            "name": gettext_lazy("A few words, e.g. “8 fixed workers”."),
            "note": gettext_lazy("What you tried."),
        }


class RunFilterForm(forms.Form):
    """The history page's filters: one lab's runs, named or not, handed in or not; a page."""

    lab = forms.ChoiceField(required=False, label=gettext_lazy("Lab"))
    named = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Name"),
        choices=[
            ("", gettext_lazy("named or not")),
            ("yes", gettext_lazy("named")),
            ("no", gettext_lazy("without a name")),
        ],
    )
    handed_in = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Handed in"),
        choices=[
            ("", gettext_lazy("handed in or not")),
            ("yes", gettext_lazy("handed in")),
            ("no", gettext_lazy("not handed in")),
        ],
    )
    page = PlainIntegerField(required=False, min_value=1, max_value=100_000)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["lab"].choices = [
            ("", _("All labs")),
            *((lab.slug, _(lab.title)) for lab in LABS),
        ]


class CompareForm(forms.Form):
    """Two runs of the same lab, both visible to the user, in the order they were given."""

    run = forms.ModelMultipleChoiceField(
        queryset=Run.objects.none(),
        error_messages={
            "required": gettext_lazy("Pick two runs to compare."),
            # the view says 404
            "invalid_choice": gettext_lazy("Run %(value)s is not one you can open."),
            "invalid_pk_value": gettext_lazy("“%(pk)s” is not a run id."),
        },
    )

    def __init__(self, user, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run"].queryset = Run.objects.visible_to(user).select_related("owner")

    def clean_run(self) -> list[Run]:
        runs = list(self.cleaned_data["run"])
        asked = [str(v) for v in self.data.getlist("run")] if hasattr(self.data, "getlist") else []
        runs.sort(key=lambda r: asked.index(str(r.pk)) if str(r.pk) in asked else len(asked))
        if len(runs) != 2:
            raise ValidationError(
                _("Pick exactly two different runs to compare (got %(n)d).") % {"n": len(runs)}
            )
        if runs[0].lab != runs[1].lab:
            raise ValidationError(
                _(
                    "These runs are of different labs (%(a)s and %(b)s): "
                    "only runs of the same lab can be compared."
                )
                % {"a": runs[0].lab, "b": runs[1].lab}
            )
        return runs


class RedriveForm(forms.Form):
    """Redrive one parked message (by id) or, with no id, the whole DLQ."""

    message = forms.CharField(
        required=False,
        max_length=200,
        help_text=gettext_lazy("The message's id; empty: all of them."),
    )


class PurgeForm(forms.Form):
    """Which of the kept queue's two lists to empty."""

    WHAT = {"dlq": gettext_lazy("the dead-letter queue"), "queue": gettext_lazy("the queue")}
    what = forms.ChoiceField(choices=list(WHAT.items()))
