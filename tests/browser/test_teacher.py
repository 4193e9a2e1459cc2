"""A teacher's visit: a class, a student in it, an assignment with a criterion, the student's
submission, the gradebook and its CSV."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from django.utils import timezone

from tests.base import make_user
from tests.browser.conftest import PHONE, shot
from tests.browser.pages import press_run, wait_finished
from tests.browser.test_student import download, log_in


def test_a_teacher_sets_an_assignment_and_grades_it(site):
    make_user("tara", teacher=True)
    asha = make_user("asha")
    page = site.page()
    log_in(page, site, "tara", "/classes/")

    page.fill("#id_name", "Class 9 B")
    page.get_by_role("button", name="Create the class").click()
    page.get_by_role("heading", name="Class 9 B").wait_for()
    page.fill("#id_username", "asha")
    page.get_by_role("button", name="Invite to the class").click()
    page.get_by_text("Invited, not yet accepted: asha").wait_for()
    class_url = page.url
    student = site.page(asha)
    student.goto(site.url + "/")
    student.get_by_role("button", name="Accept").click()
    student.get_by_role("heading", name="Class 9 B").wait_for()
    page.reload()
    page.locator("td", has_text="asha").first.wait_for()

    page.get_by_role("link", name="Set a new assignment").click()
    page.get_by_role("link", name="Drain a burst").click()
    page.fill("#id_title", "Drain the burst in time")
    due = timezone.localtime(timezone.now() + timedelta(days=7))
    page.fill("#id_due_at", due.strftime("%Y-%m-%dT%H:%M"))
    page.select_option("#id_mode__per_worker", value="locked")
    page.fill("#id_criteria_text", "peak_backlog < 1000\nleft_at_end == 0")
    page.get_by_role("button", name="Set the assignment").click()
    page.get_by_role("heading", name="Drain the burst in time").wait_for()
    assignment_url = page.url

    student.goto(assignment_url)
    # A locked value is shown read-only and still posted (a disabled field would not be).
    locked = student.locator("#id_per_worker")
    assert locked.get_attribute("readonly") is not None and not locked.is_disabled()
    press_run(student)
    assert wait_finished(student, site) == "succeeded"
    student.get_by_role("button", name="Submit this run").click()
    student.locator("#your-runs strong", has_text="submitted").wait_for()

    page.goto(class_url)
    page.get_by_role("link", name="Gradebook").first.click()
    cell = page.locator("td.cell").first
    assert "2 of 2 criteria" in cell.locator(".badge.criteria.succeeded").inner_text()
    shot(page, "gradebook-1280")
    page.set_viewport_size({"width": PHONE, "height": 800})
    shot(page, f"gradebook-{PHONE}")

    name, body = download(page, "Download as CSV")
    assert name.endswith(".csv")
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert [r["username"] for r in rows] == ["asha"], rows
    assert rows[0]["Drain the burst in time: criteria passed"] == "2"
    assert rows[0]["Drain the burst in time: criteria"] == "2"
    assert not site.seen.errors, "\n".join(site.seen.errors)
