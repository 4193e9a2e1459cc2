"""The 20-seed table on a phone (issue 34 item 6, issue 36's top-30 #3): every column, the
highest included, is on the screen without scrolling the table sideways, in both languages."""

from __future__ import annotations

import pytest

from accounts.models import Profile
from tests.base import finished_run, make_user
from tests.browser.conftest import PHONE, SHOTS

# How far the table reaches past the box it scrolls in (0: it fits).
OVERFLOW_JS = """() => Array.from(document.querySelectorAll(".scroll")).filter(
  (s) => s.querySelector("caption") && /seeds|seed/.test(s.querySelector("caption").textContent)
).map((s) => s.scrollWidth - s.clientWidth)"""


@pytest.mark.parametrize("language", ["en", "mr"])
def test_the_seed_table_fits_a_phone(site, language):
    student = make_user(f"seeds-{language}")
    Profile.objects.update_or_create(user=student, defaults={"language": language})
    run = finished_run(student, lab="trapped-service", over_seeds=True)
    page = site.page(student, width=PHONE, height=844)
    page.goto(site.url + run.get_absolute_url())
    page.locator("table.compare caption").first.wait_for()
    overflow = page.evaluate(OVERFLOW_JS)
    if SHOTS:
        table = page.locator(".scroll:has(table.compare)").first
        table.scroll_into_view_if_needed()
        page.screenshot(path=f"{SHOTS}/seed-table-{language}-{PHONE}.png")
    assert overflow and max(overflow) <= 0, overflow
    assert not site.seen.errors, "\n".join(site.seen.errors)
