"""Template filters that write a run's values as a student types them, not as Python prints.

`{{ value|typed }}` gives true/false for a switch, "50, 800, 800" for a list and "—" for
nothing, so a page never shows True, None or [50, 800, …]. `{{ raw|error_said }}` says a
parked message's last error in words.
"""

from __future__ import annotations

import math
import re
from typing import Any

from django import template
from django.utils.translation import gettext

from labs.experiments.error_words import error_words
from labs.runs.drafts import instant
from labs.text import plain, said
from labs.web.changes import facts_json

register = template.Library()


@register.filter
def typed(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, list | tuple):
        return ", ".join(plain(v) for v in value)
    return plain(value)


@register.filter
def shown(value: Any) -> str:
    """A measured value as a table cell says it: "—" for none or not-a-number, yes or no
    for a flag (in the reader's words), 200 rather than 200.0; never Python's spelling."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, list | tuple):
        return ", ".join(shown(v) for v in value)
    return plain(value)


@register.filter
def error_said(raw: Any) -> str:
    """A parked message's saved last error in the reader's words (`error_words`)."""
    return error_words(str(raw)) if raw else "—"


@register.filter(name="said")
def said_filter(words: Any) -> Any:
    """A msgid or `phrase` (a figure's label, a table's title) in the reader's language."""
    return said(words)


@register.filter
def with_unit(figure: Any) -> str:
    """A figure's label with its unit in brackets, in the reader's language, unless the
    label says the unit already: "Calls answered in time", not "… calls (calls)"."""
    label = str(said(figure.label))
    unit = str(said(figure.unit)) if figure.unit else ""
    if not unit or re.search(rf"(?<!\w){re.escape(unit)}(?!\w)", label, re.IGNORECASE):
        return label
    return f"{label} ({unit})"


@register.simple_tag
def auto_runs(lab: Any, user: Any, action: Any = "") -> bool:
    """Whether this lab panel re-runs as its controls move: a signed-in student on the
    lab's own page (`labs.runs.drafts.instant`), not an assignment's."""
    signed_in = getattr(user, "is_authenticated", False)
    return bool(signed_in and not action and lab and instant(lab))


@register.simple_tag
def run_facts(run: Any, lab: Any) -> str:
    """A finished run's values and figures in words, as JSON (`labs.web.changes`)."""
    if lab is None or run.status != "succeeded" or not run.result:
        return ""
    return facts_json(run, lab)
