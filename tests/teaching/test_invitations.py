"""No invitation to an archived class is offered, and accepting an old one says why."""

from __future__ import annotations

from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from teaching.models import Invitation, Membership


def invite_bob(school) -> Invitation:
    return Invitation.objects.create(
        classroom=school.class_a, student=school.bob, invited_by=school.teacher
    )


def archive(classroom) -> None:
    classroom.archived_at = timezone.now()
    classroom.save()


def test_an_archived_classs_invitation_is_not_offered(client, school):
    invite_bob(school)
    client.force_login(school.bob)
    assert "Invitations to a class" in client.get(reverse("home")).content.decode()
    archive(school.class_a)
    page = client.get(reverse("home")).content.decode()
    assert "Invitations to a class" not in page and "Class A" not in page


def test_accepting_an_old_invitation_to_an_archived_class_says_why(client, school):
    invitation = invite_bob(school)
    archive(school.class_a)
    client.force_login(school.bob)
    response = client.post(reverse("invitation-accept", args=[invitation.pk]))
    assert response.status_code == 302  # not 403
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert any("has been archived" in m and "Class A" in m for m in said), said
    assert not Membership.objects.filter(classroom=school.class_a, student=school.bob).exists()


def test_it_is_offered_again_when_the_class_is_unarchived(client, school):
    invite_bob(school)
    archive(school.class_a)
    school.class_a.archived_at = None
    school.class_a.save()
    client.force_login(school.bob)
    assert "Invitations to a class" in client.get(reverse("home")).content.decode()
