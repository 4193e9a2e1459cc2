"""The challenge on the lab, in a real browser: the lab page names the goal beside the
prediction, a moved control's draft says how close it came and, once it meets the goal,
that it was kept; in English at 1280 px and in Marathi on a 390 px phone, with axe-core
finding nothing serious and the phone's page no wider than the phone."""

from __future__ import annotations

from labs.runs.models import Run
from teaching.models import ChallengeCredit
from tests.base import make_user
from tests.browser.conftest import PHONE, SHOTS, WIDE, shot
from tests.browser.pages import open_lab, reveal, skip_if_asked, wait_finished
from tests.browser.test_accessibility import violations

BY_FIVE = "Empty the queue by second 5 with at most 10 workers at any moment."
BY_FIVE_MR = "कोणत्याही क्षणी जास्तीत जास्त 10 workers ठेवून सेकंद 5 पर्यंत queue रिकामी करा."
WIDER_THAN = "() => document.documentElement.scrollWidth"
GIVE_UP_MS = 180_000  # a give-up, not a speed target: the real worker on a busy machine


def close_up(locator, name: str) -> None:
    """A screenshot of one part of the page, under BROWSER_SHOTS when set."""
    if SHOTS:
        locator.screenshot(path=f"{SHOTS}/{name}.png")


def test_a_draft_that_meets_the_goal_is_kept_and_says_so_in_english_at_1280(site):
    student = make_user("kiran")
    page = site.page(student, width=WIDE)
    page.goto(f"{site.url}/labs/drain/?challenge=drain-by-five")
    card = page.locator("#lab-challenge-drain-by-five")
    assert card.is_visible() and BY_FIVE in card.inner_text()
    assert "You may change: Most workers (backlog rule)" in card.inner_text()
    # Beside "Predict first", in the controls column.
    predict = page.locator(".lab-form .predict").bounding_box()
    box = page.locator(".lab-form .lab-challenges").bounding_box()
    assert abs(box["x"] - predict["x"]) < 2 and box["y"] > predict["y"]

    reveal(page, "#id_per_waiting")
    page.fill("#id_per_waiting", "50")  # drafts.js re-runs the lab: a draft
    skip_if_asked(page)  # once the guess is skipped (predict.js)
    met = page.locator(".results .run-body .challenge-distance.met[data-challenge=drain-by-five]")
    met.wait_for(timeout=GIVE_UP_MS)
    assert "Challenge met: kept in your runs." in met.inner_text()
    # The other challenge says how far this run was, from its own figures.
    missed = page.locator(
        ".results .run-body .challenge-distance[data-challenge=drain-fewest-workers]"
    )
    assert "at most 4 workers — your run:" in missed.inner_text()
    kept = Run.objects.get(owner=student)
    assert not kept.draft
    assert ChallengeCredit.objects.filter(student=student, met_by=kept.pk).count() == 1
    shot(page, "lab-challenge-en-1280")
    close_up(page.locator(".results .run-body .run-challenges"), "lab-challenge-en-1280-distance")
    assert violations(page, None) == []
    assert site.seen.errors == []


def test_the_goal_and_a_results_distance_read_in_marathi_on_a_phone(site):
    student = make_user("sayali")
    page = site.page(student, width=PHONE)
    page.context.add_cookies([{"name": "django_language", "value": "mr", "url": site.url}])
    open_lab(page, site, "drain")
    page.locator(".lab-challenges > summary").click()
    card = page.locator("#lab-challenge-drain-by-five")
    assert BY_FIVE_MR in card.inner_text() and "तुम्ही बदलू शकता:" in card.inner_text()
    assert page.evaluate(WIDER_THAN) <= PHONE
    shot(page, "lab-challenge-mr-390-card")
    close_up(page.locator(".lab-form .lab-challenges"), "lab-challenge-mr-390-card-close")

    page.locator("#run-button-drain").click()  # the lesson's values: the queue empties too late
    skip_if_asked(page)
    assert wait_finished(page, site) == "succeeded"
    distance = page.locator(".results .run-body .run-challenges")
    said = distance.inner_text()
    assert "आव्हानांच्या तुलनेत हा रन" in said and "— तुमच्या रनमध्ये:" in said
    assert "अजून नाही" in said
    assert page.evaluate(WIDER_THAN) <= PHONE
    shot(page, "lab-challenge-mr-390")
    close_up(distance, "lab-challenge-mr-390-distance")
    assert violations(page, None) == []
    assert site.seen.errors == []
