"""Each real-queue experiment's cost: wall seconds of a heavy worker, checked at the form."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from labs.catalogue.entries import LABS, get_lab
from labs.course.lesson_12.burst_live import run as burst_live
from labs.runners.experiment import SETUP_S
from labs.runs.admission import over_budget, queue_for
from labs.runs.models import Run
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}
EXPERIMENTS = [lab for lab in LABS if lab.kind == "experiment"]


def field_block(page: str, name: str) -> str:
    """The HTML of one form field: its label, input, error and help."""
    start = page.index(f'<code class="name">{name}</code>')
    end = page.find('<div class="field', start)
    return page[start : end if end != -1 else None]


@pytest.mark.parametrize("lab", EXPERIMENTS, ids=lambda lab: lab.slug)
def test_every_experiment_says_what_it_costs_and_its_defaults_fit_the_budget(lab):
    assert lab.cost is not None
    cost = lab.cost(lab.defaults())
    assert SETUP_S < cost.seconds <= django_settings.LAB_EXPERIMENT_BUDGET_S
    names = {p.name for p in lab.params}
    assert cost.drivers and set(cost.drivers) <= names


def test_the_cost_grows_with_the_fields_that_drive_it():
    lab = get_lab("burst-live")
    base = lab.defaults()
    cost = lab.cost(base).seconds
    assert cost == pytest.approx((10 + burst_live.EXTRA_SECONDS) * 0.2 + SETUP_S)
    assert lab.cost(base | {"lesson_second_s": 0.4}).seconds > cost
    assert lab.cost(base | {"arrivals": base["arrivals"] * 2}).seconds > cost
    trapped = get_lab("trapped-live")
    assert trapped.cost(trapped.defaults()).seconds == 75 + SETUP_S  # 300 s at 0.25


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "This experiment would hold one of the shared workers for about 4 s of real"),
        ("mr", "हा प्रयोग सगळ्यांच्या मिळून असलेल्या workers पैकी एकाला सुमारे 4 s"),
    ],
)
def test_an_experiment_over_the_budget_is_refused_at_the_form_next_to_its_fields(
    client, people, published, settings, language, words
):
    # burst-live's defaults: 12 lesson seconds of 0.2 s plus start-up, about 4.4 s.
    settings.LAB_EXPERIMENT_BUDGET_S = 3
    client.force_login(people.alice)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    response = client.post(
        reverse("lab-detail", args=["burst-live"]), defaults_form("burst-live"), **HX
    )

    assert response.status_code == 422
    page = html_lib.unescape(response.content.decode())
    assert words in " ".join(field_block(page, "arrivals").split())
    assert "3 s" in field_block(page, "arrivals")
    assert shows_an_error(field_block(page, "lesson_second_s"))  # the other driver
    assert not shows_an_error(field_block(page, "fixed_workers"))
    assert not Run.objects.exists()
    assert published == []


def test_an_experiment_within_the_budget_goes_to_the_heavy_queue(
    client, people, published, settings, django_capture_on_commit_callbacks
):
    settings.LAB_EXPERIMENT_BUDGET_S = 5
    settings.LAB_QUEUE, settings.LAB_HEAVY_QUEUE = "q-quick", "q-heavy"
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("lab-detail", args=["burst-live"]), defaults_form("burst-live")
        )
    assert response.status_code == 302
    run = Run.objects.get(owner=people.alice)
    assert run.queue == "q-heavy" and len(published) == 1


def test_the_longest_experiment_the_forms_allow_fits_the_default_budget():
    """trapped-live's own cap (100 s of wall time) plus start-up is within the budget, so the
    budget refuses nothing a lab's own rules let through at the site's defaults."""
    trapped = get_lab("trapped-live")
    longest = trapped.defaults() | {"horizon_s": 400, "time_scale": 0.25}
    assert not trapped.check(longest)
    assert over_budget(trapped, longest) is None
    assert queue_for(trapped, longest) == django_settings.LAB_HEAVY_QUEUE


def shows_an_error(block: str) -> bool:
    """A field's error box that is shown (every field keeps an empty, hidden one that the
    live checks of a moving control fill)."""
    return re.search(r'class="error"(?![^>]*\bhidden\b)', block) is not None
