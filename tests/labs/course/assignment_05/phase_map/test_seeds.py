"""The phase map over 10 seeds: how often each cell was trapped, and what that explains."""

from __future__ import annotations

import re
from functools import cache

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from labs.course.assignment_05.phase_map import run as runner
from labs.runs.admission import over_budget
from labs.runs.models import Run
from tests.lab_helpers import headline, lab, refusal, run
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}

# A 3 x 3 grid across the border: cells that always recover, always trap, and go either way.
BORDER = {
    "spike_min_rps": 100,
    "spike_max_rps": 120,
    "spike_steps": 3,
    "duration_min_s": 6,
    "duration_max_s": 10,
    "duration_steps": 3,
}
# The lesson's noisy cell alone: 100/s (the capacity) for 10 s, everything else the defaults.
NOISY_CELL = {
    "spike_min_rps": 100,
    "spike_max_rps": 100,
    "spike_steps": 1,
    "duration_min_s": 10,
    "duration_max_s": 10,
    "duration_steps": 1,
}


@cache
def border_over_seeds() -> dict:
    return run("phase-map", seed=40, ten_seeds=True, **BORDER)


def test_its_counts_equal_ten_single_seed_maps_cell_by_cell():
    result = border_over_seeds()
    counts = result["tables"]["seed_counts"]
    assert counts["seeds"] == list(range(40, 50))
    singles = [run("phase-map", seed=s, **BORDER) for s in counts["seeds"]]
    grids = [m["tables"]["grid"]["recovered"][0] for m in singles]
    expected = [
        [sum(not g[d][x] for g in grids) for x in range(3)] for d in range(3)
    ]  # [duration][spike]
    assert counts["trapped"] == [expected]
    # The run itself is the student's own seed's map, with the counts beside it.
    assert result["summary"] == singles[0]["summary"]
    assert result["tables"]["grid"] == singles[0]["tables"]["grid"]
    assert "seed_counts" not in singles[0]["tables"]


def test_the_chart_draws_each_cells_share_and_count():
    result = border_over_seeds()
    charts = lab("phase-map").charts(result)
    single_charts = lab("phase-map").charts(run("phase-map", seed=40, **BORDER))
    assert len(charts) == len(single_charts) + 1  # the seed map beside the one-seed map
    heat = charts[1]["data"][0]
    counts = result["tables"]["seed_counts"]["trapped"][0]
    assert heat["z"] == [[round(100 * k / 10) for k in row] for row in counts]
    assert heat["text"] == [[f"{k}/10" for k in row] for row in counts]
    assert (heat["zmin"], heat["zmax"]) == (0, 100)


def test_the_noisy_cell_is_trapped_in_some_seeds_not_all_at_the_lessons_defaults():
    result = run("phase-map", ten_seeds=True, **NOISY_CELL)
    trapped = result["tables"]["seed_counts"]["trapped"][0][0][0]
    assert 0 < trapped < 10
    text = headline("phase-map", result)
    assert f"100/s for 10 s: trapped in {trapped} of 10 seeds (the spike is 100% of" in text
    # Not "adds no queue on average" (issue 36: false for a random queue): the seeds' figure.
    assert "At 100% of capacity the spike's average rate only matches the workers" in text
    assert "its peak had a median of" in text


def test_its_sentences_name_only_the_cells_that_went_both_ways():
    result = border_over_seeds()
    counts = result["tables"]["seed_counts"]["trapped"][0]
    both_ways = sum(0 < k < 10 for row in counts for k in row)
    assert 0 < both_ways < 9  # the grid was chosen to straddle the border
    text = headline("phase-map", result)
    assert f"Over 10 seeds, {both_ways} cells were trapped in some seeds" in text
    named = re.findall(r"trapped in (\d+) of 10 seeds", text)
    assert named and all(0 < int(k) < 10 for k in named)
    # Without the box, the headline says nothing about seeds.
    assert "seeds" not in headline("phase-map", run("phase-map", seed=40, **BORDER))


def test_a_grid_that_never_changes_says_chance_decides_nothing():
    result = run(
        "phase-map", ten_seeds=True, **(BORDER | {"spike_min_rps": 180, "spike_max_rps": 190})
    )
    assert "every cell came out the same each time" in headline("phase-map", result)


def test_ten_maps_at_the_defaults_fit_the_budget_and_cost_ten_times_one():
    phase = lab("phase-map")
    one = phase.cost(phase.defaults())
    ten = phase.cost(phase.defaults() | {"ten_seeds": True})
    assert ten.seconds == pytest.approx(10 * one.seconds)
    assert "ten_seeds" in ten.drivers and "ten_seeds" not in one.drivers
    assert ten.seconds <= settings.LAB_RUN_BUDGET_S
    assert over_budget(phase, phase.defaults() | {"ten_seeds": True}) is None


def test_the_form_refuses_ten_maps_over_the_budget_and_says_what_to_lower(
    client, people, published
):
    client.force_login(people.alice)
    over = {"max_attempts": "10", "spike_steps": "15", "ten_seeds": "on"}
    page = reverse("lab-detail", args=["phase-map"])
    response = client.post(page, defaults_form("phase-map") | over, **HX)
    assert response.status_code == 422
    html = response.content.decode()
    assert "of a worker&#x27;s time" in html and "may use at most 10 s" in html
    assert not Run.objects.exists() and published == []
    # The fields that set the bound are named, the box among them.
    _message, fields = over_budget(
        lab("phase-map"),
        lab("phase-map").defaults() | {"max_attempts": 10, "spike_steps": 15, "ten_seeds": True},
    )
    assert {"ten_seeds", "max_attempts", "spike_steps"} <= set(fields)
    # One map of the same grid is within it.
    assert (
        over_budget(
            lab("phase-map"), lab("phase-map").defaults() | {"max_attempts": 10, "spike_steps": 15}
        )
        is None
    )


def test_the_ten_seed_view_reads_in_marathi():
    result = run("phase-map", ten_seeds=True, **NOISY_CELL)
    with translation.override("mr"):
        text = headline("phase-map", result)
        chart = lab("phase-map").charts(result)[1]
        label = gettext(lab("phase-map").param("ten_seeds").label)
    assert "अडकली" in text and "seeds" in text
    assert "trapped in" not in text and "of capacity" not in text
    assert "seeds" in chart["layout"]["title"]["text"] and "how many" not in str(chart)
    assert label == "10 seeds नेही चालवा"


def test_refusals_still_name_the_grid_fields():
    errors = refusal("phase-map", spike_steps=40, duration_steps=40, ten_seeds=True)
    assert "spike_steps" in errors
    assert runner.SEEDS == 10
