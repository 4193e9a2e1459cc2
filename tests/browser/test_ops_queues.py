"""The operations page on a phone: reached from the teacher's class list, no wider than
the 390 px screen, its "runs waiting" axis in whole runs."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from labs.runs.models import Run
from labs.runs.telemetry import Sampler
from tests.base import make_people
from tests.browser.conftest import PHONE, shot
from tests.browser.pages import wait_charts_drawn

WIDTH_JS = "() => document.documentElement.scrollWidth"
# The tick labels of the first chart's y axis, as drawn.
Y_TICKS_JS = """() => Array.from(document.querySelectorAll('figure.chart')[0]
  .querySelectorAll('.ytick text')).map(t => t.textContent)"""


def test_the_operations_page_fits_a_phone_with_whole_run_ticks(site):
    people = make_people()
    # One run waiting (only a row: no worker is asked for it), sampled twice.
    Run.objects.create(
        owner=people.alice, lab="drain", params={}, seed=1, queue=settings.LAB_QUEUE,
        status="queued", created_at=timezone.now() - timedelta(seconds=2),
    )  # fmt: skip
    sampler = Sampler()
    sampler.tick()
    sampler.tick(timezone.now() + timedelta(seconds=1))
    for language in ("en", "mr"):
        page = site.page(people.teacher, width=PHONE)
        page.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
        page.goto(f"{site.url}/classes/")
        page.locator(".ops-link a").click()
        page.wait_for_url("**/ops/queues")
        wait_charts_drawn(page)
        width = page.evaluate(WIDTH_JS)
        assert width <= PHONE, f"/ops/queues is {width} px wide on a {PHONE} px phone ({language})"
        ticks = page.evaluate(Y_TICKS_JS)
        assert ticks and all(t.replace("−", "-").lstrip("-").isdigit() for t in ticks), ticks
        shot(page, f"ops-queues-{language}-{PHONE}")
