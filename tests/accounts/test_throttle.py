"""Failed logins are throttled per username and per address (django-axes), with a message."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.base import PASSWORD


@pytest.fixture(autouse=True)
def limits(settings):
    settings.LOGIN_FAILURES_PER_USERNAME = 5
    settings.LOGIN_FAILURES_PER_ADDRESS = 10
    settings.AXES_FAILURE_LIMIT = 5


def log_in(client, username, password, address="10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address
    )


def test_four_wrong_passwords_then_the_right_one_logs_in(client, people):
    for _ in range(4):
        assert log_in(client, "alice", "wrong-guess").status_code == 200
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_five_wrong_passwords_pause_the_username_at_that_address_only(client, people):
    """Not a lockout: the guesser's address is paused for alice, alice elsewhere is not."""
    for _ in range(5):
        log_in(client, "alice", "wrong-guess")
    response = log_in(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "15 minutes" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # Another student at the same address is not held up by alice's failures.
    assert log_in(client, "bob", PASSWORD).status_code == 302
    client.logout()
    assert log_in(client, "alice", PASSWORD, address="10.9.9.9").status_code == 302


def test_failures_from_many_addresses_pause_unknown_devices(client, people, settings):
    settings.LOGIN_FAILURES_PER_USERNAME_ANYWHERE = 8
    for n in range(8):
        log_in(client, "alice", "wrong-guess", address=f"10.1.0.{n}")
    assert log_in(client, "alice", PASSWORD, address="10.9.9.9").status_code == 429


def test_many_failures_from_one_address_lock_it_for_every_username(client, people):
    for n in range(10):
        log_in(client, f"guess{n}", "wrong-guess")
    assert log_in(client, "bob", "another-guess").status_code == 429
    assert log_in(client, "nobody", PASSWORD).status_code == 429
    assert log_in(client, "bob", PASSWORD, address="10.0.0.2").status_code == 302


def test_an_address_lock_spares_the_right_password_of_a_known_account(client, people):
    """Fifty random guesses behind the school's address must not keep the class out."""
    for n in range(10):
        log_in(client, f"guess{n}", "wrong-guess")
    assert log_in(client, "bob", "wrong-guess").status_code == 429
    assert log_in(client, "bob", PASSWORD).status_code == 302
    client.logout()
    assert log_in(client, "alice", PASSWORD).status_code == 302


def test_a_new_slip_lifts_the_students_own_lock(client, school):
    for _ in range(5):
        log_in(client, "alice", "wrong-guess")
    client.force_login(school.teacher)
    slip_page = client.post(
        reverse("student-password-reset", args=[school.class_a.pk, school.alice.pk])
    )
    (slip,) = slip_page.context["slips"]
    client.logout()
    assert log_in(client, "alice", slip.password).status_code == 302
