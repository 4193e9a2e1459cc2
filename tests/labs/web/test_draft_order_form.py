"""A draft's place on its page is read strictly: none sent is today's behaviour, anything
garbled is a 400 with a reason and runs nothing (`labs.web.draft_order_form`)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.runs.draft_order import Order
from labs.runs.models import Run
from labs.web.draft_order_form import DraftOrderForm
from tests.labs.runs.test_run_caps import defaults_form

PAGE = "0f1e2d3c4b5a69788796a5b4c3d2e1f0"


@pytest.mark.parametrize(
    ("fields", "order"),
    [
        ({}, None),
        ({"draft_page": "", "draft_post": ""}, None),
        ({"draft_page": PAGE, "draft_post": "7"}, Order(PAGE, 7)),
        ({"draft_page": "6f1c7e0a-2b3d-4c5e-8f90-a1b2c3d4e5f6", "draft_post": "1"},
         Order("6f1c7e0a-2b3d-4c5e-8f90-a1b2c3d4e5f6", 1)),
    ],
)  # fmt: skip
def test_it_reads_a_place_or_none(fields, order):
    form = DraftOrderForm(fields)
    assert form.is_valid(), form.errors
    assert form.order() == order


GARBLED = [
    {"draft_page": PAGE},  # a number missing
    {"draft_post": "5"},  # a page missing
    {"draft_page": PAGE, "draft_post": "0"},
    {"draft_page": PAGE, "draft_post": "-1"},
    {"draft_page": PAGE, "draft_post": "1e3"},
    {"draft_page": PAGE, "draft_post": "٣"},
    {"draft_page": PAGE, "draft_post": "5\n"},
    {"draft_page": PAGE, "draft_post": "9" * 30},
    {"draft_page": "short", "draft_post": "5"},
    {"draft_page": "a page/with:signs", "draft_post": "5"},
    {"draft_page": "x" * 65, "draft_post": "5"},
    {"draft_page": PAGE + "\x00", "draft_post": "5"},
]


@pytest.mark.parametrize("fields", GARBLED)
def test_a_garbled_place_is_refused_with_a_reason_and_runs_nothing(
    client, people, published, fields
):
    client.force_login(people.alice)
    data = defaults_form("drain") | fields
    response = client.post(reverse("lab-draft", args=["drain"]), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "reload the page" in response.content.decode()
    assert not Run.objects.exists() and not published
