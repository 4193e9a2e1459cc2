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


def test_five_wrong_passwords_lock_the_username_even_from_another_address(client, people):
    for _ in range(5):
        log_in(client, "alice", "wrong-guess")
    response = log_in(client, "alice", PASSWORD, address="10.9.9.9")
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert "15 minutes" in response.content.decode()
    assert "_auth_user_id" not in client.session
    # Another student at the same address is not held up by alice's failures.
    assert log_in(client, "bob", PASSWORD).status_code == 302


def test_many_failures_from_one_address_lock_it_for_every_username(client, people):
    for n in range(10):
        log_in(client, f"guess{n}", "wrong-guess")
    assert log_in(client, "bob", PASSWORD).status_code == 429
    assert log_in(client, "bob", PASSWORD, address="10.0.0.2").status_code == 302
