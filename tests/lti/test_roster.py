"""Names and roles against a real platform: the teacher fills the class from the LMS
course's roster; every learner gets an account and a place, the instructor does not."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from lti.models import ClassLink
from teaching.models import Membership
from tests.lti.conftest import LEARNER_1, LEARNER_2, TEACHER

pytestmark = [pytest.mark.redis]


def test_the_roster_is_filled_from_the_lms_course(client, platform):
    platform.course.members = [TEACHER, LEARNER_1, LEARNER_2]
    platform.launch(client, TEACHER)
    classroom = ClassLink.objects.get().classroom
    teacher = classroom.teacher
    response = client.post(f"/classes/{classroom.pk}/lms-roster/", follow=True)
    assert response.status_code == 200
    students = set(
        Membership.objects.filter(classroom=classroom).values_list("student__username", flat=True)
    )
    assert students == {"bhakti.chavhan", "harshada.joshi"}
    assert "2 of them were added" in response.content.decode()
    # Again: nobody twice; a learner who launches later is the same account.
    client.post(f"/classes/{classroom.pk}/lms-roster/")
    assert Membership.objects.filter(classroom=classroom).count() == 2
    client.logout()
    platform.launch(client, LEARNER_2)
    me = client.get("/classes/").wsgi_request.user
    assert me.username == "harshada.joshi"
    assert get_user_model().objects.filter(username__startswith="harshada").count() == 1
    assert teacher not in [m.student for m in Membership.objects.filter(classroom=classroom)]


def test_only_the_classs_teacher_may_fill_it(client, platform):
    platform.launch(client, TEACHER)
    classroom = ClassLink.objects.get().classroom
    client.logout()
    platform.launch(client, LEARNER_1)
    assert client.post(f"/classes/{classroom.pk}/lms-roster/").status_code == 403
