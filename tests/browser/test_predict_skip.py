"""The first Run or drag of a lab asks for the guess: with none given, Run runs nothing and
the ask shows beside "Predict first" with the focus on the question (English and Marathi, on
a phone); "Skip this time" then runs, and the run is kept as skipped; later Runs go ahead.
On a wide screen a first slider move posts no draft until a guess is given, then it does."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE
from tests.browser.pages import open_lab, wait_finished

ASK = {
    "en": ("First, your guess", "Skip this time"),
    "mr": ("आधी तुमचा अंदाज", "या वेळी वगळा"),
}
RUN = "button.run[id^=run-button]"
BOX = "#predict-drain-peak_backlog"


def drafts_posted(page) -> list[str]:
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.url.endswith("/draft/") else None)
    return posted


@pytest.mark.parametrize("language", ["en", "mr"])
def test_run_with_no_guess_asks_and_skip_runs_and_is_kept(site, language):
    student = make_user("meera")
    Profile.objects.update_or_create(user=student, defaults={"language": language})
    page = site.page(student, width=PHONE, height=844)
    open_lab(page, site, "drain")
    page.locator(RUN).click()
    ask = page.locator(".lab-panel .predict-ask")
    expect(ask).to_be_visible()
    words, skip = ASK[language]
    assert words in ask.inner_text()
    expect(page.locator(BOX)).to_be_focused()
    assert not Run.objects.exists()  # nothing ran

    ask.get_by_role("button", name=skip).click()
    assert wait_finished(page, site) == "succeeded"
    run = Run.objects.get(draft=False)
    assert run.prediction_skipped and not Prediction.objects.exists()

    # Asked once a visit: the next Run goes at once, and says the skip too.
    page.locator(RUN).click()
    page.wait_for_function(
        "(id) => { const b = document.querySelector('.results .run-body');"
        " return b && !b.id.includes(id); }",
        arg=str(run.pk),
    )
    assert wait_finished(page, site) == "succeeded"
    assert Run.objects.filter(draft=False, prediction_skipped=True).count() == 2
    assert site.seen.errors == [], "\n".join(site.seen.errors)


def test_a_first_drag_asks_and_a_guess_lets_the_draft_go(site):
    page = site.page(make_user("asha"), width=WIDE)
    posted = drafts_posted(page)
    open_lab(page, site, "drain")
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")  # 100 → 110 jobs/s
    ask = page.locator(".lab-panel .predict-ask")
    expect(ask).to_be_visible()
    expect(page.locator(BOX)).to_be_focused()
    # drafts.js posts a first change at once: the ask held it (it shows only when held).
    assert posted == [] and not Run.objects.exists()

    page.locator(BOX).fill("900")
    page.locator(BOX).press("Tab")  # the guess is given (its change): the held draft goes
    page.wait_for_function(
        "() => { const b = document.querySelector('.results .run-body');"
        " return b && b.matches('.status-succeeded.draft'); }",
        timeout=180_000,
    )
    expect(ask).to_be_hidden()
    assert len(posted) == 1
    assert Run.objects.filter(draft=True).count() == 1
    assert not Prediction.objects.exists()  # a guess goes with Run, never with a draft
    assert site.seen.errors == [], "\n".join(site.seen.errors)
