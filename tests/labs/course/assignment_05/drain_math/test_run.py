"""The drain-math lab: the assignment's 20 s and its "never"."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


def test_it_reproduces_the_assignments_twenty_seconds():
    result = run("drain-math")
    assert result["summary"] == {"net_capacity_per_s": 30, "drain_s": 20, "backlog_at_end": 0}
    assert result["series"]["backlog"][:3] == [600, 570, 540]
    assert "600 waiting ÷ 30 a second = 20 s" in headline("drain-math", result)


def test_sixty_arrivals_a_second_never_drain():
    result = run("drain-math", arrivals_per_s=60.0)
    assert result["summary"]["drain_s"] is None
    assert result["summary"]["backlog_at_end"] == 600 + 10 * 60
    assert "never empties" in headline("drain-math", result)


def test_the_sweep_ends_where_the_arrivals_reach_the_capacity():
    sweep = run("drain-math")["tables"]["sweep"]
    times = dict(zip(sweep["arrivals_per_s"], sweep["drain_s"], strict=True))
    assert times[0] == 12  # 600 ÷ 50
    assert times[30] == 30  # 600 ÷ 20
    assert all(t is None for a, t in times.items() if a >= 50)


def test_it_refuses_no_capacity():
    assert "capacity_per_s" in refusal("drain-math", capacity_per_s=0)
