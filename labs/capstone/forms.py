"""The capstone's form: pick two of your trapped-service runs for a before/after report."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy

from labs.capstone.report import LABS
from labs.runs.models import Run
from labs.words.recovery_controls import controls_on


class RunChoiceField(forms.ModelChoiceField):
    """A saved run, shown by when it ran, its seed and the controls it had on."""

    def label_from_instance(self, run: Run) -> str:
        controls = controls_on(run.params)
        when = date_format(timezone.localtime(run.created_at), "j M H:i:s")
        return gettext("%(when)s · seed %(seed)s · controls: %(controls)s") % {
            "when": when,
            "seed": run.seed,
            "controls": ", ".join(controls) or gettext("none"),
        }


class ReportPickForm(forms.Form):
    """Two finished runs of the trapped service for a before/after report."""

    before = RunChoiceField(
        queryset=Run.objects.none(), label=gettext_lazy("Before (the trapped run)")
    )
    after = RunChoiceField(
        queryset=Run.objects.none(), label=gettext_lazy("After (the run with controls)")
    )

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        runs = (
            Run.objects.visible_to(user)
            .filter(lab__in=LABS, status=Run.Status.SUCCEEDED)
            .defer("own_result", "progress")
        )
        self.fields["before"].queryset = runs
        self.fields["after"].queryset = runs

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if cleaned.get("before") and cleaned.get("before") == cleaned.get("after"):
            self.add_error("after", gettext("Pick two different runs."))
        else:
            before, after = cleaned.get("before"), cleaned.get("after")
            if before and after and before.lab != after.lab:
                self.add_error(
                    "after",
                    gettext("Pick two runs of the same lab: both simulated or both live on Redis."),
                )
        return cleaned
