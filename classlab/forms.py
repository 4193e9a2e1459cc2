"""The class experiment's forms: start one, join as a guest, predict, the teacher's controls."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from classlab.models import Experiment, Participant
from classlab.policy import POLICIES

POLICY_NAMES = {
    "none": _("No retries"),
    "immediate": _("Retry at once"),
    "backoff": _("Exponential backoff"),
    "jitter": _("Backoff with full jitter"),
    "budget": _("Retry budget (token bucket)"),
    "breaker": _("Circuit breaker"),
}


class StartForm(forms.Form):
    scenario = forms.ChoiceField(label=_("Scenario"), choices=Experiment.Scenario.choices)
    allow_guests = forms.BooleanField(
        label=_("Let people join as guests with a nickname (no account)"), required=False
    )
    minutes = forms.IntegerField(
        label=_("Ends by itself after (minutes)"), min_value=1, max_value=10, initial=10
    )


class GuestForm(forms.Form):
    nickname = forms.RegexField(
        label=_("Nickname"),
        regex=r"^[\w .-]{2,24}$",
        max_length=24,
        error_messages={"invalid": _("Use 2 to 24 letters, digits, spaces, dots or dashes.")},
    )


class PredictForm(forms.Form):
    prediction = forms.ChoiceField(
        label=_("When the spike ends, will the service recover?"),
        choices=Participant.Prediction.choices,
        widget=forms.RadioSelect,
    )


STORM_ACTIONS = (
    "spike_on",
    "spike_off",
    "slow_on",
    "slow_off",
    "policy",
    "admission",
    "drop_expired",
    "pace",
)
JOBS_ACTIONS = ("visibility", "receive_limit", "arrivals", "work")


class ControlForm(forms.Form):
    """One move of the teacher: the action and, for some, a value."""

    action = forms.ChoiceField(choices=[(a, a) for a in (*STORM_ACTIONS, *JOBS_ACTIONS, "end")])
    policy = forms.ChoiceField(choices=[(p, POLICY_NAMES[p]) for p in POLICIES], required=False)
    value = forms.IntegerField(min_value=0, max_value=60000, required=False)

    def clean(self):
        data = super().clean() or {}
        action = data.get("action")
        if action == "policy" and not data.get("policy"):
            raise forms.ValidationError(_("Choose a client policy."))
        if action in ("admission", "drop_expired", "pace", *JOBS_ACTIONS) and (
            data.get("value") is None
        ):
            raise forms.ValidationError(_("Give a number for this setting."))
        return data
