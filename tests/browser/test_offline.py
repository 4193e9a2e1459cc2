"""A dropped link loses nothing: Chromium with its network cut (Playwright's offline mode).

A student on a phone makes a prediction and moves a slider with no link: both are kept on
the phone, the page says so, and once the link is back each reaches the site exactly once
(the rows in the database), even when the phone sends one of them again. A page seen
before opens again with no link, from the service worker's copy; a page never seen shows
the offline page.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.models import Profile
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import open_lab, reveal, skip_if_asked, wait_finished

KEPT = {
    "en": "what you just did is kept on this phone and sent when the link is back",
    "mr": "तुम्ही आत्ता केलेले या फोनवर जतन आहे",
}
SENT = {"en": "The link is back", "mr": "network परत आला"}
OUTBOX = "() => JSON.parse(localStorage.getItem('outbox:v1') || '[]')"
WORKER_READY = (
    "() => navigator.serviceWorker.ready.then(() => !!navigator.serviceWorker.controller)"
)
PAGE_KEPT = """async (url) => {
  const cache = await caches.open('qrl-pages');
  return !!(await cache.match(url, {ignoreVary: true}));
}"""


def controlled(page) -> None:
    """Wait until the service worker runs the page and has kept its copy of it."""
    page.wait_for_function(WORKER_READY, polling=100)
    page.wait_for_function(PAGE_KEPT, arg=page.url, polling=200)


def student(name: str, language: str):
    user = make_user(name)
    Profile.objects.update_or_create(user=user, defaults={"language": language})
    return user


@pytest.mark.parametrize("language", ["en", "mr"])
def test_a_prediction_and_a_draft_made_offline_are_kept_and_sent_once(site, language):
    asha = student(f"asha-{language}", language)
    page = site.page(asha, width=PHONE, height=800)
    open_lab(page, site, "drain")
    controlled(page)

    page.context.set_offline(True)
    # A slider's move (a draft), then a prediction and Run, all with no link.
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")  # 100 → 110 jobs a second
    skip_if_asked(page)  # the first move asks for the guess (predict.js)
    note = page.locator("#outbox-status")
    expect(note).to_be_visible()
    expect(note).to_contain_text(KEPT[language])
    page.fill("#predict-drain-peak_backlog", "3000")
    reveal(page, "#id_max_workers")
    page.fill("#id_max_workers", "4")
    page.locator("#run-button-drain").click()
    page.wait_for_function(f"() => ({OUTBOX})().length === 2")
    kept = page.evaluate(OUTBOX)
    assert [item["url"] for item in kept] == ["/labs/drain/draft/", "/labs/drain/"]
    assert "predict-peak_backlog=3000" in kept[1]["body"]
    assert Run.objects.count() == 0  # nothing reached the site
    note.scroll_into_view_if_needed()
    shot(page, f"offline-kept-{language}-{PHONE}")

    page.context.set_offline(False)  # the link is back: sent after a jittered wait
    page.wait_for_function(f"() => ({OUTBOX})().length === 0", timeout=30_000)
    expect(note).to_contain_text(SENT[language])
    assert wait_finished(page, site) == "succeeded"  # the Run's answer landed in the page
    shot(page, f"offline-sent-{language}-{PHONE}")

    # The phone sends the Run again with its key (as when an answer is lost): the site
    # answers as the first time and makes nothing new.
    again = page.evaluate(
        """async (item) => {
          const token = JSON.parse(document.body.getAttribute('hx-headers'))['X-CSRFToken'];
          const r = await fetch(item.url, {method: 'POST', body: item.body, headers: {
            'Content-Type': 'application/x-www-form-urlencoded', 'HX-Request': 'true',
            'X-CSRFToken': token, 'Idempotency-Key': item.key}});
          return [r.status, r.headers.get('Idempotent-Replayed')];
        }""",
        kept[1],
    )
    assert again == [200, "true"]
    runs = Run.objects.filter(owner=asha)
    assert runs.filter(draft=True).count() == 1, list(runs.values("draft", "params"))
    assert runs.filter(draft=False).count() == 1
    run = runs.get(draft=False)
    assert run.params["per_worker"] == 110 and run.params["max_workers"] == 4
    assert list(Prediction.objects.values_list("run", "value")) == [(run.pk, 3000)]
    assert not [p for p in site.seen.problems if p.startswith("page error")]


def test_a_page_seen_before_opens_with_no_link_and_one_never_seen_says_so(site):
    page = site.page(student("ravi", "en"), width=WIDE)
    open_lab(page, site, "drain")
    controlled(page)
    lab_url = page.url

    page.context.set_offline(True)
    page.goto(lab_url)
    # The lab's page, with its styles and scripts, from the phone: the form works.
    expect(page.locator("h1")).to_contain_text("Drain")
    assert page.evaluate("() => typeof window.htmx") == "object"
    assert page.evaluate(
        "() => getComputedStyle(document.querySelector('header.top')).display"
    ) not in ("", "inline")  # site.css applied
    expect(page.locator("#outbox-status")).to_contain_text(
        "this is the copy of the page kept on this phone"
    )
    served = page.evaluate(
        "() => performance.getEntriesByType('resource').map(e => [e.name, e.transferSize])"
    )
    assert served and all(size == 0 for _, size in served), served  # nothing over the network

    page.goto(f"{site.url}/runs/")  # never opened here
    expect(page.locator("h1").first).to_contain_text("No link to the site")
    expect(page.locator("section[lang=mr] h1")).to_contain_text("साइटपर्यंत network नाही")
    shot(page, f"offline-page-{WIDE}")
    page.context.set_offline(False)
