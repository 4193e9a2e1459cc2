"""A live experiment as a student watches it: the live view comes into sight and updates."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.base import make_user
from tests.browser.pages import open_lab, press_run, wait_finished


def test_the_live_view_is_in_sight_while_the_experiment_runs(site):
    page = site.page(make_user("asha"), height=800)
    open_lab(page, site, "burst-live")
    readings = []
    page.on(
        "response",
        lambda r: "/runs/" in r.url and r.request.method == "GET" and readings.append(r.url),
    )
    press_run(page)
    live = page.locator("section.live")
    live.wait_for(timeout=120_000)
    # Run is below a long form: the page brings the run, and its live view, into sight.
    expect(live).to_be_in_viewport()
    assert wait_finished(page, site) == "succeeded"
    assert len(readings) >= 3, readings  # polled twice a second while it ran
    assert not site.seen.errors, "\n".join(site.seen.errors)
