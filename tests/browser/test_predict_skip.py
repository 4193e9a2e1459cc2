"""The first Run or drag of a lab asks for the guess: with none given, Run runs nothing and
the ask shows beside "Predict first" with the focus on the question (English and Marathi, on
a phone); "Skip this time" then runs, and the run is kept as skipped; later Runs go ahead.
On a wide screen a first slider move posts no draft until a guess is given, then it does,
and that guess counts as made before results when Run carries it (issue 34); one typed
after a draft's chart counts as after a result."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from labs.runs.early_guesses import EarlyGuess
from labs.runs.models import Run
from labs.runs.predictions import Prediction, SeenResult, params_key
from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE, shot
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

    # The guess came before the draft's chart: its draft's post kept it, with its moment
    # (labs.runs.early_guesses), before that chart was shown.
    early = EarlyGuess.objects.get()
    assert early.guesses == {"peak_backlog": 900}
    draft = Run.objects.get(draft=True)
    assert (
        early.given_at < SeenResult.objects.get(params_key=params_key(draft.params)).first_shown_at
    )

    # The slider moves on (another chart), then Run: the guess counts as made before results.
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")  # 110 → 120 jobs/s
    page.wait_for_function(
        "(id) => { const b = document.querySelector('.results .run-body');"
        " return b && b.matches('.status-succeeded.draft') && !b.id.includes(id); }",
        arg=str(draft.pk),
        timeout=180_000,
    )
    page.locator(RUN).click()
    page.locator(".results .run-body:not(.draft) .predicted").wait_for(timeout=180_000)
    run = Run.objects.get(draft=False)
    assert run.params["per_worker"] == 120
    # Its values' chart was on the screen before Run (the second draft's).
    seen = SeenResult.objects.get(params_key=params_key(run.params)).first_shown_at
    assert early.given_at < seen < run.created_at
    guess = Prediction.objects.get(run=run)
    assert guess.value == 900 and not guess.after_result
    said = page.locator(".predicted").inner_text()
    assert "You expected 900" in said and "after seeing a result" not in said
    shot(page, "predict-drag-ask-before-1280")
    assert site.seen.errors == [], "\n".join(site.seen.errors)


def test_a_guess_typed_after_a_drafts_chart_counts_as_after_a_result(site):
    page = site.page(make_user("ravi"), width=WIDE)
    open_lab(page, site, "drain")
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")
    page.locator(".lab-panel .predict-ask").get_by_role("button", name="Skip this time").click()
    page.wait_for_function(
        "() => { const b = document.querySelector('.results .run-body');"
        " return b && b.matches('.status-succeeded.draft'); }",
        timeout=180_000,
    )
    # The chart is on the screen; now the student types the figure it shows, and runs.
    peak = Run.objects.get(draft=True).result["summary"]["peak_backlog"]
    page.locator(BOX).fill(str(peak))
    page.locator(BOX).press("Tab")
    assert page.locator("[data-predict-early]").input_value() == ""  # no early id now
    page.locator(RUN).click()
    page.locator(".results .run-body:not(.draft) .predicted").wait_for(timeout=180_000)
    guess = Prediction.objects.get(run=Run.objects.get(draft=False))
    assert guess.value == peak and guess.after_result
    assert not EarlyGuess.objects.exists()
    assert "after seeing a result" in page.locator(".predicted").inner_text()
    shot(page, "predict-typed-after-chart-1280")
    assert site.seen.errors == [], "\n".join(site.seen.errors)
