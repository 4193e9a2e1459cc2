"""An assignment that asks for a prediction refuses Run until the guess is given, and says
why at the top of the form, just above "Predict first" (not at hand-in, pages further down);
with the guess, the run goes. In both languages, on a phone."""

from __future__ import annotations

import pytest

from accounts.models import Profile
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from tests.base import make_school
from tests.browser.conftest import PHONE
from tests.browser.pages import wait_finished

REASON = {
    "en": "This assignment asks for a prediction first",
    "mr": "या असाइनमेंटमध्ये आधी अंदाज हवा",
}


@pytest.mark.parametrize("language", ["en", "mr"])
def test_a_required_prediction_blocks_run_with_the_reason_beside_the_prompt(site, language):
    school = make_school()
    assignment = school.assignment_a
    assignment.require_prediction = True
    assignment.save()
    Profile.objects.update_or_create(user=school.alice, defaults={"language": language})
    page = site.page(school.alice, width=PHONE, height=844)
    page.goto(f"{site.url}{assignment.get_absolute_url()}")
    run = page.locator("button.run[id^=run-button]")
    run.click()
    errors = page.locator(".lab-panel .form-errors")
    errors.wait_for(state="visible")
    assert REASON[language] in errors.inner_text()
    assert not Run.objects.exists()
    # The reason sits right above the prompt, both on the screen.
    gap = page.evaluate(
        """() => { const box = (s) => document.querySelector(s).getBoundingClientRect();
                   return box('.lab-panel .predict').top
                       - box('.lab-panel .form-errors').bottom; }"""
    )
    assert 0 <= gap < 40, gap
    assert page.locator(".lab-panel .predict").is_visible()

    page.fill("#predict-drain-peak_backlog", "500")
    page.locator("button.run[id^=run-button]").click()
    assert wait_finished(page, site) == "succeeded"
    assert Prediction.objects.get().value == 500
    refused = [p for p in site.seen.errors if "422" not in p]  # the refusal itself is a 422
    assert not refused, "\n".join(refused)
