"""Retries with tenacity against a flaky service: repeatable under a seed, fees charged once."""

from __future__ import annotations

import pytest

from labs.experiments.flaky import flaky
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis


def test_retries_rescue_most_failures_and_the_counts_repeat_under_the_seed(r):
    params = {"messages": 120, "fail_p": 0.5, "attempts": 3, "visibility_timeout_s": 0.4}
    first = flaky(**params, seed=11)
    again = flaky(**params, seed=11)
    other = flaky(**params, seed=12)
    s = first["summary"]
    keys = ("calls", "failed_calls", "retries", "receives", "made", "dlq")
    assert {k: s[k] for k in keys} == {k: again["summary"][k] for k in keys}
    assert {k: s[k] for k in keys} != {k: other["summary"][k] for k in keys}
    assert s["made"] + s["dlq"] == 120 and s["lost"] == 0
    assert s["retries"] > 0
    assert s["calls"] == s["receives"] + s["retries"]  # every try after the first waited
    assert 0.35 <= s["first_try_ok_share"] <= 0.65  # p = 0.5
    assert 0.8 <= s["ok_within_attempts_share"] <= 0.95  # 1 - 0.5**3 = 0.875
    assert s["max_wait_s"] <= s["longest_possible_wait_s"]
    assert s["duplicate_effects"] == 0 and s["fees_charged"] == s["made"]
    assert_lab_result(r, first)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"fail_p": 1.5}, "fail_p"),
        ({"attempts": 0}, "attempts"),
        ({"messages": 2001}, "messages"),
        ({"max_receives": 0}, "max_receives"),
    ],
)
def test_it_refuses_bad_params_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        flaky(**kwargs)
