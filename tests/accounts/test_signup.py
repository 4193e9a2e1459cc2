"""Signing up with a join code: the account, the class, and the codes that let no one in."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from teaching.models import Membership

GOOD = {
    "code": "aaaa-2222",  # typed loosely: lower case, a dash
    "username": "dev",
    "first_name": "Dev Kulkarni",
    "password1": "seven kites over pune",
    "password2": "seven kites over pune",
}


def test_it_makes_the_account_in_the_class_and_logs_in(client, school):
    response = client.post(reverse("signup"), GOOD)
    assert response.status_code == 302
    assert response["Location"] == school.class_a.get_absolute_url()
    dev = get_user_model().objects.get(username="dev")
    assert dev.first_name == "Dev Kulkarni"
    assert Membership.objects.filter(classroom=school.class_a, student=dev).exists()
    assert client.get(school.class_a.get_absolute_url()).status_code == 200


def test_it_refuses_a_wrong_code_next_to_the_field(client, school):
    response = client.post(reverse("signup"), GOOD | {"code": "ZZZZ9999"})
    assert response.status_code == 422
    assert "No class has this code" in response.context["form"].errors["code"][0]
    assert not get_user_model().objects.filter(username="dev").exists()


def test_it_refuses_a_closed_class(client, school):
    school.class_a.signup_open = False
    school.class_a.save()
    response = client.post(reverse("signup"), GOOD)
    assert response.status_code == 422
    assert "not taking new students" in response.context["form"].errors["code"][0]
    assert not get_user_model().objects.filter(username="dev").exists()


def test_a_closed_class_refuses_joining_by_code_too(client, school):
    school.class_a.signup_open = False
    school.class_a.save()
    carol = get_user_model().objects.create(username="carol")
    client.force_login(carol)
    response = client.post(reverse("class-join"), {"code": "AAAA2222"})
    assert response.status_code == 422
    assert not Membership.objects.filter(student=carol).exists()


def test_it_refuses_a_taken_username_whatever_its_case(client, school):
    response = client.post(reverse("signup"), GOOD | {"username": "ALICE"})
    assert response.status_code == 422
    assert "username" in response.context["form"].errors


def test_it_applies_the_password_rules(client, school):
    response = client.post(
        reverse("signup"), GOOD | {"password1": "password", "password2": "password"}
    )
    assert response.status_code == 422
    assert "too common" in " ".join(response.context["form"].errors["password2"])


def test_the_teacher_closes_and_reopens_sign_up(client, school):
    client.force_login(school.teacher)
    url = reverse("class-signup", args=[school.class_a.pk])
    client.post(url, {"open": "0"})
    school.class_a.refresh_from_db()
    assert school.class_a.signup_open is False
    client.post(url, {"open": "1"})
    school.class_a.refresh_from_db()
    assert school.class_a.signup_open is True


def test_sign_up_is_throttled_per_address_and_per_code(client, school, settings):
    settings.SIGNUPS_PER_MINUTE = 3
    settings.SIGNUPS_PER_CODE_PER_MINUTE = 3

    def sign_up(n, address, code=school.class_a.join_code):
        return client.post(
            reverse("signup"),
            {
                "code": code,
                "username": f"kid{n}",
                "first_name": f"Kid {n}",
                "password1": "a-long-passphrase-42",
                "password2": "a-long-passphrase-42",
            },
            REMOTE_ADDR=address,
        )

    for n in range(3):
        assert sign_up(n, "10.1.1.1").status_code == 302
        client.logout()
    refused = sign_up(3, "10.1.1.1", code=school.class_b.join_code)  # same address
    assert refused.status_code == 429
    assert "Too many accounts were just made" in refused.content.decode()
    assert sign_up(4, "10.2.2.2").status_code == 429  # same code, another address
    assert sign_up(5, "10.2.2.2", code=school.class_b.join_code).status_code == 302
    assert not get_user_model().objects.filter(username__in=["kid3", "kid4"]).exists()


def test_a_wrong_code_never_says_whether_a_username_is_taken(client, school):
    """Without the class's code a stranger learns nothing about who has an account."""
    taken = client.post(reverse("signup"), GOOD | {"code": "ZZZZ9999", "username": "alice"})
    free = client.post(reverse("signup"), GOOD | {"code": "ZZZZ9999", "username": "nobody9"})
    assert taken.status_code == free.status_code == 422
    assert taken.context["form"].errors == free.context["form"].errors
    assert "username" not in taken.context["form"].errors


def test_with_the_right_code_a_taken_username_is_said(client, school):
    response = client.post(reverse("signup"), GOOD | {"username": "alice"})
    assert "already taken" in response.context["form"].errors["username"][0]
