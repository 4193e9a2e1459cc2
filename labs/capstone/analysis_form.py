"""The form of a student's analysis: six answers, each bounded, saved as a draft."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy

from labs.capstone.analysis import FIELDS, MAX_ANSWER, MAX_STEPS, QUESTIONS, Analysis

HELP = {
    "trigger": gettext_lazy("What happened first, and when: the event, not what followed."),
    "loop": gettext_lazy("Why the service stayed down once the trigger was over."),
    "steps": gettext_lazy(
        "Your own steps, in order, one per line. The measured verdicts of the report "
        "are your evidence; say which figure shows that each step worked."
    ),
    "drain_miss": gettext_lazy("Compare the estimate with the measured drain time."),
    "followup_cold_cache": gettext_lazy("What changes if every request is slow at first?"),
    "followup_job_cost": gettext_lazy("What changes if some jobs cost far more than others?"),
}


class AnalysisForm(forms.ModelForm):
    class Meta:
        model = Analysis
        fields = list(FIELDS)
        labels = dict(QUESTIONS)
        help_texts = HELP
        widgets = {
            name: forms.Textarea(
                attrs={"rows": 8 if name == "steps" else 4, "maxlength": MAX_ANSWER}
            )
            for name in FIELDS
        }

    def clean_steps(self) -> str:
        steps = self.cleaned_data["steps"]
        if len([line for line in steps.splitlines() if line.strip()]) > MAX_STEPS:
            raise forms.ValidationError(
                gettext_lazy("At most %(most)d steps: join the small ones.") % {"most": MAX_STEPS}
            )
        return steps
