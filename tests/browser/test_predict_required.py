"""An assignment that asks for a prediction holds Run until the guess is given: the ask
shows inside "Predict first", with no "Skip this time", and nothing runs (predict.js; the
server's own refusal, at the top of the form, is for a page without JavaScript:
tests/labs/runs/test_predictions_skipped.py); with the guess, the run goes. In both
languages, on a phone."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from tests.base import make_school
from tests.browser.conftest import PHONE
from tests.browser.pages import wait_finished

REASON = {
    "en": "This assignment asks for your guess first",
    "mr": "या असाइनमेंटमध्ये आधी तुमचा अंदाज हवा",
}


@pytest.mark.parametrize("language", ["en", "mr"])
def test_a_required_prediction_holds_run_with_the_reason_in_the_prompt(site, language):
    school = make_school()
    assignment = school.assignment_a
    assignment.require_prediction = True
    assignment.save()
    Profile.objects.update_or_create(user=school.alice, defaults={"language": language})
    page = site.page(school.alice, width=PHONE, height=844)
    page.goto(f"{site.url}{assignment.get_absolute_url()}")
    run = page.locator("button.run[id^=run-button]")
    run.click()
    ask = page.locator(".lab-panel .predict .predict-ask")
    expect(ask).to_be_visible()
    assert REASON[language] in ask.inner_text()
    expect(ask.locator("[data-predict-skip-button]")).to_have_count(0)
    expect(page.locator("#predict-drain-peak_backlog")).to_be_focused()
    assert not Run.objects.exists()

    page.fill("#predict-drain-peak_backlog", "500")
    page.locator("button.run[id^=run-button]").click()
    assert wait_finished(page, site) == "succeeded"
    assert Prediction.objects.get().value == 500
    assert not Run.objects.get().prediction_skipped
    assert not site.seen.errors, "\n".join(site.seen.errors)
