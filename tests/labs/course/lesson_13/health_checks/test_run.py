"""The health-checks lab: the figures of a shallow and a deep check on one timeline."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


def test_deep_checks_leave_no_instance_for_15_s_of_an_8_s_blip():
    result = run("health-checks")
    s = result["summary"]
    assert s["deep_all_out_s"] == 15
    assert s["shallow_sick_share_pct"] == 33.33
    assert "no instance takes traffic for 15 s" in headline("health-checks", result)


def test_fewest_in_progress_sends_98_percent_to_the_sick_instance():
    s = run("health-checks", balance="least_outstanding")["summary"]
    assert s["shallow_sick_share_pct"] == 98.04
    assert s["shallow_failed_pct"] > 95


def test_it_refuses_a_database_back_before_it_went_down():
    assert "db_down_until_s" in refusal("health-checks", db_down_until_s=10)
