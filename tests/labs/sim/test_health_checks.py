"""Lesson 13: shallow checks keep a sick instance; deep ones take every instance out when
the shared database blips; least-outstanding sends a fast-failing instance most traffic."""

from __future__ import annotations

import pytest

from labs.sim.health_checks import shares, simulate

BASE = {
    "instances": 3,
    "seconds": 60,
    "interval_s": 5,
    "unhealthy_after": 2,
    "healthy_after": 3,
    "db_down_from_s": 30,
    "db_down_until_s": 38,
    "healthy_ms": 100.0,
    "sick_ms": 1.0,
}


def test_a_shallow_check_keeps_the_sick_instance_in():
    rows = simulate(**BASE, check="shallow", balance="round_robin")
    assert all(r.in_rotation == 3 for r in rows)
    assert rows[0].failed_share == pytest.approx(1 / 3)


def test_a_deep_check_takes_every_instance_out_for_longer_than_the_blip():
    rows = simulate(**BASE, check="deep", balance="round_robin")
    out = [r.second for r in rows if r.in_rotation == 0]
    assert out == list(range(35, 50))  # out at the 2nd failed check, back at the 3rd pass
    assert rows[10].in_rotation == 2  # the sick one was taken out at 5 s


def test_least_outstanding_gives_a_fast_failing_instance_nearly_everything():
    assert shares([1, 100, 100], "least_outstanding")[0] == pytest.approx(1 / 1.02)
    assert shares([1, 100, 100], "round_robin") == pytest.approx([1 / 3] * 3)


def test_it_refuses_no_instances():
    with pytest.raises(ValueError):
        simulate(**(BASE | {"instances": 0}), check="deep", balance="round_robin")
