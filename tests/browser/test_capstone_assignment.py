"""The capstone assignment as a class does it, on a 390 px phone in English and in Marathi:
Run before/after on the assignment's own page (its locked trigger kept), write the analysis
on the report, come back and hand the pair in with the pickers as they start. And the live
lab's operator panel, on the page where Run was pressed, beside the live chart."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.base import make_user
from tests.browser.conftest import PHONE, SHOTS, WIDE, shot
from tests.browser.pages import (
    RUN_TIMEOUT_MS,
    open_lab,
    press_run,
    reveal,
    skip_if_asked,
    wait_finished,
)

LOCKED = {"trigger_start_s": 40, "trigger_end_s": 90, "spike_rps": 120}
SUGGESTED = {"horizon_s": 120, "recover_at_s": 100}
WORDS = {
    "en": {"pair": "Run before/after", "submitted": "Submitted."},
    "mr": {"pair": "आधी/नंतर चालवा", "submitted": None},
}
FITS_JS = "() => document.documentElement.scrollWidth"


def capstone_assignment(student):
    from teaching.models import Assignment, Classroom, Membership

    teacher = make_user(f"t-{student.username}", teacher=True)
    classroom = Classroom.objects.create(
        name="9 B", teacher=teacher, join_code=f"CAP{student.pk:05d}"
    )
    Membership.objects.create(classroom=classroom, student=student)
    return Assignment.objects.create(
        classroom=classroom,
        title="Free the trapped service",
        lab="trapped-service",
        handin="pair",
        presets=LOCKED | SUGGESTED,
        locked=list(LOCKED),
        criteria=[{"figure": "before.recovered", "op": "==", "value": False}],
        due_at=timezone.now() + timedelta(days=7),
    )


@pytest.mark.parametrize("language", ["en", "mr"])
def test_the_capstone_assignment_is_run_paired_and_handed_in_on_a_phone(site, language):
    from teaching.models import Submission

    student = make_user(f"asha-{language}")
    assignment = capstone_assignment(student)
    page = site.page(student, width=PHONE, height=800)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
    page.goto(f"{site.url}{assignment.get_absolute_url()}")
    for name, value in LOCKED.items():
        box = page.locator(f"#id_{name}")
        assert box.get_attribute("readonly") is not None and not box.is_disabled()
        assert box.input_value() == str(value)
    assert page.evaluate(FITS_JS) <= PHONE
    shot(page, f"capstone-assignment-{language}-{PHONE}")

    page.get_by_role("button", name=WORDS[language]["pair"]).click()
    skip_if_asked(page)  # no guess: the lab asks for one first (predict.js)
    page.locator("#report .outcome").wait_for(timeout=RUN_TIMEOUT_MS)
    assert page.evaluate(FITS_JS) <= PHONE
    page.locator("#id_loop").fill("Timed-out callers retry, so the queue never empties.")
    page.locator("#analysis-status").filter(has_text=re.compile(r"\d\d:\d\d:\d\d")).wait_for()
    shot(page, f"capstone-report-{language}-{PHONE}")
    page.locator(f'a[href="{assignment.get_absolute_url()}"]').first.click()

    page.wait_for_url(f"**{assignment.get_absolute_url()}")
    before = page.locator("#handin-before option:checked").inner_text()
    after = page.locator("#handin-after option:checked").inner_text()
    assert before != after and "seed" in before and "seed" in after
    assert page.evaluate(FITS_JS) <= PHONE
    shot(page, f"capstone-handin-{language}-{PHONE}")
    page.locator(".pair-handin button[type=submit]").click()
    page.wait_for_url(f"**{assignment.get_absolute_url()}#submission")
    submission = Submission.objects.get(assignment=assignment, student=student)
    assert submission.before_run.seed == submission.run.seed
    assert all(submission.run.params[k] == v for k, v in LOCKED.items())
    assert not submission.before_run.params["admission_limit"]
    if WORDS[language]["submitted"]:
        assert WORDS[language]["submitted"] in page.locator("main").inner_text()
    else:
        assert "Submitted" not in page.locator("main").inner_text()
    assert not site.seen.errors, "\n".join(site.seen.errors)


# About 25 s of wall time: long enough to switch a control and watch it act.
SHORT_LIVE = {"time_scale": "0.25", "horizon_s": "100", "trigger_start_s": "5",
              "trigger_end_s": "15", "recover_at_s": "100"}  # fmt: skip


# Both boxes read in one go: the live chart is drawn anew every 500 ms, so two separate
# reads can fall either side of a swap (and find no chart).
BOXES_JS = """() => [document.querySelector("section.live figure.chart"),
  document.getElementById("control-panel")].map((e) => {
  const r = e.getBoundingClientRect();
  return {x: r.x, y: r.y, width: r.width, height: r.height}; })"""


def chart_and_panel(page) -> tuple[dict, dict]:
    c, p = page.evaluate(BOXES_JS)
    return c, p


def shot_viewport(page, name: str) -> None:
    """What the student sees at once while the run goes on (a full page would take seconds)."""
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png")


def test_the_operator_panel_is_beside_the_live_chart_where_run_was_pressed(site):
    page = site.page(make_user("ravi"), width=WIDE, height=900)
    open_lab(page, site, "trapped-live")
    for name, value in SHORT_LIVE.items():
        reveal(page, f"#id_{name}")
        page.fill(f"#id_{name}", value)
    press_run(page)
    chart = page.locator("section.live figure.chart")
    chart.wait_for(timeout=RUN_TIMEOUT_MS)
    panel = page.locator("#control-panel")
    drop = panel.locator("form", has=page.locator("input[value=drop_expired]"))
    drop.get_by_role("button", name="Switch on").click()
    page.locator("#control-message", has_text="Sent").wait_for()
    assert panel.is_visible()
    c, p = chart_and_panel(page)
    assert p["x"] >= c["x"] + c["width"] - 1, (c, p)  # beside it
    assert p["y"] < c["y"] + c["height"] and c["y"] < p["y"] + p["height"], (c, p)
    assert " 10 s a run" not in page.locator(".lab-form").inner_text()
    assert page.locator(".run-body .status a", has_text="permalink").count() == 1
    page.locator(".switches div", has_text="Drop expired work").filter(
        has_text=re.compile("^Drop expired work\\s*on$")
    ).wait_for(timeout=30_000)
    shot_viewport(page, f"trapped-live-panel-{WIDE}")

    page.set_viewport_size({"width": PHONE, "height": 800})
    drawn_wide = chart.element_handle()  # the next reading draws the chart at the phone's width
    page.wait_for_function("(e) => !e.isConnected", arg=drawn_wide)
    c, p = chart_and_panel(page)
    assert 0 <= p["y"] - (c["y"] + c["height"]) < 100, (c, p)  # just below it
    assert page.evaluate(FITS_JS) <= PHONE
    chart.scroll_into_view_if_needed()
    shot_viewport(page, f"trapped-live-panel-{PHONE}")
    assert wait_finished(page, site) == "succeeded"
    assert panel.locator(".when-finished").is_visible()
    assert not panel.locator(".controls").is_visible()
    assert not site.seen.errors, "\n".join(site.seen.errors)
