"""Forms of a pair hand-in and of the teacher's feedback on any hand-in.

A pair is two of the student's own succeeded runs of the capstone lab with one seed and
the same locked presets, plus the analysis they wrote on the pair's report page.
"""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from labs.capstone.analysis import analysis_of
from labs.runs.models import Run
from labs.web.forms import PlainIntegerField
from labs.words.recovery_controls import controls_on
from teaching.forms import SubmitForm
from teaching.models import Assignment

RUN_ERRORS = {
    "required": gettext_lazy("Choose a run."),
    "invalid_choice": gettext_lazy("That is not one of your runs of this lab."),
}


class PairSubmitForm(SubmitForm):
    """`run` is the after half; `before` the run with the controls off."""

    before = forms.ModelChoiceField(queryset=Run.objects.none(), error_messages=RUN_ERRORS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        before = cast(forms.ModelChoiceField, self.fields["before"])
        before.queryset = cast(forms.ModelChoiceField, self.fields["run"]).queryset

    def clean_before(self) -> Run:
        return self.submittable(self.cleaned_data["before"])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        before, after = cleaned.get("before"), cleaned.get("run")
        if before is None or after is None:
            return cleaned
        if before.pk == after.pk:
            self.add_error("run", _("The before and the after run must be two different runs."))
        elif before.seed != after.seed:
            self.add_error(
                "run",
                _(
                    "The two runs used different seeds (%(before)s and %(after)s): a pair "
                    "shares one seed, so both meet the same callers."
                )
                % {"before": before.seed, "after": after.seed},
            )
        else:
            analysis = analysis_of(before, after)
            if analysis is None or analysis.is_empty:
                raise ValidationError(
                    _(
                        "Write your analysis on the pair's report page first: it is handed "
                        "in with the two runs."
                    )
                )
        return cleaned


class FeedbackForm(forms.Form):
    """The teacher's written feedback and a score for each item of their rubric."""

    feedback = forms.CharField(
        label=gettext_lazy("Feedback for the student"),
        required=False,
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 6}),
    )

    def __init__(self, *args: Any, assignment: Assignment, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rubric = assignment.rubric
        for number, entry in enumerate(self.rubric):
            self.fields[f"score_{number}"] = PlainIntegerField(
                label=_("%(item)s (out of %(max)d)") % {"item": entry["item"], "max": entry["max"]},
                min_value=0,
                max_value=entry["max"],
                required=False,
            )

    def score_fields(self) -> list[forms.BoundField]:
        return [self[f"score_{n}"] for n in range(len(self.rubric))]

    def scores(self) -> dict[str, int]:
        return {
            entry["item"]: self.cleaned_data[f"score_{n}"]
            for n, entry in enumerate(self.rubric)
            if self.cleaned_data.get(f"score_{n}") is not None
        }

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors and not cleaned.get("feedback", "").strip() and not self.scores():
            raise ValidationError(_("Write some feedback or give a score."))
        return cleaned


def feedback_initial(submission) -> dict[str, Any]:
    initial: dict[str, Any] = {"feedback": submission.feedback}
    for number, entry in enumerate(submission.assignment.rubric):
        initial[f"score_{number}"] = submission.scores.get(entry["item"])
    return initial


def pair_choices(runs: list[Run]) -> list[tuple[Run, str]]:
    """Each run a pair may use, labelled with what tells the two halves apart: whether its
    recovery controls were on (and which), beside when it ran and its seed."""
    choices = []
    for run in runs:
        on = controls_on(run.params)
        controls = (
            _("controls on: %(controls)s") % {"controls": ", ".join(on)}
            if on
            else _("controls off")
        )
        when = date_format(timezone.localtime(run.created_at), "j M, H:i:s")
        label = _("%(when)s · seed %(seed)s · %(controls)s") % {
            "when": when,
            "seed": run.seed,
            "controls": controls,
        }
        choices.append((run, f"{label} · {run.name}" if run.name else label))
    return choices


def default_pair(runs: list[Run]) -> tuple[Run | None, Run | None]:
    """The pickers' first choice: the newest run with controls on as the after, and the
    newest run before it with the same seed and every control off as the before (what
    "Run before/after" makes); else the newest run of each kind, so the two always differ."""
    afters = [run for run in runs if controls_on(run.params)]
    befores = [run for run in runs if not controls_on(run.params)]
    for after in afters:
        for before in befores:
            if before.seed == after.seed and before.created_at <= after.created_at:
                return before, after
    return (befores[0] if befores else None), (afters[0] if afters else None)
