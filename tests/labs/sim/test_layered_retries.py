"""Lesson 13: retries at every layer multiply; one layer or a budget does not."""

from __future__ import annotations

import pytest

from labs.sim.layered_retries import outcome


def test_three_layers_of_three_tries_make_27_calls_when_the_service_is_down():
    assert outcome("every_layer", 3, 3, 1.0, 0.1).service_calls == 27
    assert outcome("every_layer", 4, 3, 1.0, 0.1).service_calls == 81


def test_one_retrying_layer_makes_as_many_calls_as_its_tries():
    assert outcome("one_layer", 3, 3, 1.0, 0.1).service_calls == 3


def test_a_ten_percent_budget_holds_each_layer_to_1_1_calls():
    assert outcome("budget", 3, 3, 1.0, 0.1).service_calls == pytest.approx(1.1**3)


def test_a_healthy_service_gets_one_call_whatever_the_policy():
    for policy in ("every_layer", "one_layer", "budget"):
        assert outcome(policy, 3, 3, 0.0, 0.1) == (1.0, 1.0)


def test_with_some_failures_every_layer_answers_most_clicks_and_one_layer_fewer():
    every = outcome("every_layer", 3, 3, 0.5, 0.1)
    one = outcome("one_layer", 3, 3, 0.5, 0.1)
    assert one.success == pytest.approx(1 - 0.5**3)
    assert every.success > one.success
    assert every.service_calls > one.service_calls


def test_it_refuses_a_failure_rate_above_one():
    with pytest.raises(ValueError):
        outcome("budget", 3, 3, 1.5, 0.1)
