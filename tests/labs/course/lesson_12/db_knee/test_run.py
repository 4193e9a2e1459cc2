"""The database-knee lab: the scaler alone against the same scaler capped at the knee."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, refusal, run


def test_the_scaler_alone_is_trapped_and_the_cap_recovers():
    result = run("db-knee")
    s = result["summary"]
    assert (s["knee_concurrency"], s["peak_db_per_s"]) == (16, 1600.0)
    assert (s["scaled_most_workers"], s["scaled_db_per_s_at_end"]) == (50, 592)
    assert s["scaled_caught_up_at_s"] is None
    assert (s["capped_caught_up_at_s"], s["capped_peak_latency_ms"]) == (19, 10.0)
    assert "back to normal by second 19" in headline("db-knee", result)


def test_a_cap_past_the_knee_drains_slowly():
    s = run("db-knee", cap=30)["summary"]
    assert s["capped_caught_up_at_s"] is None and s["capped_left_at_end"] == 4186


def test_the_snippets_carry_the_cap_and_the_knee():
    chosen = lab("db-knee")
    mapping, keda, pgbouncer, alarm = chosen.in_production(
        chosen.defaults() | {"cap": 12, "knee": 12}
    )
    assert '"MaximumConcurrency": 12' in mapping.text
    compile(mapping.text, "lambda", "exec")
    assert "  maxReplicaCount: 12  # no more than the database's knee" in keda.text.splitlines()
    assert "default_pool_size = 12" in pgbouncer.text
    assert "Threshold=80,  # 80% of max_connections" in alarm.text
    compile(alarm.text, "alarm", "exec")


def test_it_refuses_a_burst_after_the_end():
    assert "burst_from_s" in refusal("db-knee", seconds=10, burst_from_s=10)
