"""Registration: the manual way (an admin's records) is what every other test here uses;
the dynamic registration page refuses, with a reason, a visit that did not come from an
LMS's registration flow; the setup page lists the addresses for an admin only."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from lti_tool.models import LtiRegistration


def test_dynamic_registration_without_the_lms_flow_is_a_400(client, db):
    response = client.get("/lti/register/")
    assert response.status_code == 400
    assert 'data-reason="registration"' in response.content.decode()
    assert client.post("/lti/register/").status_code == 400
    assert not LtiRegistration.objects.exists()


@pytest.mark.parametrize("staff", [True, False])
def test_the_setup_page_is_for_admins(client, db, staff):
    user = get_user_model().objects.create(username="admin1", is_staff=staff)
    client.force_login(user)
    response = client.get("/lti/")
    if staff:
        page = response.content.decode()
        assert response.status_code == 200
        for path in ("/lti/register/", "/lti/login/", "/lti/launch/", "/lti/jwks/"):
            assert f"http://testserver{path}" in page
    else:
        assert response.status_code == 404


def test_a_login_without_what_lti_needs_is_a_400(client, db):
    response = client.get("/lti/login/", {"iss": "https://lms.example.org"})
    assert response.status_code == 400 and 'data-reason="login"' in response.content.decode()


def test_a_login_from_an_unregistered_lms_is_refused_not_a_500(client, db):
    params = {
        "iss": "https://unknown-lms.example.org",
        "login_hint": "someone",
        "target_link_uri": "http://testserver/lti/launch/",
        "client_id": "nobody",
    }
    response = client.get("/lti/login/", params)
    assert response.status_code in (400, 403)
    assert 'data-reason="audience"' in response.content.decode()
