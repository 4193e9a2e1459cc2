"""Approving new sign-ups (issue 39 item 3, the attack review's D6: 115 junk accounts landed in
one class in 9 minutes and could not be removed in bulk).

With the class's "approve new sign-ups" switch on, whoever signs up or joins with its code
can log in but sees nothing of the class and runs none of its labs until its teacher
approves them; the teacher approves or removes the ticked ones all at once."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from labs.runs.models import Run
from teaching.models import Membership, PendingSignup

PASSWORD = "seven kites over pune"
LAB_POST = {
    "arrivals": "50",
    "per_worker": "100",
    "rule": "backlog",
    "fixed_workers": "3",
    "per_waiting": "100",
    "min_workers": "1",
    "max_workers": "10",
}


def sign_up(client, username: str, code: str = "AAAA2222", address: str = "10.3.3.3"):
    return client.post(
        reverse("signup"),
        {
            "code": code,
            "username": username,
            "first_name": username.title(),
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        REMOTE_ADDR=address,
    )


@pytest.fixture
def approving(school):
    school.class_a.approve_signups = True
    school.class_a.save()
    return school


def test_a_sign_up_waits_and_sees_nothing_of_the_class(client, approving, published):
    school = approving
    response = sign_up(client, "newkid")
    assert response.status_code == 302 and response["Location"] == reverse("class-list")
    kid = get_user_model().objects.get(username="newkid")
    assert not Membership.objects.filter(student=kid).exists()
    assert PendingSignup.objects.filter(classroom=school.class_a, student=kid).exists()

    # Logged in (the sign-up did it), told that they wait, shown no class.
    page = client.get(reverse("class-list"))
    assert page.status_code == 200
    assert "waiting for your teacher" in page.content.decode()
    again = client.get(reverse("class-list")).content.decode()  # the message was shown once
    assert "Waiting for the teacher to let you in: Class A" in again
    assert school.class_a.get_absolute_url() not in page.content.decode()
    assert client.get(school.class_a.get_absolute_url()).status_code == 404
    assert client.get(reverse("assignment-detail", args=[school.assignment_a.pk])).status_code == (
        404
    )
    ran = client.post(reverse("assignment-run", args=[school.assignment_a.pk]), LAB_POST)
    assert ran.status_code == 404
    assert not Run.objects.filter(owner=kid).exists()


def test_joining_with_the_code_waits_too(client, approving):
    carol = get_user_model().objects.create(username="carol")
    client.force_login(carol)
    response = client.post(reverse("class-join"), {"code": "AAAA2222"})
    assert response.status_code == 302 and response["Location"] == reverse("class-list")
    assert not Membership.objects.filter(student=carol).exists()
    assert PendingSignup.objects.get(student=carol).made_here is False


def test_the_teacher_approves_the_ticked_in_bulk(client, approving, published):
    school = approving
    for name in ("kid1", "kid2", "kid3"):
        sign_up(client, name)
        client.logout()
    ids = list(
        get_user_model().objects.filter(username__in=["kid1", "kid2"]).values_list("pk", flat=True)
    )
    client.force_login(school.teacher)
    page = client.get(reverse("class-accounts", args=[school.class_a.pk])).content.decode()
    assert page.count('name="student"') == 3  # a checkbox for each waiting sign-up

    response = client.post(
        reverse("class-pending", args=[school.class_a.pk]), {"action": "approve", "student": ids}
    )
    assert response.status_code == 302
    members = Membership.objects.filter(classroom=school.class_a, student_id__in=ids)
    assert {m.origin for m in members} == {Membership.Origin.CODE} and members.count() == 2
    assert list(PendingSignup.objects.values_list("student__username", flat=True)) == ["kid3"]

    client.force_login(get_user_model().objects.get(username="kid1"))
    assert client.get(school.class_a.get_absolute_url()).status_code == 200
    ran = client.post(reverse("assignment-run", args=[school.assignment_a.pk]), LAB_POST)
    assert ran.status_code == 302


def test_removing_deletes_only_new_accounts_in_no_other_class(client, approving):
    school = approving
    for name in ("junk1", "junk2", "twoclass"):
        sign_up(client, name)
        client.logout()
    users = get_user_model().objects
    twoclass = users.get(username="twoclass")
    Membership.objects.create(classroom=school.class_b, student=twoclass)
    carol = users.create(username="carol")  # an existing account asking to join
    client.force_login(carol)
    client.post(reverse("class-join"), {"code": "AAAA2222"})

    client.force_login(school.teacher)
    ids = list(PendingSignup.objects.values_list("student_id", flat=True))
    response = client.post(
        reverse("class-pending", args=[school.class_a.pk]), {"action": "remove", "student": ids}
    )
    assert response.status_code == 302
    assert not PendingSignup.objects.exists()
    assert not users.filter(username__in=["junk1", "junk2"]).exists()
    assert users.filter(username="twoclass").exists()  # still in class B
    assert users.filter(username="carol").exists()  # not made by this sign-up
    assert not Membership.objects.filter(classroom=school.class_a, student__in=[twoclass, carol])


def test_another_class_cannot_approve_or_remove_this_ones(client, approving):
    school = approving
    sign_up(client, "kid1")
    client.logout()
    kid = get_user_model().objects.get(username="kid1")
    client.force_login(school.other_teacher)
    for action in ("approve", "remove"):
        url = reverse("class-pending", args=[school.class_b.pk])
        assert client.post(url, {"action": action, "student": [kid.pk]}).status_code == 302
    assert PendingSignup.objects.filter(student=kid).exists()  # class B's lists hold no kid1
    assert get_user_model().objects.filter(pk=kid.pk).exists()
    url = reverse("class-pending", args=[school.class_a.pk])
    assert client.post(url, {"action": "remove", "student": [kid.pk]}).status_code == 404


def test_bad_choices_are_refused_with_a_reason(client, approving):
    school = approving
    client.force_login(school.teacher)
    url = reverse("class-pending", args=[school.class_a.pk])
    assert client.post(url, {"action": "delete-all", "student": ["1"]}).status_code == 400
    refused = client.post(url, {"action": "approve", "student": ["x"]})
    assert refused.status_code == 400 and b"not one of this class" in refused.content
    nothing = client.post(url, {"action": "approve"}, follow=True)
    assert "Tick at least one" in nothing.content.decode()


def test_the_switch_is_the_teachers_and_off_by_default(client, school):
    assert school.class_a.approve_signups is False
    client.force_login(school.teacher)
    url = reverse("class-approvals", args=[school.class_a.pk])
    client.post(url, {"approve": "1"})
    school.class_a.refresh_from_db()
    assert school.class_a.approve_signups is True
    client.post(url, {"approve": "0"})
    school.class_a.refresh_from_db()
    assert school.class_a.approve_signups is False
    client.force_login(school.alice)
    assert client.post(url, {"approve": "1"}).status_code == 403
