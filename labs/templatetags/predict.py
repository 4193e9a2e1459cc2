"""`{% prediction_prompts lab form run as prompts %}`: the prompts a lab's form offers."""

from __future__ import annotations

from typing import Any

from django import template

from labs.web.predict import Offered, offered

register = template.Library()


@register.simple_tag
def prediction_prompts(lab: Any, form: Any = None, run: Any = None) -> list[Offered]:
    """The lab's prompts; what was sent is kept when the form came back with an error, and
    cleared once a run started (a prediction is for the next run)."""
    if lab is None:
        return []
    data = form.data if form is not None and form.is_bound and run is None else None
    return offered(lab, data)
