"""Every chart's toolbar: no button that reaches outside the site (Plotly's "Share chart..."
uploads to Plotly Cloud), and on a Marathi page its tooltips and its buttons' names (what a
screen reader says, and what the Marathi crawl reads) in Marathi."""

from __future__ import annotations

import re

from tests.base import finished_run, make_user
from tests.browser.conftest import WIDE
from tests.browser.pages import wait_charts_drawn

KEPT = ["Download plot as a PNG", "Zoom", "Pan", "Reset axes"]  # plotly.js, in English
DEVANAGARI = re.compile("[\u0900-\u097f]")
TITLES_JS = """() => Array.from(document.querySelectorAll("figure.chart .modebar-btn"))
  .map((b) => b.getAttribute("data-title"))"""
NAMES_JS = """() => Array.from(document.querySelectorAll("figure.chart .modebar-btn"))
  .map((b) => b.getAttribute("aria-label"))"""


def test_the_toolbar_keeps_only_buttons_we_label_in_both_languages(site):
    asha = make_user("asha")
    run = finished_run(asha, lab="drain")
    page = site.page(asha, width=WIDE)
    page.goto(f"{site.url}{run.get_absolute_url()}")
    wait_charts_drawn(page)
    titles = page.evaluate(TITLES_JS)
    assert titles and set(titles) == set(KEPT), titles
    assert page.locator("[data-title^='Share']").count() == 0

    page.context.add_cookies([{"name": "django_language", "value": "mr", "url": site.url}])
    page.reload()
    wait_charts_drawn(page)
    titles = page.evaluate(TITLES_JS)
    assert titles and all(DEVANAGARI.search(t) for t in titles), titles
    names = page.evaluate(NAMES_JS)
    assert names == titles, names
    assert not site.seen.errors, "\n".join(site.seen.errors)
