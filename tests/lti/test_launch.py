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
