"""Assignment 05, follow-up 2: jobs whose cost varies 100x, and the drain estimates."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, run


def test_it_finds_the_count_estimate_far_too_short_and_the_work_estimate_close():
    s = run("job-cost")["summary"]
    assert (s["count_estimate_s"], s["work_estimate_s"], s["actual_drain_s"]) == (
        39.979,
        426.976,
        418.0,
    )
    text = headline("job-cost", run("job-cost"))
    assert (
        "Counting jobs said the queue would empty in 40 s; counting work units said 427 s; "
        "it really took 418 s." in text
    )
    assert "The oldest expensive job is job-000502" in text


def test_it_estimates_alike_when_every_job_costs_the_same():
    s = run("job-cost", cost_ratio=1, horizon_s=120)["summary"]
    assert s["count_estimate_s"] == s["work_estimate_s"]
    assert s["oldest_expensive_job"] == ""


def test_it_marks_the_estimates_on_the_backlog_chart():
    backlog, ages = lab("job-cost").charts(run("job-cost"))
    notes = [n["text"] for n in backlog["layout"]["annotations"]]
    assert notes == [
        "expensive mix",
        "count estimate: 40 s",
        "work-unit estimate: 427 s",
        "actually drained: 418 s",
    ]
    assert "job-000502" in ages["layout"]["title"]["text"]
