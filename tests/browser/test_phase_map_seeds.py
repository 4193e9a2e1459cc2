"""The phase map's 10-seed view in a real browser: ticked, run, drawn beside the one-seed
map at 1280 px, and its permalink on a 390 px phone, with no words drawn over others and no
serious axe finding (the permalink in Marathi too)."""

from __future__ import annotations

from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import (
    chart_problems,
    charts,
    open_lab,
    permalink,
    press_run,
    reveal,
    wait_charts_drawn,
    wait_finished,
)
from tests.browser.test_accessibility import violations


def test_the_ten_seed_map_is_drawn_beside_the_one_seed_map(site):
    asha = make_user("asha")
    page = site.page(asha, width=WIDE)
    open_lab(page, site, "phase-map")
    reveal(page, "#id_ten_seeds")
    page.locator("#id_ten_seeds").check()
    press_run(page)
    assert wait_finished(page, site) == "succeeded", page.locator(".run-body").inner_text()
    shot(page, f"phase-map-ten-seeds-{WIDE}")
    wide = charts(page)
    titles = [c["title"] for c in wide]
    assert any("how many of 10 seeds" in t for t in titles), titles
    assert "trapped in" in page.locator(".run-body").inner_text()

    phone = site.page(asha, width=PHONE)
    phone.goto(permalink(page))
    wait_charts_drawn(phone)
    shot(phone, f"phase-map-ten-seeds-{PHONE}")
    narrow = charts(phone)
    assert len(narrow) == len(wide) and all(c["drawn"] for c in narrow)
    problems = [f"{WIDE} px: {p}" for c in wide for p in chart_problems(c)]
    problems += [f"{PHONE} px: {p}" for c in narrow for p in chart_problems(c)]
    assert not problems, "\n".join(problems)
    found = violations(page, None) + violations(phone, None)
    phone.context.add_cookies([{"name": "django_language", "value": "mr", "url": site.url}])
    found += violations(phone, permalink(page))
    assert "अडकली" in phone.locator(".run-body").inner_text()
    shot(phone, f"phase-map-ten-seeds-mr-{PHONE}")
    assert not found, "\n".join(found)
    assert not site.seen.errors, "\n".join(site.seen.errors)
