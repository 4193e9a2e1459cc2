from __future__ import annotations

import json

import pytest

from tests.lti.platform import INSTRUCTOR, LEARNER, Person, Platform


@pytest.fixture
def platform(db, client):
    """A real LTI 1.3 platform (lti1p3platform) registered with the site, as an admin
    would by hand: its issuer, our client id, its URLs, an active deployment."""
    lms = Platform("http://testserver")
    lms.register_in_tool()
    lms.trust_tool_keys(json.loads(client.get("/lti/jwks/").content))
    yield lms
    lms.close()


TEACHER = Person("lms-teacher-1", "Sunita Kulkarni", [INSTRUCTOR], "Sunita", "Kulkarni")
LEARNER_1 = Person("lms-learner-1", "भक्ती चव्हाण", [LEARNER], "भक्ती", "चव्हाण")
LEARNER_2 = Person("lms-learner-2", "Harshada Joshi", [LEARNER], "Harshada", "Joshi")
