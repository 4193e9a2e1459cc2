"""Which class a student's runs share the quick queue with (`teaching.run_lanes`), as the
fair share reads it (`labs.runs.fair_share.lane_of`, handed it at start-up)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from labs.runs.fair_share import lane_of
from teaching.models import Classroom, Membership
from teaching.run_lanes import class_lane
from tests.base import make_user

pytestmark = pytest.mark.django_db


def test_a_student_counts_with_their_class_and_anyone_in_none_is_a_lane_of_their_own(school):
    assert class_lane(school.alice) == f"class:{school.class_a.pk}"
    assert lane_of(school.alice) == f"class:{school.class_a.pk}"
    assert class_lane(school.teacher) == ""
    assert lane_of(school.teacher) == f"user:{school.teacher.pk}"


def test_a_student_in_two_classes_counts_with_the_one_they_joined_last(school):
    earlier = timezone.now() - timedelta(days=90)
    Membership.objects.filter(student=school.alice).update(joined_at=earlier)
    Membership.objects.create(classroom=school.class_b, student=school.alice)
    assert lane_of(school.alice) == f"class:{school.class_b.pk}"


def test_an_archived_class_does_not_count(school):
    school.class_a.archived_at = timezone.now()
    school.class_a.save()
    assert lane_of(school.alice) == f"user:{school.alice.pk}"
    summer = Classroom.objects.create(name="Summer", teacher=make_user("sam", teacher=True))
    Membership.objects.create(
        classroom=summer, student=school.alice, joined_at=timezone.now() - timedelta(days=400)
    )
    assert lane_of(school.alice) == f"class:{summer.pk}"  # older, but still open
