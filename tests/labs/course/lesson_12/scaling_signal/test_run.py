"""The scaling-signal lab: Lesson 12's burst under four scalers, and its real-system settings."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, refusal, run


def test_cpu_never_scales_io_bound_workers_while_backlog_per_worker_does():
    result = run("scaling-signal")
    s = result["summary"]
    assert (s["cpu_most_workers"], s["cpu_left_at_end"], s["cpu_peak_pct"]) == (1, 1950, 5.0)
    # Lesson 12's rule, one worker per 100 waiting, at most 10: peak 800, 8 workers, empty at 6.
    assert (s["per_worker_peak_backlog"], s["per_worker_most_workers"]) == (800, 8)
    assert s["per_worker_cleared_at_s"] == 6
    assert s["depth_left_at_end"] == s["age_left_at_end"] == 0
    assert "the CPU scaler never adds a worker" in headline("scaling-signal", result)


def test_cpu_bound_work_wakes_the_cpu_scaler():
    result = run("scaling-signal", busy_cpu_pct=100.0)
    assert result["summary"]["cpu_most_workers"] == 10
    assert "never adds a worker" not in headline("scaling-signal", result)


def test_the_snippets_carry_the_students_values():
    chosen = lab("scaling-signal")
    keda, alarm, cpu = chosen.in_production(
        chosen.defaults() | {"per_waiting": 40, "age_target_s": 30.0, "cooldown_s": 60}
    )
    assert '        queueLength: "40"  # messages per worker' in keda.text.splitlines()
    assert 'MetricName="ApproximateAgeOfOldestMessage"' in alarm.text
    assert "Threshold=30," in alarm.text
    assert '"ScaleOutCooldown": 60,' in cpu.text
    compile(alarm.text, "alarm", "exec")
    compile(cpu.text, "cpu", "exec")


def test_it_refuses_a_floor_above_the_ceiling():
    assert "min_workers" in refusal("scaling-signal", min_workers=11)
