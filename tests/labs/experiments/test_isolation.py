"""The provider outage and the standard-against-FIFO experiments leave well-formed results and
no keys behind."""

from __future__ import annotations

import pytest

from labs.experiments.faults import StandInService
from labs.experiments.fifo import fifo_vs_standard
from labs.experiments.isolation import LimitedProvider, Throttled, provider_outage
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis


def test_a_short_outage_run_is_a_clean_lab_result(r):
    result = provider_outage(minutes=5, down_from_min=1, down_for_min=2, alarm_age_min=1)
    assert_lab_result(r, result)
    s = result["summary"]
    assert (s["jobs"], s["front_answered"], s["lost"]) == (150, 150, 0)
    assert s["alarm_fired_min"] is not None


def test_a_small_fifo_run_is_a_clean_lab_result(r):
    result = fifo_vs_standard(2, 3, 2, resend_every=0, poison=False)
    assert_lab_result(r, result)
    assert result["summary"]["fifo_out_of_order"] == 0


def test_the_provider_refuses_a_call_beyond_its_limit():
    provider = LimitedProvider(StandInService(), limit=1)
    provider._busy = 1  # one call in progress
    with pytest.raises(Throttled):
        provider.call("sms-1")
    assert provider.throttled == 1


@pytest.mark.parametrize(
    "changes", [{"minutes": 0.5}, {"workers": 0}, {"minutes": 60, "minute_s": 1.0}]
)
def test_it_refuses_a_run_out_of_bounds(changes):
    with pytest.raises(ValueError):
        provider_outage(**changes)
