"""Launches from a real LTI 1.3 platform (lti1p3platform): a teacher's launch makes the
course's class, a learner's puts them in it, each signed in by their LMS identity."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from lti_tool.models import LtiUser

from labs.roles import is_teacher
from lti.models import ClassLink
from teaching.models import Membership
from tests.lti.conftest import LEARNER_1, TEACHER

pytestmark = [pytest.mark.redis]


def signed_in(client):
    return client.get("/classes/").wsgi_request.user


def test_a_teachers_launch_makes_the_courses_class_and_signs_them_in(client, platform):
    response = platform.launch(client, TEACHER)
    assert response.status_code == 302, response.content.decode()[:800]
    link = ClassLink.objects.get()
    classroom = link.classroom
    assert classroom.name == "Queues 101 (LMS)"
    assert response["Location"] == classroom.get_absolute_url()
    user = signed_in(client)
    assert user == classroom.teacher and is_teacher(user)
    assert user.username == "sunita.kulkarni"
    assert LtiUser.objects.get(sub=TEACHER.sub).auth_user == user


def test_a_learners_launch_puts_them_in_the_class_by_their_lms_identity(client, platform):
    platform.launch(client, TEACHER)
    client.logout()
    response = platform.launch(client, LEARNER_1)
    assert response.status_code == 302
    user = signed_in(client)
    assert user.username == "bhakti.chavhan" and not is_teacher(user)
    classroom = ClassLink.objects.get().classroom
    assert Membership.objects.filter(classroom=classroom, student=user).exists()
    # The same person again: the same account, not a second one.
    client.logout()
    platform.launch(client, LEARNER_1)
    assert signed_in(client) == user
    assert get_user_model().objects.filter(username__startswith="bhakti").count() == 1


def test_inside_the_lms_frame_the_launch_opens_in_a_new_tab(client, platform):
    """Framed, a browser keeps no cookie for the site: the launch answers a page with a
    button that opens the target in a new tab, once, where the person is signed in."""
    import re

    response = platform.launch(client, TEACHER, document_target="iframe")
    html = response.content.decode()
    assert response.status_code == 200 and 'target="_blank"' in html
    policy = response["Content-Security-Policy"]
    ancestors = policy.split("frame-ancestors", 1)[1].split(";")[0].split()
    assert "https://lms.example.org" in ancestors  # the LMS (its issuer) may frame it
    assert "X-Frame-Options" not in response
    assert not client.get("/classes/").wsgi_request.user.is_authenticated
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    opened = client.post("/lti/continue/", {"token": token})
    classroom = ClassLink.objects.get().classroom
    assert opened.status_code == 302 and opened["Location"] == classroom.get_absolute_url()
    assert signed_in(client) == classroom.teacher
    client.logout()
    assert client.post("/lti/continue/", {"token": token}).status_code == 400  # once only


def test_a_second_instructor_is_told_the_class_has_a_teacher(client, platform):
    from tests.lti.platform import INSTRUCTOR, Person

    platform.launch(client, TEACHER)
    client.logout()
    response = platform.launch(client, Person("lms-teacher-2", "Ravi Patil", [INSTRUCTOR]))
    assert response.status_code == 403
    assert 'data-reason="other-teacher"' in response.content.decode()
