"""Every lab in the catalogue, run with its defaults in a real browser, as a student sees it:
at 1280 px on the lab's page, then its permalink opened on a 390 px phone."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import LABS
from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import (
    chart_problems,
    charts,
    open_lab,
    permalink,
    press_run,
    wait_charts_drawn,
    wait_finished,
)


@pytest.mark.parametrize("slug", [lab.slug for lab in LABS])
def test_a_lab_runs_with_its_defaults_and_draws_every_chart(site, slug):
    asha = make_user("asha")
    page = site.page(asha, width=WIDE)
    open_lab(page, site, slug)
    press_run(page)
    assert wait_finished(page, site) == "succeeded", page.locator(".run-body").inner_text()
    shot(page, f"{slug}-{WIDE}")
    wide = charts(page)
    assert wide and all(c["drawn"] for c in wide), [c["title"] for c in wide if not c["drawn"]]

    phone = site.page(asha, width=PHONE)
    phone.goto(permalink(page))
    wait_charts_drawn(phone)
    shot(phone, f"{slug}-{PHONE}")
    narrow = charts(phone)
    assert len(narrow) == len(wide)
    assert all(c["drawn"] for c in narrow)
    # The finished result fits the phone: wide tables and code scroll in their own boxes.
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE

    problems = [f"{WIDE} px: {p}" for c in wide for p in chart_problems(c)]
    problems += [f"{PHONE} px: {p}" for c in narrow for p in chart_problems(c)]
    assert not problems, "\n".join(problems)
    assert not site.seen.errors, "\n".join(site.seen.errors)
