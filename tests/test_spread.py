"""Noise made visible: a random lab's run over 20 seeds equals 20 runs of one seed each."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import LABS, get_lab
from labs.catalogue.spread import OVER_SEEDS, SEEDS, seeds_after, typical_words
from labs.charts import retry_storm as retry_storm_charts
from labs.interface.figures import Figure
from labs.interface.progress import SilentProgress
from labs.text import SEED_MAX

# Small settings so twenty runs stay quick; the mechanism is the same at any size.
CHEAP = {
    "backoff": {},
    "retry-storm": {"clients": 100, "compare_clients": [200]},
    "job-cost": {},
    "cascade": {"rate_per_s": 20, "duration_s": 30, "down_from_s": 5, "down_until_s": 20},
}


def test_every_simulated_random_lab_offers_its_twenty_seeds():
    offered = {lab.slug for lab in LABS if OVER_SEEDS in lab.params}
    random_sims = {lab.slug for lab in LABS if lab.uses_seed and lab.kind == "sim"}
    assert offered == random_sims - {"phase-map"}  # the map repeats its seeds itself


@pytest.mark.parametrize("slug", sorted(CHEAP))
def test_its_figures_equal_twenty_single_runs(slug):
    lab = get_lab(slug)
    params = {**lab.defaults(), **CHEAP[slug]}
    spread = lab.run({**params, "over_seeds": True}, 40, SilentProgress())
    data = spread["tables"]["seed_spread_data"]
    assert data["seeds"] == list(range(40, 40 + SEEDS))
    singles = [lab.run(params, s, SilentProgress())["summary"] for s in data["seeds"]]
    assert data["values"] == [s[data["figure"]] for s in singles]
    # The run itself is the student's own seed's, with the spread beside it.
    assert spread["summary"] == singles[0]
    assert any(row[1] for row in spread["tables"]["seed_spread"]["rows"])


def test_without_the_box_the_run_is_the_lab_as_before():
    lab = get_lab("retry-storm")
    params = {**lab.defaults(), **CHEAP["retry-storm"]}
    result = lab.run(params, 5, SilentProgress())
    assert "seed_spread" not in result["tables"]
    shown = {**result, "params": params}
    assert lab.charts(shown) == retry_storm_charts.build(shown)  # no spread chart added
    with_spread = lab.run({**params, "over_seeds": True}, 5, SilentProgress())
    assert len(lab.charts({**with_spread, "params": params})) == len(lab.charts(shown)) + 1


def test_its_cost_is_twenty_times_the_labs():
    lab = get_lab("retry-storm")
    one = lab.cost(lab.defaults())
    assert lab.cost({**lab.defaults(), "over_seeds": True}).seconds == pytest.approx(
        one.seconds * SEEDS
    )


def test_seeds_wrap_below_the_largest():
    assert seeds_after(SEED_MAX, 3) == [SEED_MAX, 0, 1]


FIGURE = Figure("busiest_slot", "Busiest slot", "int")


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ([5, 1, 9, 3, 7, 2, 8, 4, 6, 5], "typical"),
        ([9, 1, 2, 3, 4, 5, 6, 7, 8, 5], "highest"),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 5], "lowest"),
        ([4] * 10, "every time"),
    ],
)
def test_it_says_whether_the_students_seed_is_typical(values, says):
    result = {"tables": {"seed_spread_data": {"values": values}}}
    (line,) = typical_words(result, FIGURE)
    assert says in line


def test_it_says_nothing_without_a_spread():
    assert typical_words({"tables": {}}, FIGURE) == []
