"""Assignment 05's drain arithmetic: backlog ÷ net capacity, or never."""

from __future__ import annotations

import pytest

from labs.sim.drain_math import backlog_at, drain_time, net_capacity


def test_the_assignments_two_cases():
    assert net_capacity(50, 20) == 30
    assert drain_time(600, 50, 20) == 20.0
    assert net_capacity(50, 60) == -10
    assert drain_time(600, 50, 60) is None


def test_no_net_capacity_never_drains_and_an_empty_queue_is_done():
    assert drain_time(600, 50, 50) is None
    assert drain_time(0, 50, 60) == 0.0


def test_the_backlog_falls_in_a_straight_line_and_stops_at_zero():
    assert backlog_at(600, 50, 20, 10) == 300
    assert backlog_at(600, 50, 20, 20) == 0
    assert backlog_at(600, 50, 20, 25) == 0
    assert backlog_at(600, 50, 60, 30) == 900


def test_it_refuses_negative_rates():
    with pytest.raises(ValueError):
        drain_time(600, -1, 20)
