"""The class experiment's forms: start one, join as a guest, predict, the teacher's controls."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from classlab.jobs import LIMITS as JOBS_LIMITS
from classlab.models import Experiment, Participant
from classlab.policy import POLICIES
from classlab.storm import LIMITS as STORM_LIMITS

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
    "slots",
    "service",
    "timeout",
)
JOBS_ACTIONS = ("visibility", "receive_limit", "arrivals", "work")

# action -> (the setting it changes, its bounds): the same bounds as the model's own
# (classlab.storm.LIMITS, classlab.jobs.LIMITS), checked here so the teacher reads why.
SETTINGS: dict[str, tuple[str, int, int]] = {
    "admission": ("admission", *STORM_LIMITS["admission"]),
    "drop_expired": ("drop_expired", *STORM_LIMITS["drop_expired"]),
    "pace": ("pace_per_min", *STORM_LIMITS["pace_per_min"]),
    "slots": ("slots", *STORM_LIMITS["slots"]),
    "service": ("service_ms", *STORM_LIMITS["service_ms"]),
    "timeout": ("timeout_ms", *STORM_LIMITS["timeout_ms"]),
    "visibility": ("visibility_ms", *JOBS_LIMITS["visibility_ms"]),
    "receive_limit": ("receive_limit", *JOBS_LIMITS["receive_limit"]),
    "arrivals": ("arrivals_per_min", *JOBS_LIMITS["arrivals_per_min"]),
    "work": ("work_ms", *JOBS_LIMITS["work_ms"]),
}


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
        if action in SETTINGS:
            value = data.get("value")
            if value is None:
                raise forms.ValidationError(_("Give a number for this setting."))
            _name, low, high = SETTINGS[action]
            if not low <= value <= high:
                raise forms.ValidationError(
                    _("This setting takes a number from %(low)s to %(high)s.")
                    % {"low": low, "high": high}
                )
        return data
