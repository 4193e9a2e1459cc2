"""The class results page in a real browser: the overlay with a student picked out, the
small multiples, a phone, Marathi, and the projector view taking in a new hand-in."""

from __future__ import annotations

import re

from teaching.models import Membership, Submission
from tests.base import DUE, finished_run, make_school, make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import wait_charts_drawn

STUDENTS = ["alice", "carl", "dina", "emil", "fara"]
DRAWN = "figure.chart.drawn .plot .main-svg"


def hand_in(assignment, student, **params):
    run = finished_run(student, **assignment.presets, **params)
    Submission.objects.create(assignment=assignment, student=student, run=run, submitted_at=DUE)


def wide_enough(page, width: int) -> None:
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"the page is {scroll} px wide on a {width} px screen"


def test_the_teacher_sees_the_class_and_the_projector_takes_in_a_new_hand_in(site):
    school = make_school()
    assignment = school.assignment_a
    students = [school.alice] + [make_user(n) for n in STUDENTS[1:]]
    for n, student in enumerate(students):
        if n:
            Membership.objects.create(
                classroom=school.class_a, student=student, section="AB"[n % 2]
            )
        hand_in(assignment, student, per_waiting=50 if n == 4 else 100)
    late = make_user("gita")
    Membership.objects.create(classroom=school.class_a, student=late, section="B")
    url = f"{site.url}/assignments/{assignment.pk}/results/"

    page = site.page(school.teacher, width=WIDE)
    page.goto(url)
    wait_charts_drawn(page)
    page.locator(DRAWN).nth(3).wait_for()
    page.select_option("#pick-student", "fara")
    widths = page.evaluate(
        "document.getElementById('overlay-plot').data"
        ".filter(t => t.showlegend === false).map(t => [t.name, t.line.width])"
    )
    assert dict(widths)["fara"] > 3 and dict(widths)["alice"] == 1, widths
    assert "fara" in page.locator("#apart").inner_text()
    wide_enough(page, WIDE)
    shot(page, "class-results-1280")

    page.get_by_role("link", name="One small chart each").click()
    page.locator("ul.smalls li").nth(4).wait_for()
    assert page.locator("ul.smalls polyline").count() == 5
    page.set_viewport_size({"width": PHONE, "height": 800})
    page.goto(url)
    wait_charts_drawn(page)
    page.locator(DRAWN).nth(3).wait_for()
    wide_enough(page, PHONE)
    shot(page, f"class-results-{PHONE}")

    marathi = site.page(school.teacher, width=PHONE)
    marathi.context.add_cookies([{"name": "django_language", "value": "mr", "url": site.url}])
    marathi.goto(url)
    marathi.get_by_role("heading", name="वर्गाचे निकाल", exact=False).first.wait_for()
    wait_charts_drawn(marathi)
    marathi.locator(DRAWN).nth(3).wait_for()
    wide_enough(marathi, PHONE)
    shot(marathi, f"class-results-mr-{PHONE}")

    projector = site.page(school.teacher, width=WIDE)
    projector.goto(f"{site.url}/assignments/{assignment.pk}/results/projector/")
    counts = projector.locator("#class-results .counts")
    assert "5" in counts.inner_text() and "Student 1" in projector.content()
    assert "fara" not in projector.locator("#class-results").inner_text()  # names hidden
    hand_in(assignment, late)  # a sixth hand-in while the room watches
    # The poll looks every 3 s at least (the projector's floor): within 15 s it has.
    projector.locator("#class-results .counts strong", has_text=re.compile("^6$")).wait_for(
        timeout=15_000
    )
    wait_charts_drawn(projector)
    projector.locator(DRAWN).nth(3).wait_for()
    shot(projector, "class-results-projector-1280")
    assert not site.seen.errors, "\n".join(site.seen.errors)
