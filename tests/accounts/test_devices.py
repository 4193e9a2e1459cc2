"""No one can lock a class out: a known device's right password always logs in, a teacher
lifts a pause in one click, and neither sign-up nor login says whether a username exists."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.base import PASSWORD


@pytest.fixture(autouse=True)
def limits(settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 5
    settings.LOGIN_FAILURES_PER_ADDRESS = 10
    settings.AXES_FAILURE_LIMIT = 5


SCHOOL = "10.0.0.1"


def log_out(client):
    """Log out as a browser does: Django's test client also forgets every cookie."""
    kept = client.cookies.get("known_device")
    client.logout()
    if kept is not None:
        client.cookies["known_device"] = kept.value


def log_in(client, username, password, address=SCHOOL):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_a_classmates_guesses_never_block_the_right_password_on_a_known_device(client, school):
    """The attack's D2: five wrong passwords for each classmate from the school's address."""
    assert log_in(client, "alice", PASSWORD).status_code == 302  # alice's phone, last week
    log_out(client)
    script = Client()  # a classmate's script: no cookie of alice's
    for _ in range(5):
        log_in(script, "alice", "wrong-guess")
    assert log_in(script, "alice", PASSWORD).status_code == 429  # the script is paused
    # alice's phone (its known-device cookie) still logs her in, from the same address.
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_a_known_device_of_another_user_does_not_help(client, school):
    assert log_in(client, "bob", PASSWORD, address="10.0.0.9").status_code == 302
    log_out(client)
    for _ in range(5):
        log_in(client, "alice", "wrong-guess")
    assert log_in(client, "alice", PASSWORD).status_code == 429


def test_a_known_device_is_itself_paused_after_its_own_failures(client, school):
    """The cookie is no licence to guess: its own wrong passwords pause it like any device."""
    assert log_in(client, "alice", PASSWORD).status_code == 302
    log_out(client)
    for _ in range(5):
        log_in(client, "alice", "wrong-guess", address="10.0.0.7")
    assert log_in(client, "alice", PASSWORD, address="10.0.0.7").status_code == 429


def test_the_cookie_is_signed_and_http_only(client, school):
    response = log_in(client, "alice", PASSWORD)
    cookie = response.cookies["known_device"]
    assert cookie["httponly"]
    assert "alice" not in cookie.value
    log_out(client)
    client.cookies["known_device"] = cookie.value[:-3] + "xyz"  # tampered
    for _ in range(5):
        log_in(client, "alice", "wrong-guess", address="10.0.0.8")
    assert log_in(Client(), "alice", PASSWORD, address="10.0.0.8").status_code == 429


def test_a_teacher_lifts_the_class_pauses_in_one_click(client, school):
    for _ in range(5):
        log_in(client, "alice", "wrong-guess")
    assert log_in(client, "alice", PASSWORD).status_code == 429
    client.force_login(school.teacher)
    page = client.get(reverse("class-accounts", args=[school.class_a.pk]))
    assert "paused" in page.content.decode()
    response = client.post(reverse("class-unpause", args=[school.class_a.pk]))
    assert response.status_code == 302
    log_out(client)
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_a_teacher_of_another_class_cannot_lift_it(client, school):
    client.force_login(school.teacher)
    other = school.class_b.pk
    assert client.post(reverse("class-unpause", args=[other])).status_code in (403, 404)


def test_an_unknown_username_is_paused_the_same_as_a_real_one(client, school):
    for name in ("alice", "nobody-here"):
        for _ in range(5):
            log_in(client, name, "wrong-guess", address="10.0.0.5")
    real = log_in(client, "alice", "wrong-guess", address="10.0.0.5")
    made_up = log_in(client, "nobody-here", "wrong-guess", address="10.0.0.5")
    assert real.status_code == made_up.status_code == 429
