"""The `target-tracking` lab: the worker tier on backlog per instance against CPU, and the
tier table the run prints."""

from __future__ import annotations

from labs.text import said
from tests.lab_helpers import headline, lab, run


def test_at_the_lessons_defaults_backlog_per_instance_keeps_the_wait_and_cpu_lags():
    s = run("target-tracking")["summary"]
    assert (s["target_per_instance"], s["ms_per_message"]) == (100, 10)
    assert (s["by_backlog_peak_backlog"], s["by_backlog_most_workers"]) == (800, 8)
    assert (s["by_backlog_late_s"], s["by_backlog_cleared_at_s"]) == (0, 6)
    assert (s["by_cpu_peak_backlog"], s["by_cpu_peak_age_s"], s["by_cpu_late_s"]) == (1700, 3, 4)
    assert (s["api_most_instances"], s["api_peak_waiting"]) == (2, 0)


def test_the_headline_derives_the_target_and_says_cpu_lagged():
    text = headline("target-tracking", run("target-tracking"))
    assert "so the target is 1 s ÷ 10 ms = 100 messages per worker." in text
    assert "CPU lagged:" in text and "peaked at 1,700 against 800" in text
    assert "and no request waited for a copy." in text


def test_io_bound_workers_mislead_the_cpu_policy():
    result = run("target-tracking", busy_cpu_pct=5.0)
    text = headline("target-tracking", result)
    assert result["summary"]["by_cpu_most_workers"] == 1
    assert "CPU misled: the workers never showed more than 5% CPU, under the 60% target" in text


def test_a_slow_api_tier_makes_requests_wait_and_says_so():
    result = run("target-tracking", api_per_instance=200)
    waiting = result["summary"]["api_peak_waiting"]
    assert waiting > 0
    assert f"at the peak {waiting:,} requests waited for a copy." in headline(
        "target-tracking", result
    )


def test_a_low_ceiling_is_named_when_backlog_per_instance_is_late():
    text = headline("target-tracking", run("target-tracking", max_workers=4))
    assert "the pool reached its most, 4 workers, and messages still waited longer" in text


def test_the_tier_table_says_each_tier_its_signal_and_what_the_run_showed():
    rows = [
        [said(cell) for cell in row] for row in run("target-tracking")["tables"]["tiers"]["rows"]
    ]
    assert rows[0][:2] == ["API: answers and queues the job", "copies on CPU, target 60%"]
    assert rows[1][1] == "backlog per instance, target 100 (1 s ÷ 10 ms)"
    assert rows[1][3].endswith("every message within 1 s")
    assert rows[2][3].endswith("4 seconds ended with a message older than 1 s")
    assert all("DLQ depth" in row[2] for row in rows[1:])


def test_the_charts_draw_both_policies_and_the_acceptable_wait():
    result = run("target-tracking")
    backlog, pool, age = lab("target-tracking").charts(result)
    assert [t["y"] for t in backlog["data"]] == [
        result["series"]["by_backlog_backlog"],
        result["series"]["by_cpu_backlog"],
    ]
    assert pool["data"][2]["y"] == result["series"]["api_instances"]
    assert age["layout"]["shapes"][0]["y0"] == 1


def test_in_production_the_target_follows_the_students_wait():
    snippet = lab("target-tracking").in_production(
        lab("target-tracking").defaults() | {"acceptable_latency_s": 3}
    )[0]
    assert '"TargetValue": 300,' in snippet.text
    assert "GroupInServiceInstances" in snippet.text
