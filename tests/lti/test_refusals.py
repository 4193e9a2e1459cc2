"""A bad launch gets a 4xx page saying what is wrong: expired, replayed, forged, meant for
another tool, from an unknown deployment; nobody is signed in."""

from __future__ import annotations

import jwt
import pytest
from jwcrypto.jwk import JWK
from lti_tool.models import LtiDeployment

from tests.lti.conftest import LEARNER_1, TEACHER

pytestmark = [pytest.mark.redis]


def nobody_signed_in(client) -> bool:
    return not client.get("/classes/").wsgi_request.user.is_authenticated


def reason(response) -> str:
    text = response.content.decode()
    return text.split('data-reason="', 1)[1].split('"', 1)[0]


def test_a_replayed_launch_is_refused(client, platform):
    form = platform.launch_form(client, TEACHER)
    assert platform.post_launch(client, form).status_code == 302
    client.logout()
    again = platform.post_launch(client, form)  # the same signed form, posted twice
    assert again.status_code == 403 and reason(again) == "replayed"
    assert "already used" in again.content.decode()
    assert nobody_signed_in(client)


def test_an_expired_launch_is_refused(client, platform):
    form = platform.launch_form(client, TEACHER, expiration=-30)  # expired 30 s ago
    response = platform.post_launch(client, form)
    assert response.status_code == 403 and reason(response) == "expired"
    assert nobody_signed_in(client)


def test_a_forged_launch_is_refused(client, platform):
    """Signed by a key that is not the platform's, under the platform's key id."""
    form = platform.launch_form(client, LEARNER_1)
    body = jwt.decode(form["id_token"], options={"verify_signature": False})
    header = jwt.get_unverified_header(form["id_token"])
    body["https://purl.imsglobal.org/spec/lti/claim/roles"] = [
        "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
    ]
    other = JWK.generate(kty="RSA", size=2048).export_to_pem(private_key=True, password=None)
    form["id_token"] = jwt.encode(body, other, algorithm="RS256", headers={"kid": header["kid"]})
    response = platform.post_launch(client, form)
    assert response.status_code == 403 and reason(response) == "signature"
    assert nobody_signed_in(client)


def test_a_launch_for_another_tool_is_refused(client, platform):
    """The platform signs it for a client id that is not ours (the wrong audience)."""
    form = platform.launch_form(client, TEACHER)
    body = jwt.decode(form["id_token"], options={"verify_signature": False})
    body["aud"] = body["azp"] = "someone-else"
    form["id_token"] = platform.registration.platform_encode_and_sign(body, expiration=300)
    response = platform.post_launch(client, form)
    assert response.status_code == 403 and reason(response) == "audience"
    assert nobody_signed_in(client)


def test_a_launch_from_an_unknown_deployment_is_refused(client, platform):
    platform.registration.set_deployment_id("deployment-nobody-allowed")
    response = platform.launch(client, TEACHER)
    assert response.status_code == 403 and reason(response) == "deployment"
    assert not LtiDeployment.objects.get(deployment_id="deployment-nobody-allowed").is_active
    assert nobody_signed_in(client)


def test_the_refusal_reads_in_marathi(client, platform):
    form = platform.launch_form(client, TEACHER, expiration=-30)
    client.cookies["django_language"] = "mr"
    response = platform.post_launch(client, form)
    assert response.status_code == 403
    assert "The launch has expired." not in response.content.decode()


@pytest.mark.parametrize(
    "posted", [{}, {"state": "s"}, {"id_token": "not.a.jwt", "state": "s"}, {"id_token": "x"}]
)
def test_a_launch_that_is_not_one_is_a_4xx_page(client, platform, posted):
    response = client.post("/lti/launch/", posted)
    assert 400 <= response.status_code < 500 and 'data-reason="' in response.content.decode()
