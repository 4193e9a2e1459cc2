"""Passwords: the rules, one-time passwords that must be changed, and the hasher in use."""

from __future__ import annotations

import importlib

import pytest
from django.contrib.auth.hashers import check_password, identify_hasher, make_password
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Profile
from accounts.passwords import set_one_time_password
from tests.base import PASSWORD


def change(client, old, new):
    return client.post(
        reverse("password_change"),
        {"old_password": old, "new_password1": new, "new_password2": new},
    )


@pytest.mark.parametrize(
    ("new", "rule"),
    [
        ("password", "too common"),
        ("83920174650", "entirely numeric"),
        ("k2#pq", "too short"),
        ("alice123", "too similar to the username"),
    ],
)
def test_it_refuses_a_password_that_breaks_a_rule(client, people, new, rule):
    client.force_login(people.alice)
    response = change(client, PASSWORD, new)
    assert response.status_code == 422
    assert rule in " ".join(response.context["form"].errors["new_password2"])
    people.alice.refresh_from_db()
    assert people.alice.check_password(PASSWORD)


def test_a_one_time_password_must_be_changed_before_anything_else(client, people):
    one_time = set_one_time_password(people.alice)
    logged_in = client.post(reverse("login"), {"username": "alice", "password": one_time})
    assert logged_in.status_code == 302
    for page in (reverse("home"), reverse("class-list"), reverse("my-runs")):
        response = client.get(page)
        assert response.status_code == 302
        assert response["Location"] == reverse("password_change")
    assert client.get(reverse("password_change")).context["first_time"] is True
    assert client.get(reverse("healthz")).status_code == 200
    switched = client.post(
        reverse("set-language"), {"language": "mr", "next": reverse("password_change")}
    )
    assert switched["Location"] == reverse("password_change")
    assert "बदला" in client.get(reverse("password_change")).content.decode()

    response = change(client, one_time, "monsoon lanterns 42")
    assert response.status_code == 302
    assert not Profile.objects.get(user=people.alice).must_change_password
    assert client.get(reverse("class-list")).status_code == 200  # still logged in


def test_a_reset_ends_the_students_open_sessions(client, people):
    client.force_login(people.alice)
    assert client.get(reverse("my-runs")).status_code == 200
    set_one_time_password(people.alice)
    response = client.get(reverse("my-runs"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_change_is_asked_once_per_password_not_on_every_request(client, people):
    client.force_login(people.alice)
    assert client.get(reverse("my-runs")).status_code == 200
    with CaptureQueriesContext(connection) as queries:
        assert client.get(reverse("my-runs")).status_code == 200
    assert not [q for q in queries.captured_queries if "accounts_profile" in q["sql"]]
    # A one-time password given in the same session's browser: asked again, and sent there.
    one_time = set_one_time_password(people.alice)
    client.post(reverse("login"), {"username": "alice", "password": one_time})
    response = client.get(reverse("my-runs"))
    assert response.status_code == 302 and response["Location"] == reverse("password_change")


def test_the_production_hasher_is_argon2id_tuned_for_a_class():
    # The module's own value, not whatever a test may have overridden.
    production = importlib.import_module("school.settings").PASSWORD_HASHERS
    assert production[0] == "accounts.hashers.ClassroomArgon2PasswordHasher"
    encoded = make_password("monsoon lanterns 42", hasher="argon2")
    assert encoded.startswith("argon2$argon2id$v=19$m=19456,t=2,p=1$")
    assert identify_hasher(encoded).algorithm == "argon2"
    assert check_password("monsoon lanterns 42", encoded)


def test_an_old_pbkdf2_hash_still_logs_in_and_is_upgraded(client, people):
    people.alice.password = make_password(PASSWORD, hasher="pbkdf2_sha256")
    people.alice.save()
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    people.alice.refresh_from_db()
    assert people.alice.password.startswith("argon2$")


def test_there_is_no_e_mail_password_reset_and_sessions_are_short(client, settings):
    assert client.get("/accounts/password_reset/").status_code == 404
    assert settings.SESSION_COOKIE_AGE <= 8 * 3600 and settings.SESSION_EXPIRE_AT_BROWSER_CLOSE
