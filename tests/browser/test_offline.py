"""A dropped link loses nothing: Chromium with its network cut (Playwright's offline mode).

A student on a phone makes a prediction and moves a slider with no link: both are kept on
the phone, the page says so, and once the link is back each reaches the site exactly once
(the rows in the database), even when the phone sends one of them again. A slider's draft
is a view, not a record: with no link, or with no answer, the slider goes on, only its
newest value is kept, and once the link is back the chart ends on the slider's value; a
kept value never lands over a newer one. A page seen before opens again with no link, from
the service worker's copy; a page never seen shows the offline page.
"""

from __future__ import annotations

import contextlib
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from accounts.models import Profile
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import (
    RUN_TIMEOUT_MS,
    give_a_guess,
    open_lab,
    reveal,
    skip_if_asked,
    wait_finished,
)
from tests.browser.test_drag import LANDED_JS, until

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


def shows(page, value: str) -> None:
    """Wait until the draft body shown has finished with `value` jobs a second per worker."""
    page.wait_for_function(f"() => ({LANDED_JS})() === {value!r}", timeout=RUN_TIMEOUT_MS)


def drafts_sent(page) -> list[str]:
    """Every draft post's body the page sends, as it sends them (htmx's and the outbox's)."""
    bodies: list[str] = []
    page.on(
        "request",
        lambda r: bodies.append(r.post_data or "") if r.url.endswith("/draft/") else None,
    )
    return bodies


def test_a_slider_moved_with_no_link_goes_on_and_the_chart_ends_on_its_value(site):
    """Issue 34: a draft made with no link held its panel as if its post were in flight, so
    the slider's next moves were neither posted nor kept: the link's return drew the first
    value moved offline, and the chart never followed the slider again until a reload."""
    page = site.page(student("asha", "en"), width=PHONE, height=800)
    sent = drafts_sent(page)
    open_lab(page, site, "drain")
    give_a_guess(page)  # else the first move waits for the guess (predict.js)
    page.locator("input.slider[data-for=id_per_worker]").focus()

    page.context.set_offline(True)
    page.keyboard.press("ArrowRight")  # 100 → 110 jobs a second, kept on the phone
    page.wait_for_function(f"() => ({OUTBOX})().length === 1")
    page.keyboard.press("ArrowRight")  # 110 → 120: takes the kept one's place
    page.wait_for_function(
        f"() => ({OUTBOX})().some((item) => item.body.includes('per_worker=120'))"
    )
    kept = page.evaluate(OUTBOX)
    assert len(kept) == 1 and kept[0]["url"] == "/labs/drain/draft/", kept
    assert sent == []  # nothing left the phone

    page.context.set_offline(False)  # the link is back: the newest value is sent, and lands
    shows(page, "120")
    page.keyboard.press("ArrowRight")  # 120 → 130: the chart follows the slider again
    shows(page, "130")
    assert page.evaluate(OUTBOX) == []
    drafts = Run.objects.filter(draft=True).order_by("created_at")
    assert [run.params["per_worker"] for run in drafts] == [120, 130]  # 110 never went
    assert not [body for body in sent if "per_worker=110" in body], sent
    # The kept draft went with the number its page gave it (its place in the page's order,
    # labs.runs.draft_order), and the next post with the next number of the same page.
    places = [(fields["draft_page"], fields["draft_post"]) for fields in map(parse_qs, sent)]
    assert [number for _page, number in places] == [["2"], ["3"]], places
    assert places[0][0] == places[1][0] and kept[0]["body"] == sent[0]
    assert not page.locator("#connection-status:not([hidden])").count()
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_a_draft_that_got_no_answer_gives_way_to_a_newer_value_and_never_lands_over_it(site):
    """The link drops under a draft's post (its request fails): the outbox keeps it and
    sends it again, and that answer is held here, as on a slow school link. The slider
    moves on meanwhile: the newer value is posted at once and lands; the kept one gives way,
    stopped on its way, so its answer never lands over the newer one and the site never
    gets it. Its failure is the only one the page reports; the note "kept" goes."""
    # Requests routed here, not through the service worker's hands (Playwright's advice).
    context = site.chromium.new_context(
        viewport={"width": WIDE, "height": 900}, service_workers="block"
    )
    site.contexts.append(context)
    context.add_cookies([site.session_cookie(student("ravi", "en"))])
    page = context.new_page()
    site.seen.watch(page)
    open_lab(page, site, "drain")
    give_a_guess(page)

    failed: list[str] = []  # the key of the post that got no answer
    held: list = []  # its sending again, by the outbox, unanswered
    ended: list[str] = []  # every draft request of that key that has ended, either way

    def answer(route) -> None:
        key = route.request.headers.get("idempotency-key", "")
        if not failed:
            failed.append(key)
            route.abort()  # the link dropped: no answer
        elif key == failed[0]:
            held.append(route)
        else:
            route.continue_()

    def end(request) -> None:
        if request.url.endswith("/draft/"):
            ended.append(request.headers.get("idempotency-key", ""))

    page.route("**/labs/drain/draft/", answer)
    page.on("requestfinished", end)
    page.on("requestfailed", end)
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")  # 100 → 110: no answer; kept and sent again
    until(page, lambda: len(held) == 1, "the outbox did not send the kept draft again")

    page.keyboard.press("ArrowRight")  # 110 → 120, posted at once beside the kept one
    shows(page, "120")
    # The kept one's answer now, were it still wanted (stopped on its way by the page,
    # there is nothing to let through).
    with contextlib.suppress(PlaywrightError):
        held[0].continue_()
    # Both requests of that key have ended (the failed post, and its sending again), the
    # outbox is empty, and an answer that came has landed from the holder.
    until(page, lambda: ended.count(failed[0]) == 2, "the kept draft's request never ended")
    page.wait_for_function(
        f"() => ({OUTBOX})().length === 0 && !document.querySelector('#incoming-drain .run-body')"
    )
    assert page.evaluate(LANDED_JS) == "120", "the kept value landed over the newer one"
    drafts = Run.objects.filter(draft=True)
    assert [run.params["per_worker"] for run in drafts] == [120]
    expect(page.locator("#outbox-status")).to_be_hidden()
    # The post that got no answer is reported (htmx's log, the failed request); the one
    # that gave way is not.
    others = [
        e
        for e in site.seen.errors
        if not ("htmx:sendError" in e or "htmx:afterRequest" in e or "net::ERR_FAILED" in e)
    ]
    assert others == [], "\n".join(others)


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
