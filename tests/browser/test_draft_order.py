"""Issue 34: two draft posts of one page out at once, the older reaching the site second.

The drafts' requests are held here, as in test_drag.py's release test: a key's post (number
1) is still unanswered when the hand takes the slider and lets go, and the value let go at
goes beside it (number 2). The newer is let through first and lands; the older, let through
after it, reaches the site second. The site answers it "superseded" (204), and the page
drops it unsaid: no swap, no console error, no failed request, the status note not left on.
A reloaded page numbers its posts from 1 again, and its first post is taken, not refused
as old.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from tests.base import make_user
from tests.browser.pages import RUN_TIMEOUT_MS, give_a_guess
from tests.browser.test_drag import LANDED_JS, OLDER_DONE_JS, two_posts_out


def place(request) -> tuple[str, str]:
    """The (page id, number) a draft post carries."""
    fields = parse_qs(request.post_data or "")
    return fields["draft_page"][0], fields["draft_post"][0]


def test_the_older_post_arriving_second_is_answered_superseded_and_dropped_unsaid(site):
    user = make_user("order")
    page = site.page(user)
    answers: list[tuple[str, int, str | None]] = []  # (number, status, Draft-Superseded)

    def answered(response) -> None:
        if response.url.endswith("/draft/"):
            number = place(response.request)[1]
            answers.append((number, response.status, response.headers.get("draft-superseded")))

    page.on("response", answered)
    held, final = two_posts_out(page, site)
    (first_page, first), (second_page, second) = place(held[0].request), place(held[1].request)
    assert (first, second) == ("1", "2") and first_page == second_page

    held[1].continue_()  # the newer reaches the site first
    page.wait_for_function(f"() => ({LANDED_JS})() === {json.dumps(final)}", timeout=RUN_TIMEOUT_MS)
    held[0].continue_()  # the older, second
    page.wait_for_function(OLDER_DONE_JS, timeout=RUN_TIMEOUT_MS)

    assert ("1", 204, "true") in answers, answers
    assert page.evaluate(LANDED_JS) == final
    assert page.evaluate("() => window.__older") == {"swapped": 0, "settled": 0}  # dropped
    assert page.locator(".draft-status").is_hidden()
    assert not site.seen.errors, "\n".join(site.seen.errors)

    # A reload: a new page id, its numbers from 1 again, and its first post is taken.
    page.unroute("**/labs/drain/draft/")
    answers.clear()
    page.reload()
    give_a_guess(page)
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        f"() => ({LANDED_JS})() === {json.dumps(page.input_value('#id_per_worker'))}",
        timeout=RUN_TIMEOUT_MS,
    )
    assert answers and answers[0][:2] == ("1", 200), answers
    assert not site.seen.errors, "\n".join(site.seen.errors)
