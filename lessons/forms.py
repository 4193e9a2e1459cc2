"""The self-check form: one field per question, built from the unit's questions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from lessons.marking import read_number
from lessons.questions import CHOICE, Question

NOT_A_NUMBER = _("Write a number using digits, for example 1200 or 16.7.")


class SelfCheckForm(forms.Form):
    """Every answer is optional: an empty one is simply marked wrong."""

    def __init__(self, *args: Any, questions: tuple[Question, ...], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.questions = questions
        for q in questions:
            if q.kind == CHOICE:
                field: forms.Field = forms.ChoiceField(
                    choices=q.choices, widget=forms.RadioSelect, required=False
                )
            else:
                field = forms.CharField(
                    max_length=30,
                    required=False,
                    widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
                )
            field.label = q.text()
            self.fields[q.key] = field

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for q in self.questions:
            given = (cleaned.get(q.key) or "").strip()
            if q.kind != CHOICE and given and read_number(given) is None:
                self.add_error(q.key, NOT_A_NUMBER)
                # The template shows the message under the field with this id.
                self.fields[q.key].widget.attrs["aria-describedby"] = f"id_{q.key}-error"
        return cleaned

    def answers(self) -> dict[str, str]:
        return {q.key: (self.cleaned_data.get(q.key) or "").strip() for q in self.questions}

    def rows(self) -> list[tuple[Question, forms.BoundField]]:
        return [(q, self[q.key]) for q in self.questions]
