"""The capstone on a real Redis, as the `trapped-live` lab: form, figures, charts, headline."""

from __future__ import annotations

import pytest

from labs.capstone import report as reports
from labs.capstone.operator import obligations_view
from tests.lab_helpers import SHORTER, default_result, headline, lab, refusal, run


@pytest.mark.redis
def test_it_reports_the_models_figures_for_a_live_run_left_alone():
    result = default_result("trapped-live")
    s = result["summary"]
    assert s["recovered"] is False and s["model_recovered"] is False
    assert s["goodput_after_rps"] < 0.2 * s["goodput_before_rps"]
    assert s["obligations_accounted"] is True and s["obligations_lost"] == 0
    assert s["time_scale"] == 0.2 and s["keys_left"] == 0
    text = headline("trapped-live", result)
    assert "one simulated second lasted 0.2 s" in text
    assert "the service stayed trapped" in text
    assert "The model, given the same params, stayed trapped" in text
    charts = lab("trapped-live").charts(result)
    names = {trace["name"] for chart in charts for trace in chart["data"]}
    assert {"backlog (real)", "backlog in the model", "p99", "wasted (caller gone)"} <= names
    # The capstone's operator view reads the live ledger like the model's.
    view = obligations_view(result)
    assert sum(row["count"] for row in view["counts"]) == view["total"] == s["obligations_total"]
    assert view["accounted"] is True


def test_its_defaults_last_between_one_and_two_minutes_and_say_the_scale():
    chosen = lab("trapped-live")
    d = chosen.defaults()
    assert 60 <= d["horizon_s"] * d["time_scale"] <= 120
    assert chosen.time_limit_s > d["horizon_s"] * d["time_scale"]
    assert "faster than in the model" in chosen.intro
    assert "cost_spread" not in d and "discipline" not in d


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"time_scale": 0.5}, "time_scale", "a live run may take at most 100 s"),
        ({"spike_rps": 300}, "spike_rps", "the shared Redis takes at most 1,000"),
        ({"workers": 16, "service_ms": 10}, "workers", "Use fewer workers"),
        ({"client_timeout_ms": 100, "time_scale": 0.1}, "client_timeout_ms",
         "keep it at least 20 ms"),
        ({"trigger_end_s": 50, "trigger_start_s": 60}, "trigger_end_s",
         "The trigger must end at or after it starts"),
        ({"drop_payments": True, "reconcile_payments": True}, "drop_payments", "Not both"),
    ],
)  # fmt: skip
def test_it_refuses_bad_params_at_the_form_in_plain_words(changes, field, words):
    errors = refusal("trapped-live", **changes)
    assert any(words in message for message in errors[field]), errors


def test_it_refuses_values_past_the_live_bounds_at_the_field():
    assert refusal("trapped-live", workers=20)["workers"]
    assert refusal("trapped-live", queue_limit=6000)["queue_limit"]
    assert refusal("trapped-live", time_scale=0.05)["time_scale"]


@pytest.mark.redis
def test_the_before_after_report_reads_two_live_runs_and_judges_the_after_one():
    before = default_result("trapped-live")
    after = run(
        "trapped-live",
        seed=7,
        **SHORTER["trapped-live"]
        | {"recover_at_s": 20, "drop_expired": True, "limit_retries": True,
           "reconcile_payments": True},
    )  # fmt: skip
    built = reports.build(
        {"id": "b", "owner": "alice", "result": before},
        {"id": "a", "owner": "alice", "result": after},
    )
    assert built["lab"] == "trapped-live"
    steps = {step["key"]: step["verdict"] for step in built["procedure"]}
    assert steps["reconcile-payments"] == "worked"
    # The wasted share of a real queue run in shortened real time moves with the machine's
    # stalls (a completion delayed past its caller's timeout): the report must judge it by
    # the figure it shows, and the control must have dropped expired work on the queue.
    measured = reports.measure(after)
    wasted_ok = measured["wasted_share_after"] <= reports.MAX_WASTED_SHARE
    assert steps["drop-expired"] == ("worked" if wasted_ok else "did not work")
    assert measured["expired_dropped_after"] > 0
    compared = {row["figure"]: row for row in built["compared"]}
    assert compared["Recovered"]["before"] is False
    # Whether the real queue recovered within its shortened real time is the machine's speed
    # (a loaded laptop stalls completions past their callers' timeouts): the report must say
    # what the run counted, and the model, given the same params, must recover.
    assert compared["Recovered"]["after"] is after["summary"]["recovered"]
    assert after["summary"]["model_recovered"] is True
    assert compared["Payments lost"]["after"] == 0
    assert "python manage.py lab run trapped-live --seed 7" in built["runs"]["after"]["command"]


@pytest.mark.redis
def test_the_live_view_draws_every_flow_the_operator_watches():
    result = default_result("trapped-live")
    series = result["series"]
    samples = [dict(zip(series, row, strict=True)) for row in zip(*series.values(), strict=True)]
    samples[20]["switched"] = "drop_expired on"
    shown = lab("trapped-live").live.present(samples, result["params"])
    names = {trace["name"] for trace in shown["figure"]["data"]}
    assert {
        "new requests a second",
        "retries a second",
        "useful answers a second",
        "wasted answers a second",
        "backlog (real)",
        "age of the oldest request (s)",
        "wait of answered, p50 (s, right)",
        "wait of answered, p99 (s, right)",
    } <= names
    notes = [note["text"] for note in shown["figure"]["layout"]["annotations"]]
    assert "drop_expired on" in notes
