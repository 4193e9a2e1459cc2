"""Lesson 12's burst on the real queue, beside the simulation's figures."""

from __future__ import annotations

import pytest

from labs.experiments.burst import burst
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis


def test_scaling_on_the_real_backlog_beats_three_fixed_workers_as_in_the_lesson(r):
    result = burst(lesson_second_s=0.3, extra_seconds=1)
    s = result["summary"]
    # The simulation's figures, from the same rules and arrivals.
    assert (s["sim_peak_backlog_fixed"], s["sim_left_at_end_fixed"]) == (1500, 150)
    assert (s["sim_peak_backlog_scaled"], s["sim_most_workers_scaled"]) == (800, 8)
    # The real queues: the fixed pool falls behind (its workers can only be slower than the
    # model's) and is still behind when the arrivals end...
    assert s["peak_backlog_fixed"] >= 1300  # sampled, so a little under the true peak
    assert s["left_at_end_fixed"] > 0
    assert s["most_workers_fixed"] == 3
    # ...while the scaled pool, fed the same jobs, keeps the peak lower and ends with less
    # waiting. Compared with each other, not with the clock: a loaded machine slows both;
    # how close each lands to the model is measured by bench/bench_experiments.py.
    assert s["peak_backlog_scaled"] < s["peak_backlog_fixed"]
    assert s["left_at_end_scaled"] < s["left_at_end_fixed"]
    assert 7 <= s["most_workers_scaled"] <= 10
    assert s["oldest_age_max_lesson_s_scaled"] < s["oldest_age_max_lesson_s_fixed"]
    rows = result["tables"]["per_second"]
    assert [row["second"] for row in rows] == list(range(11))
    assert [row["arrived"] for row in rows] == [50, 800, 800, 800, 200, 50, 50, 50, 50, 50, 0]
    assert all(row["workers_fixed"] == 3 for row in rows)
    # Second 1: the scaler saw an empty queue before the burst and ran 1 worker, as the sim.
    assert rows[1]["workers_scaled"] == rows[1]["sim_workers_scaled"] == 1
    assert_lab_result(r, result)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"arrivals": []}, "len\\(arrivals\\)"),
        ({"arrivals": [5001]}, "arrivals\\[0\\]"),
        ({"arrivals": [-1]}, "arrivals\\[0\\]"),
        ({"arrivals": [5000] * 5}, "sum\\(arrivals\\)"),
        ({"per_worker": 0}, "per_worker"),
        ({"per_worker": 2000, "lesson_second_s": 0.2}, "per_worker / lesson_second_s"),
        ({"lesson_second_s": 0.01}, "lesson_second_s"),
        ({"lesson_second_s": 5.0}, "\\(len\\(arrivals\\) \\+ extra_seconds\\)"),
        ({"max_workers": 40}, "max_workers"),
        ({"min_workers": 11}, "min_workers"),
        ({"per_waiting": 0}, "per_waiting"),
    ],
)
def test_it_refuses_bad_params_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        burst(**kwargs)
