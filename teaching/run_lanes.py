"""Which class a student's runs share the quick queue with (`labs.runs.fair_share`).

A class is the unit of fairness: one class pressing Run on a hundred phase maps waits its
own turn, and another class's quick labs go ahead of that flood. A student in several
classes counts with the one they joined last (this term's); an archived class runs nothing,
so it does not count. Anyone in no class (a teacher, a student on their own) is a lane of
their own, which `labs.runs.fair_share.lane_of` gives when this says nothing.
"""

from __future__ import annotations

from teaching.models import Membership


def class_lane(user) -> str:
    """ "class:<id>" for the class `user` joined last of those still open, or "" for none."""
    classroom_id = (
        Membership.objects.filter(student=user, classroom__archived_at__isnull=True)
        .order_by("-joined_at", "-pk")
        .values_list("classroom_id", flat=True)
        .first()
    )
    return f"class:{classroom_id}" if classroom_id is not None else ""
