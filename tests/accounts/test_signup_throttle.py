"""A class's code makes accounts more slowly by default than one address may (issue 39 item 3,
the attack review's D6: at 20 a minute, 115 junk accounts landed in one class in 9 minutes).

The defaults of school/settings.py, not overridden: a burst of 10 a minute with one code,
110 an hour (a class of 100 still joins in a lesson)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from teaching.models import Membership, PendingSignup


def sign_up(client, n: int, code: str = "AAAA2222"):
    response = client.post(
        reverse("signup"),
        {
            "code": code,
            "username": f"kid{n}",
            "first_name": f"Kid {n}",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
        REMOTE_ADDR=f"10.9.{n // 200}.{n % 200 + 1}",  # each from its own address
    )
    client.logout()
    return response.status_code


def joined_earlier(classroom, how_many: int, minutes_ago: int, *, pending: bool = False) -> None:
    """`how_many` accounts made with the class's code `minutes_ago`."""
    when = timezone.now() - timedelta(minutes=minutes_ago)
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"earlier{classroom.pk}-{i}", date_joined=when)
        for i in range(how_many)
    )
    if pending:
        PendingSignup.objects.bulk_create(
            PendingSignup(classroom=classroom, student=u, made_here=True) for u in users
        )
    else:
        Membership.objects.bulk_create(
            Membership(classroom=classroom, student=u, origin=Membership.Origin.CODE) for u in users
        )


def test_a_code_takes_a_burst_of_ten_a_minute(client, school):
    assert [sign_up(client, n) for n in range(11)] == [302] * 10 + [429]
    assert sign_up(client, 11, code=school.class_b.join_code) == 302  # another class's code


def test_a_class_of_a_hundred_joins_within_the_hour_and_no_more_than_110(client, school):
    joined_earlier(school.class_a, 100, minutes_ago=30)
    assert [sign_up(client, n) for n in range(10)] == [302] * 10  # 110 in the hour
    assert sign_up(client, 10) == 429


def test_the_hour_holds_after_the_minutes_burst(client, school):
    joined_earlier(school.class_a, 110, minutes_ago=5)
    assert sign_up(client, 0) == 429


def test_sign_ups_waiting_for_approval_count_too(client, school):
    school.class_a.approve_signups = True
    school.class_a.save()
    joined_earlier(school.class_a, 10, minutes_ago=0, pending=True)
    assert sign_up(client, 0) == 429
