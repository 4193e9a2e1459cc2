"""Assignment 05's phase map: which spikes the service shakes off, and which trap it."""

from __future__ import annotations

from functools import cache

from django.utils import translation

from labs.charts.base import FAILED, OK
from labs.interface.progress import SilentProgress
from labs.runs.execution import run_lab
from tests.lab_helpers import headline, lab, refusal, run

SMALL_MAP = {"spike_steps": 3, "duration_steps": 3, "spike_min_rps": 100, "spike_max_rps": 180}


@cache
def default_map() -> dict:
    """The phase map's default 10 x 10 grid: a few seconds, so run once for the module."""
    return run("phase-map")


def test_it_maps_both_recovered_and_trapped_spikes_with_the_defaults():
    s = default_map()["summary"]
    assert (s["runs"], s["recovered_runs"], s["trapped_runs"]) == (100, 23, 77)
    grid = default_map()["tables"]["grid"]["recovered"][0]
    assert grid[0][0] is True  # 100/s for 1 s: shaken off
    assert grid[-1][-1] is False  # 190/s for 10 s: trapped


def test_it_says_where_the_hidden_capacity_ends():
    text = headline("phase-map", default_map())
    assert "the service shook off 23 by itself and 77 left it trapped" in text
    assert "the smallest spike that trapped it left 0 requests more" in text
    assert "the largest it recovered from left 80" in text


def test_it_colours_each_cell_by_whether_it_recovered():
    result = run("phase-map", **SMALL_MAP)
    heat, threshold = lab("phase-map").charts(result)
    cells = result["tables"]["grid"]["recovered"][0]
    assert heat["data"][0]["z"] == [[1 if ok else 0 for ok in row] for row in cells]
    assert heat["data"][0]["colorscale"][0][1] == FAILED
    assert heat["data"][0]["colorscale"][-1][1] == OK
    assert [t["name"] for t in threshold["data"]] == ["recovered", "trapped"]


def test_it_marks_each_cell_with_a_shape_as_well_as_a_colour():
    result = run("phase-map", **SMALL_MAP)
    heat, threshold = lab("phase-map").charts(result)
    cells = result["tables"]["grid"]["recovered"][0]
    marks = {t["name"]: t for t in heat["data"][1:] if t.get("mode") == "markers"}
    assert {n: marks[n]["marker"]["symbol"] for n in marks} == {
        "recovered": "circle-open",
        "trapped": "x-thin-open",
    }
    assert len(marks["recovered"]["x"]) == sum(ok for row in cells for ok in row)
    assert len(marks["trapped"]["x"]) == sum(not ok for row in cells for ok in row)
    assert "○" in heat["layout"]["title"]["text"] and "×" in heat["layout"]["title"]["text"]
    assert [t["marker"]["symbol"] for t in threshold["data"]] == ["circle", "x"]


def test_it_draws_one_map_per_base_load():
    result = run("phase-map", **SMALL_MAP, base_min_rps=60, base_max_rps=80, base_steps=2)
    figures = lab("phase-map").charts(result)
    assert len(figures) == 3
    assert "Normal load 60/s" in figures[0]["layout"]["title"]["text"]


def test_it_moves_the_progress_bar_after_every_run_of_the_map():
    seen = []

    class Recording(SilentProgress):
        def update(self, done, total, live=None):
            seen.append((done, total))

    chosen = lab("phase-map")
    run_lab(chosen, chosen.defaults() | SMALL_MAP, 5, Recording())
    assert seen == [(n, 9) for n in range(1, 10)]


def test_it_refuses_a_grid_the_model_refuses():
    assert (
        "The largest spike rate must be at least the smallest (150)."
        in refusal("phase-map", spike_min_rps=150, spike_max_rps=100)["spike_max_rps"][0]
    )
    assert (
        "is 1,600 runs, more than 400"
        in refusal("phase-map", spike_steps=40, duration_steps=40)["spike_steps"][0]
    )
    with translation.override("mr"):
        marathi = refusal("phase-map", spike_steps=40, duration_steps=40)["spike_steps"][0]
    assert "1,600" in marathi and "more than" not in marathi


def test_with_one_normal_load_the_highest_is_not_used_and_the_headline_says_so():
    # The first moves of the lesson's normal-load sliders (80 to 80, one load): neither is
    # refused for being the wrong way round, since one load tries the lowest alone.
    higher = run("phase-map", **SMALL_MAP, base_min_rps=89)
    assert higher["tables"]["grid"]["base_rps"] == [89]
    assert headline("phase-map", higher).startswith(
        "With one normal load to try, every run has the lowest, 89 requests/s; the highest "
        "(80) is used only with 2 normal loads or more.\n"
    )
    lower = run("phase-map", **SMALL_MAP, base_max_rps=74)
    assert lower["tables"]["grid"]["base_rps"] == [80]
    assert "the highest (74) is used only with 2 normal loads or more" in headline(
        "phase-map", lower
    )


def test_two_loads_between_equal_ends_are_one_map_and_the_headline_says_so():
    one = run("phase-map", **SMALL_MAP)
    two = run("phase-map", **SMALL_MAP, base_steps=2)
    assert two["tables"] == one["tables"] and two["summary"] == one["summary"]
    assert headline("phase-map", two).startswith(
        "The lowest and highest normal loads are both 80 requests/s, so the map tries that one "
        "load, not 2.\n"
    )
    assert "normal load" not in headline("phase-map", one)


def test_the_spike_ranges_say_the_same_of_one_step_and_of_equal_ends():
    result = run(
        "phase-map",
        spike_min_rps=150,
        spike_max_rps=120,
        spike_steps=1,
        duration_min_s=4,
        duration_max_s=4,
        duration_steps=3,
    )
    grid = result["tables"]["grid"]
    assert (grid["spike_rps"], grid["duration_s"], result["summary"]["runs"]) == ([150], [4], 1)
    text = headline("phase-map", result)
    assert "every run has the smallest spike, 150 requests/s; the largest (120)" in text
    assert "both last 4 s, so the map tries that one duration, not 3." in text
