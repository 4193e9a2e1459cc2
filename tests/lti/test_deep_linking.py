"""Deep linking against a real platform: a teacher picks an assignment (or a lab) inside
the course; the LMS gets a signed link it checks against the site's JWKS; a learner who
opens that link lands on the assignment."""

from __future__ import annotations

import re

import pytest

from lti.models import AssignmentLink, ClassLink
from teaching.models import Assignment
from tests.base import DRAIN_CRITERIA, DUE
from tests.lti.conftest import LEARNER_1, TEACHER
from tests.lti.platform import form_fields

pytestmark = [pytest.mark.redis]
RUBRIC = [{"item": "Explains the backlog", "max": 5}, {"item": "Names the fix", "max": 3}]


def course_with_assignment(client, platform) -> Assignment:
    platform.launch(client, TEACHER)
    classroom = ClassLink.objects.get().classroom
    client.logout()
    return Assignment.objects.create(
        classroom=classroom, title="Drain the burst", lab="drain", criteria=DRAIN_CRITERIA,
        rubric=RUBRIC, due_at=DUE,
    )  # fmt: skip


def pick(client, platform, choice: str) -> tuple[dict, list[dict]]:
    page = platform.launch(client, TEACHER, deep_link=True)
    assert page.status_code == 200, page.content.decode()[:600]
    html = page.content.decode()
    launch_id = re.search(r'name="launch_id" value="([^"]+)"', html).group(1)
    answer = client.post("/lti/deep-link/", {"launch_id": launch_id, "pick": choice})
    assert answer.status_code == 200, answer.content.decode()[:600]
    fields = form_fields(answer.content.decode())
    form = re.search(r'action="([^"]+)" id="lti-deep-link-return"', answer.content.decode())
    action = form.group(1) if form else None
    assert action == platform.url("/deep-link-return")
    return fields, platform.receive_deep_link(fields["JWT"])


def test_a_teacher_picks_an_assignment_and_the_lms_gets_a_graded_link(client, platform):
    assignment = course_with_assignment(client, platform)
    _fields, items = pick(client, platform, f"assignment:{assignment.pk}")
    (item,) = items
    assert item["type"] == "ltiResourceLink" and item["title"] == "Drain the burst"
    assert item["url"] == "http://testserver/lti/launch/"
    assert item["custom"] == {"assignment": str(assignment.pk)}
    assert item["lineItem"]["scoreMaximum"] == 8  # the rubric's most
    # A learner opens the link the LMS now holds: the assignment's page, in the class.
    client.logout()
    response = platform.launch(
        client, LEARNER_1, resource_link="link-dl-1", custom=item["custom"], lineitem="li-1"
    )
    assert response.status_code == 302 and response["Location"] == assignment.get_absolute_url()
    link = AssignmentLink.objects.get()
    assert link.assignment == assignment and link.lineitem_url == platform.url("/lineitems/li-1")


def test_a_teacher_picks_a_lab(client, platform):
    course_with_assignment(client, platform)
    _fields, (item,) = pick(client, platform, "lab:drain")
    assert item["custom"] == {"lab": "drain"} and "lineItem" not in item


def test_the_pick_page_lists_the_classs_assignments_and_the_labs(client, platform):
    assignment = course_with_assignment(client, platform)
    html = platform.launch(client, TEACHER, deep_link=True).content.decode()
    assert f'value="assignment:{assignment.pk}"' in html and 'value="lab:drain"' in html


def test_a_learner_cannot_open_the_pick(client, platform):
    course_with_assignment(client, platform)
    response = platform.launch(client, LEARNER_1, deep_link=True)
    assert response.status_code == 403


def test_a_pick_of_nothing_known_is_a_400(client, platform):
    course_with_assignment(client, platform)
    html = platform.launch(client, TEACHER, deep_link=True).content.decode()
    launch_id = re.search(r'name="launch_id" value="([^"]+)"', html).group(1)
    answer = client.post("/lti/deep-link/", {"launch_id": launch_id, "pick": "lab:nope"})
    assert answer.status_code == 400
    assert (
        client.post("/lti/deep-link/", {"launch_id": "made-up", "pick": "lab:drain"}).status_code
        == 400
    )
