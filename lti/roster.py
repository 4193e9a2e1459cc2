"""Names and roles (NRPS): a class filled from its LMS course's roster."""

from __future__ import annotations

from lti_tool.models import LtiMembership
from lti_tool.services.nrps import sync_memberships

from lti import people
from teaching.models import Classroom


def fill_from_lms(classroom: Classroom) -> tuple[int, int]:
    """Read the roster of every LMS course linked to the class (django-lti's NRPS call,
    through PyLTI1p3's service connector), then give every active learner an account and a
    place in the class. (added to the class, learners in the course)."""
    added = total = 0
    for link in classroom.lms_links.select_related("context__deployment__registration"):
        context = link.context
        sync_memberships(context)
        learners = LtiMembership.objects.filter(
            context=context, is_learner=True, is_active=True, is_instructor=False
        ).select_related("user")
        for membership in learners:
            total += 1
            account = people.account_for(membership.user)
            added += people.enrol(classroom, account)
    return added, total
