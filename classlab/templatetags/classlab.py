"""`{% class_experiments classroom %}`: a class's saved experiments, for its page."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.inclusion_tag("classlab/class_list.html")
def class_experiments(classroom: Any) -> dict[str, Any]:
    from classlab.models import Experiment

    runs = Experiment.objects.filter(classroom=classroom).order_by("-created_at")[:20]
    return {"classroom": classroom, "runs": list(runs)}
