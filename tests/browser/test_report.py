"""The capstone's before/after report, on screen and printed."""

from __future__ import annotations

from tests.base import make_user
from tests.browser.conftest import WIDE, shot
from tests.browser.pages import RUN_TIMEOUT_MS, charts, open_lab, skip_if_asked, wait_charts_drawn

# Everything inside the report that is wider than the page (so cut off on screen or paper).
OVERFLOWING_JS = """
() => {
  const page = document.documentElement.clientWidth;
  return Array.from(document.querySelectorAll("main *"))
    .filter((e) => e.getBoundingClientRect().right > page + 1 && e.getClientRects().length)
    .map((e) => `${e.tagName}.${e.getAttribute("class")}: ${(e.textContent || "").slice(0, 60)}`);
}
"""


def open_report(site, page) -> None:
    open_lab(page, site, "trapped-service")
    page.get_by_role("button", name="Run before/after").click()
    skip_if_asked(page)
    page.locator("#report .outcome").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_charts_drawn(page)


def test_the_report_reads_on_screen_and_prints_without_cutting_anything(site):
    page = site.page(make_user("asha"), width=WIDE)
    open_report(site, page)
    shot(page, f"report-{WIDE}")
    drawn = charts(page)
    assert drawn and all(c["drawn"] for c in drawn)
    assert page.evaluate(OVERFLOWING_JS) == []
    # Students cannot run the site's command line: the report offers the Re-run button.
    assert "manage.py" not in page.locator("main").inner_text()

    page.emulate_media(media="print")
    page.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('figure.chart .main-svg'))"
        ".every((s) => s.getBoundingClientRect().right <= document.documentElement.clientWidth)"
    )
    assert not page.get_by_role("button", name="Print").is_visible()
    assert page.evaluate(OVERFLOWING_JS) == []
    shot(page, "report-print")
    assert page.pdf(format="A4")[:4] == b"%PDF"
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_the_report_in_marathi_fits_the_screen_and_the_paper(site):
    """Marathi sentences run longer than English ones: nothing may be cut off either way."""
    page = site.page(make_user("meera"), width=WIDE)
    page.context.add_cookies([{"name": "django_language", "value": "mr", "url": site.url}])
    open_lab(page, site, "trapped-service")
    page.get_by_role("button", name="आधी/नंतर चालवा").click()
    skip_if_asked(page)
    page.locator("#report .outcome").wait_for(timeout=RUN_TIMEOUT_MS)
    wait_charts_drawn(page)
    assert "controls चालू झाल्यावर" in page.locator("#report .outcome").inner_text()
    assert page.evaluate(OVERFLOWING_JS) == []
    page.emulate_media(media="print")
    page.set_viewport_size({"width": 794, "height": 1123})
    page.wait_for_function(
        "() => Array.from(document.querySelectorAll('figure.chart .main-svg'))"
        ".every((s) => s.getBoundingClientRect().right <= document.documentElement.clientWidth)"
    )
    assert page.evaluate(OVERFLOWING_JS) == []
    shot(page, "report-print-mr")
    assert not site.seen.errors, "\n".join(site.seen.errors)
