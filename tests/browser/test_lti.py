"""The LMS link in a real browser, with a real LTI 1.3 platform (lti1p3platform) on its own
server: a teacher picks a lab inside the course (deep linking) and the platform receives
it; a learner's launch of that link opens the lab. English and Marathi, screenshots."""

from __future__ import annotations

import pytest

from lti.models import ClassLink
from teaching.models import Assignment
from tests.base import DRAIN_CRITERIA, DUE
from tests.browser.conftest import WIDE, shot
from tests.lti.conftest import LEARNER_1, TEACHER
from tests.lti.platform import Platform


@pytest.fixture
def lms(site):
    platform = Platform(site.url, host="localhost")  # same site as the tool: its cookies go
    platform.register_in_tool()
    yield platform
    platform.close()


@pytest.mark.parametrize("language", ["en", "mr"])
def test_a_deep_link_pick_and_a_launch_in_the_browser(site, lms, language):
    teacher = site.page(None, width=WIDE)
    teacher.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
    lms.next_launch = {"person": TEACHER}  # the first instructor launch makes the class
    teacher.goto(lms.start_url(TEACHER))
    teacher.wait_for_url("**/classes/*/")
    shot(teacher, f"lti-launch-teacher-{language}")
    Assignment.objects.create(
        classroom=ClassLink.objects.get().classroom, title="Drain the burst", lab="drain",
        criteria=DRAIN_CRITERIA, due_at=DUE,
    )  # fmt: skip
    lms.next_launch = {"person": TEACHER, "deep_link": True}
    teacher.goto(lms.start_url(TEACHER, "picker"))
    teacher.locator("#lti-pick").wait_for()
    shot(teacher, f"lti-deep-link-pick-{language}")
    teacher.check("input[value='lab:drain']")
    teacher.locator("#lti-pick button[type=submit]").click()
    teacher.wait_for_url(lms.url("/deep-link-return"))
    assert "The LMS received" in teacher.content()
    (item,) = lms.deep_links[-1]
    assert item["custom"] == {"lab": "drain"}

    learner = site.page(None, width=WIDE)
    learner.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
    lms.next_launch = {"person": LEARNER_1, "custom": item["custom"], "resource_link": "lab-1"}
    learner.goto(lms.start_url(LEARNER_1, "lab-1"))
    learner.wait_for_url("**/labs/drain/**")
    assert "bhakti.chavhan" in learner.locator("header").inner_text()
    shot(learner, f"lti-launch-learner-{language}")
