"""The capstone's form: pick two of your trapped-service runs for a before/after report."""

from __future__ import annotations

import uuid
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


PICK_LIMIT = 50  # the newest runs of one's own offered in each drop-down


def _is_uuid(value: Any) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


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
        # Any run the user may open is accepted (a link from the gradebook names a
        # student's), but the drop-downs offer only their own newest: a teacher's list of
        # every handed-in run would be thousands of options on a school network.
        offered = list(runs.filter(owner=user)[:PICK_LIMIT])
        picked = self.initial.get("before") or self.data.get("before")
        if picked and all(str(run.pk) != str(picked) for run in offered):
            offered += list(runs.filter(pk=picked)) if _is_uuid(picked) else []
        for name in ("before", "after"):
            field = self.fields[name]
            field.queryset = runs
            field.choices = [("", field.empty_label)] + [
                (run.pk, field.label_from_instance(run)) for run in offered
            ]

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
