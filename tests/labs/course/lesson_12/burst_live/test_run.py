"""Lesson 12's burst on real queues, as the `burst-live` lab: real beside simulated."""

from __future__ import annotations

import pytest

from labs.course.lesson_12.burst_live import run as burst_live
from labs.runners.experiment import SETUP_S
from tests.lab_helpers import default_result, lab, refusal


@pytest.mark.redis
def test_it_draws_the_real_backlog_and_age_beside_the_simulation_of_the_same_input():
    result = default_result("burst-live")
    s = result["summary"]
    # The lesson's model of this input: fixed 3 peaks at 1,500; scaled at 800 with 8 workers.
    assert (s["sim_peak_backlog_fixed"], s["sim_peak_backlog_scaled"]) == (1500, 800)
    assert s["sim_most_workers_scaled"] == 8
    # The real queues follow it. A busy machine slows real workers (never speeds them up),
    # so only the lower bounds are tight; scaling must still beat the fixed pool.
    assert 1400 <= s["peak_backlog_fixed"] <= 2900
    assert 750 <= s["peak_backlog_scaled"] < s["peak_backlog_fixed"]
    assert s["most_workers_scaled"] > s["most_workers_fixed"] == 3
    assert s["oldest_age_max_lesson_s_scaled"] < s["oldest_age_max_lesson_s_fixed"]
    [chart, _] = lab("burst-live").charts(result)
    names = [trace["name"] for trace in chart["data"]]
    assert "fixed pool: real backlog" in names and "fixed pool: simulated backlog" in names
    assert "scaled on backlog: oldest message age (right axis)" in names
    simulated = next(t for t in chart["data"] if t["name"] == "fixed pool: simulated backlog")
    assert max(simulated["y"]) == 1500


def test_it_refuses_a_burst_too_long_or_too_fast_for_the_shared_redis():
    assert (
        "keep it at most 40 s"
        in refusal("burst-live", arrivals=[50] * 20, lesson_second_s=2.0)["lesson_second_s"][0]
    )
    assert (
        "a worker here does at most 2,000"
        in refusal("burst-live", per_worker=500, lesson_second_s=0.1)["per_worker"][0]
    )
    assert (
        "The floor must not be above the ceiling."
        in refusal("burst-live", min_workers=5, max_workers=2)["min_workers"]
    )
    assert "At most 10,000 jobs" in refusal("burst-live", arrivals=[2000] * 6)["arrivals"][0]


def test_the_longest_burst_the_form_allows_fits_its_documented_40_s():
    """The bound's arithmetic: lesson seconds (arrivals + drain) x their length + start-up is
    the run's cost, the form refuses any cost over 40 s, so no allowed burst is longer."""
    burst = lab("burst-live")
    base = burst.defaults()
    longest = base | {"arrivals": [50] * 30, "lesson_second_s": 38 / 32}
    assert burst.cost(longest).seconds == pytest.approx(
        (30 + burst_live.EXTRA_SECONDS) * 38 / 32 + SETUP_S
    )
    assert burst.cost(longest).seconds <= burst_live.MAX_WALL_S == 40
    assert "lesson_second_s" not in burst.check(longest)
    over = longest | {"lesson_second_s": 1.19}
    assert burst.cost(over).seconds > 40
    assert "plus 2 s to start and clean up" in burst.check(over)["lesson_second_s"]
    for seconds in range(1, 31):
        for tenths in range(1, 21):
            params = base | {"arrivals": [1] * seconds, "lesson_second_s": tenths / 10}
            allowed = "lesson_second_s" not in burst.check(params)
            assert allowed == (burst.cost(params).seconds <= 40)
