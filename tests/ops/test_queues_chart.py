"""The operations page is linked from the teacher's class list, and its "runs waiting"
chart counts in whole runs."""

from __future__ import annotations

import pytest
from django.urls import reverse

from labs.charts.operations import build, whole_step

QUEUES = [("quick", "Quick labs"), ("heavy", "Heavy work")]


@pytest.mark.django_db
def test_the_teachers_class_list_links_to_the_operations_page(client, people):
    """A teacher finds /ops/queues from their pages, not by typing it; a student does not."""
    client.force_login(people.teacher)
    page = client.get(reverse("class-list")).content.decode()
    assert f'href="{reverse("ops-queues")}"' in page
    client.force_login(people.alice)
    assert reverse("ops-queues") not in client.get(reverse("class-list")).content.decode()


def samples(depths: list[int]) -> list[dict]:
    return [{"t": 100.0 + i, "q": {"quick": [d, 0.5, 0, 0, 0, 1]}} for i, d in enumerate(depths)]


def ticks(yaxis: dict, top: float) -> list[float]:
    """The tick values Plotly draws from tick0 and dtick up to `top`."""
    out, value = [], yaxis["tick0"]
    while value <= max(top, 1):
        out.append(value)
        value += yaxis["dtick"]
    return out


@pytest.mark.parametrize("depths", [[0, 0], [0, 1, 0], [0, 3, 2], [7, 12], [0, 130, 40]])
def test_runs_waiting_ticks_are_whole_runs(depths):
    waiting, age = build(samples(depths), QUEUES, now=110.0)
    yaxis = waiting["layout"]["yaxis"]
    assert yaxis["tickformat"] == "d" and isinstance(yaxis["dtick"], int)
    values = ticks(yaxis, max(depths))
    assert all(float(v).is_integer() for v in values), values
    assert 2 <= len(values) <= 7  # enough to read, not crowded
    assert "dtick" not in age["layout"]["yaxis"]  # an age in seconds may be 0.5 s


def test_an_empty_queue_draws_0_to_1_not_minus_1_to_1():
    waiting, _age = build(samples([0, 0, 0]), QUEUES, now=110.0)
    assert waiting["layout"]["yaxis"]["range"] == [0, 1]


@pytest.mark.parametrize(
    ("top", "step"), [(0, 1), (6, 1), (7, 2), (12, 2), (13, 5), (31, 10), (61, 20), (1000, 200)]
)
def test_the_step_is_1_2_or_5_times_a_power_of_ten(top, step):
    assert whole_step(top) == step
