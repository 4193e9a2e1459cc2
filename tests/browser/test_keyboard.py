"""A student with only a keyboard: Tab to Run, Enter, and the focus is on what happened."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.base import make_user
from tests.browser.pages import open_lab, skip_if_asked, wait_finished

FOCUSED = "() => document.activeElement"


def tab_to(page, selector: str, limit: int = 80) -> int:
    """Press Tab until `selector` has the focus; how many presses it took."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => document.activeElement.matches({selector!r})"):
            return presses
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def test_tab_to_run_and_enter_leaves_the_focus_on_the_result(site):
    page = site.page(make_user("asha"))
    open_lab(page, site, "drain")
    tab_to(page, "button.run:not(.secondary)")
    page.keyboard.press("Enter")
    # No guess: the lab asks for one, the focus on the question; "Skip this time" by keys.
    expect(page.locator("#predict-drain-peak_backlog")).to_be_focused()
    page.keyboard.press("Shift+Tab")  # the guess's slider, then the ask's button
    page.keyboard.press("Shift+Tab")
    expect(page.locator("[data-predict-skip-button]")).to_be_focused()
    page.keyboard.press("Enter")
    assert wait_finished(page, site) == "succeeded"
    # Polled and swapped every second until it finished: the focus followed the run.
    focus = page.evaluate(
        "() => { const r = document.activeElement.closest('.run-body');"
        " return r && {id: r.id, text: r.innerText}; }"
    )
    assert focus is not None, page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
    assert "The backlog peaked at 800 jobs." in focus["text"]
    expect(page.locator(f"#{focus['id']}")).to_be_in_viewport()
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_a_refused_value_takes_the_focus_to_its_field(site):
    page = site.page(make_user("asha"))
    open_lab(page, site, "drain")
    page.fill("#id_arrivals", "50, lots")
    skip_if_asked(page)  # the first change asks for the guess (predict.js)
    page.focus("#id_arrivals")
    tab_to(page, "button.run:not(.secondary)")
    page.keyboard.press("Enter")
    page.locator(".has-error").wait_for()
    # The draft said so as the box was typed in (drafts.js); Run's answer takes the focus.
    expect(page.locator("#id_arrivals")).to_be_focused()
    # The refusal is a 422 the page shows in place (Chromium logs it); nothing else failed.
    assert [e for e in site.seen.errors if "422" not in e] == []


def test_the_first_tab_offers_a_skip_past_the_header_to_the_content(site):
    page = site.page(make_user("asha"))
    open_lab(page, site, "breaker")
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert page.evaluate("() => document.activeElement.className") == "skip-link"
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    # The header's links and language buttons are passed: the next stop is inside <main>.
    assert page.evaluate("() => !!document.activeElement.closest('main')")
    assert not site.seen.errors, "\n".join(site.seen.errors)
