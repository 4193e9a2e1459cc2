"""The operator panel of a live trapped-service run: switch controls while it drowns.

The run's owner posts a command; the view checks it (`ControlForm`) and writes it on the
run's control channel in Redis (`labs.experiments.trapped.send_command`), which the
experiment reads apart from its saturated work queue and from Celery. Nothing here waits
for the experiment: the command's effect shows on the live chart and its timeline.
"""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from labs.course.assignment_05.trapped_live.run import SAMPLE_KEYS
from labs.experiments.namespace import run_key_for, run_namespace
from labs.experiments.trapped import CONTROLS, Command, parse_command, send_command
from labs.experiments.trapped.controls import ControlSpec, control_spec
from labs.runs import redis_clients
from labs.text import parse_decimal

LAB = "trapped-live"
# The panel's words for each control and its value, in the reader's language.
LABELS = {
    "admission_limit": (_("Admission limit"), _("Admitted a second")),
    "retry_budget": (_("Retry budget"), _("Retries allowed per new request")),
    "drop_expired": (_("Drop expired work"), ""),
    "reconcile_payments": (_("Reconcile payments"), ""),
    "drop_payments": (_("Drop payments too (naive)"), ""),
    "reserve_share": (_("Reserve for fresh requests"), _("Share of workers")),
    "reopen_ramp": (_("Reopen ramp"), _("Ramp length")),
}


class ControlForm(forms.Form):
    """One switch: which control, on or off, and its value if it takes one."""

    control = forms.ChoiceField(
        label=_("Control"), choices=[(c.name, LABELS[c.name][0]) for c in CONTROLS]
    )
    state = forms.ChoiceField(
        label=pgettext_lazy("a control", "Switch"),
        choices=[
            ("on", pgettext_lazy("a switch", "on")),
            ("off", pgettext_lazy("a switch", "off")),
        ],
    )
    value = forms.CharField(
        label=pgettext_lazy("a control's setting", "Value"), required=False, max_length=32
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        value = cleaned.get("value", "").strip()
        problem = value_problem(control_spec(cleaned["control"]), value)
        if problem:
            self.add_error("value", problem)
            return cleaned
        try:
            cleaned["command"] = parse_command(cleaned["control"], cleaned["state"], value)
        except ValueError as exc:  # the experiment's own check, should it ever refuse more
            self.add_error("value", str(exc))
        return cleaned


def value_problem(spec: ControlSpec, value: str) -> str:
    """What is wrong with the value typed for `spec`, in the reader's words ("" if nothing).

    The same rules as `parse_command`, whose messages are English for the experiment's log.
    """
    if not value:
        return ""
    control, what = LABELS[spec.name]
    if not spec.has_value:
        return gettext("%(control)s takes no value.") % {"control": control}
    try:
        number = parse_decimal(value)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        return gettext("%(what)s must be a number, got %(value)s.") % {"what": what, "value": value}
    if not spec.min <= number <= spec.max:
        return gettext("%(what)s must be between %(low)s and %(high)s, got %(value)s.") % {
            "what": what,
            "low": f"{spec.min:g}",
            "high": f"{spec.max:g}",
            "value": value,
        }
    return ""


def command_words(command: Command) -> str:
    """What the operator sent, in words: 'Retry budget switched on at 0.1'."""
    control = LABELS[command.control][0]
    if not command.on:
        return gettext("%(control)s switched off") % {"control": control}
    if command.value is None:
        return gettext("%(control)s switched on") % {"control": control}
    return gettext("%(control)s switched on at %(value)s") % {
        "control": control,
        "value": f"{command.value:g}",
    }


def panel_for(run: Any, user: Any) -> dict[str, Any] | None:
    """What the run page shows: the panel for the owner of a live trapped-service run."""
    if run.lab != LAB or run.owner_id != getattr(user, "pk", None):
        return None
    return {
        "controls": [
            {
                "name": c.name,
                "label": LABELS[c.name][0],
                "value_label": LABELS[c.name][1],
                "unit": gettext(c.unit) if c.unit else "",
                "min": c.min,
                "max": c.max,
                "now": _start_value(run.params, c.name),
            }
            for c in CONTROLS
        ],
        "live": not run.is_finished,
    }


def _start_value(params: Any, control: str) -> str:
    """The value the run started with for `control`, shown in its box: empty keeps it."""
    param = SAMPLE_KEYS[control][2]
    value = params.get(param) if param else None
    return f"{value:g}" if isinstance(value, int | float) else ""


def send(run: Any, command: Command) -> bool:
    """Write `command` on the run's channel; False if the run's experiment is not live."""
    r = redis_clients.experiments("control-panel")
    return send_command(r, run_namespace(run_key_for(run.pk)), command) is not None
