"""A student's answer to a teacher's invitation into a class, and the banner that asks it.

The banner is on every full page (base.html) through `pending_invitations`, a context
processor whose query runs only when a page shows it (fragments never do).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from teaching.access import require_open
from teaching.models import Invitation, Membership


def pending_invitations(request: HttpRequest) -> dict:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "pending_invitations": SimpleLazyObject(
            # An archived class takes no one in: its invitations are not offered (they
            # come back if the teacher unarchives it).
            lambda: list(
                Invitation.objects.filter(
                    student=user, classroom__archived_at__isnull=True
                ).select_related("classroom", "classroom__teacher")
            )
        )
    }


def _own_invitation(request: HttpRequest, invitation_id: int) -> Invitation:
    invitation = (
        Invitation.objects.select_related("classroom")
        .filter(pk=invitation_id, student_id=request.user.pk)
        .first()
    )
    if invitation is None:
        raise Http404(_("No such invitation, or it is not for you."))
    return invitation


@login_required
@require_POST
def invitation_accept(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = _own_invitation(request, invitation_id)
    classroom = invitation.classroom
    if classroom.is_archived:
        # An old page's button: say what happened rather than 403.
        messages.warning(
            request,
            _(
                "%(class)s has been archived (its term is over), so it takes no one in: "
                "the invitation no longer stands. Ask the teacher for their current class."
            )
            % {"class": classroom},
        )
        return redirect("home")
    require_open(classroom)
    with transaction.atomic():
        Membership.objects.get_or_create(
            classroom=classroom,
            student_id=request.user.pk,
            defaults={"origin": Membership.Origin.INVITED},
        )
        invitation.delete()
    messages.success(request, _("You joined %(class)s.") % {"class": classroom})
    return redirect(classroom)


@login_required
@require_POST
def invitation_decline(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = _own_invitation(request, invitation_id)
    invitation.delete()
    messages.info(
        request,
        _("You declined the invitation to %(class)s.") % {"class": invitation.classroom},
    )
    return redirect("home")
