"""The capstone's trapped service on the real Redis: the trap, the way out, the payments.

Each run here is 40 model seconds at 0.2 s of wall time each (8 s): a trigger from 5 s to
15 s, then 25 s to see whether the service stays stuck. Thread timing on a shared machine
varies, so the checks are the lab's qualitative claims with wide margins, never times.
"""

from __future__ import annotations

import threading
import time

import pytest

from labs.experiments.context import ExperimentContext
from labs.experiments.namespace import Namespace
from labs.experiments.trapped import parse_command, send_command, trapped_live
from labs.experiments.trapped.controls import channel_key
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis

SCALE = 0.2
SHORT = {
    "horizon_s": 40,
    "trigger_start_s": 5,
    "trigger_end_s": 15,
    "recover_at_s": 40,  # no scheduled controls unless a test sets an earlier time
    "payment_share": 0.2,  # enough payments in a short run to count the lost ones
}
FIX = {"drop_expired": True, "limit_retries": True}
# Runs that must recover get 10 more seconds: "recovered" needs the oldest request under
# half the timeout in every second to the end, and a busy machine may stall one of them.
LONGER = {"horizon_s": 50, "recover_at_s": 50}


def _accounted(s: dict) -> None:
    states = ("pending", "unknown", "reconciling", "confirmed", "reconciled", "failed", "lost")
    assert s["obligations_total"] > 0
    assert sum(s[f"obligations_{state}"] for state in states) == s["obligations_total"]
    assert s["obligations_accounted"] is True


def test_left_alone_it_stays_trapped_after_the_trigger(r):
    result = trapped_live(time_scale=SCALE, **SHORT)
    s, series = result["summary"], result["series"]
    assert s["recovered"] is False
    assert s["goodput_before_rps"] > 20
    assert s["goodput_after_rps"] < 0.2 * s["goodput_before_rps"]
    # The queue is full of work nobody waits for, and it is not draining.
    last = series["backlog"][-10:]
    assert min(last) >= 0.8 * 1000
    assert series["oldest_age_s"][-1] > 1.0  # older than the callers' 1 s timeout
    assert s["wasted_share"] > 0.5
    assert s["amplification"] > 2
    assert s["controls_switched"] == 0 and result["tables"]["timeline"] == []
    # The model, given the same params, says the same.
    assert s["model_recovered"] is False
    _accounted(s)
    assert s["obligations_lost"] == 0  # nothing dropped: stuck, not lost
    assert s["worker_errors"] == s["caller_errors"] == 0
    assert len(series["backlog"]) == len(series["model_backlog"]) == 40
    assert_lab_result(r, result)


def test_a_small_trigger_recovers_by_itself(r):
    # 10 extra requests: a fifth of a second of work, well under the 1 s timeout, on a
    # service 60% busy. (Near the border - 2 s of it at 70% busy - the model recovers 20
    # times in 20, the live service on a loaded machine about 5 in 6: a CPU stall adds to
    # the pile. This test is about the small trigger, so it keeps away from the border.)
    small = {"base_rps": 30.0, "spike_rps": 60, "trigger_end_s": 6}
    result = trapped_live(time_scale=0.25, **SHORT | small)
    s = result["summary"]
    assert s["recovered"] is True, result["series"]["oldest_age_s"]
    assert s["goodput_after_rps"] > 0.8 * s["goodput_before_rps"]
    assert max(result["series"]["backlog"][-10:]) < 100
    _accounted(s)
    assert_lab_result(r, result)


def test_operator_switches_while_trapped_recover_it_without_losing_a_payment(r):
    """Commands go on the control channel mid-run, not through the queue or the params."""
    ns = Namespace(ttl_s=120)
    samples: list[dict] = []
    out: dict = {}

    def play() -> None:
        out["result"] = trapped_live(
            time_scale=SCALE,
            context=ExperimentContext(namespace=ns, on_sample=samples.append),
            **SHORT | LONGER,
        )

    runner = threading.Thread(target=play)
    runner.start()
    # Wait until the trigger is over and the queue is full of expired work.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (
        samples and samples[-1]["second"] >= 17 and samples[-1]["oldest_age_s"] > 1.0
    ):
        time.sleep(0.02)
    assert samples[-1]["second"] >= 17, "the run never got trapped"
    for control, value in (
        ("drop_expired", None),
        ("retry_budget", 0.1),
        ("reconcile_payments", None),
    ):
        command = parse_command(control, True, value)
        assert send_command(r, ns, command) is not None
    runner.join(60)
    result = out["result"]
    s = result["summary"]
    timeline = result["tables"]["timeline"]
    assert [e["label"] for e in timeline] == [
        "drop_expired on",
        "retry_budget on (0.1)",
        "reconcile_payments on",
    ]
    assert all(e["source"] == "operator" for e in timeline)
    # Applied while trapped, within a generous bound (the tight figure is in bench/).
    assert all(0 <= e["latency_ms"] < 5000 for e in timeline)
    assert timeline[0]["t_s"] >= 17
    # The first expired request thrown away after "drop expired": the effect, not the stamp.
    assert 0 <= timeline[0]["first_discard_ms"] < 5000
    assert all(0 <= e["effect_ms"] < 5000 for e in timeline)
    # Stamped on the live samples too, so the page's timeline can show it.
    assert any("drop_expired on" in sample["switched"] for sample in samples)
    # Out of the trap and serving again: the queue drained and stayed short, and callers
    # get answers. (The model's stricter "recovered" - healthy in every second to the end -
    # holds in most runs; one CPU stall on a loaded machine can break one second of it.)
    backlog = result["series"]["backlog"]
    assert max(backlog[-15:]) < 100, backlog
    assert s["goodput_last_30s_rps"] > 0.7 * s["goodput_before_rps"], result["series"]["useful"]
    assert s["expired_dropped"] > 100
    assert s["obligations_lost"] == 0
    assert s["obligations_unknown"] == 0
    assert s["obligations_reconciled"] > 0
    _accounted(s)
    assert s["recover_at_s"] == pytest.approx(timeline[0]["t_s"])
    assert_lab_result(r, result)
    assert r.exists(channel_key(ns)) == 0


def test_naive_dropping_recovers_too_but_loses_payments(r):
    result = trapped_live(
        time_scale=SCALE, **SHORT | LONGER | FIX | {"drop_payments": True, "recover_at_s": 20}
    )
    s = result["summary"]
    assert s["recovered"] is True, result["series"]["oldest_age_s"]
    assert s["obligations_lost"] > 0
    _accounted(s)
    assert [e["source"] for e in result["tables"]["timeline"]] == ["schedule"] * 3
    lost = [row for row in result["tables"]["obligations"] if row["state"] == "lost"]
    assert lost and all(row["operation_id"].startswith("pay-") for row in lost)
    assert_lab_result(r, result)


def test_stopping_mid_run_ends_it_early_and_leaves_no_keys(r):
    started = time.monotonic()
    result = trapped_live(
        time_scale=SCALE,
        context=ExperimentContext(should_stop=lambda: time.monotonic() - started > 2),
        **SHORT,
    )
    s = result["summary"]
    assert s["stopped_early"] is True and s["stop_reason"] == "cancelled"
    assert len(result["series"]["backlog"]) < 40
    _accounted(s)
    assert_lab_result(r, result)


def test_a_command_for_a_run_that_is_not_live_is_refused_and_leaves_nothing(r, ns):
    assert send_command(r, ns, parse_command("drop_expired", True)) is None
    assert ns.keys(r) == []


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("no_such", True, None), "no control called"),
        (("drop_expired", "maybe", None), "on or off"),
        (("drop_expired", True, "3"), "takes no value"),
        (("admission_limit", True, "fast"), "must be a number"),
        (("admission_limit", True, "0"), "between 1 and 10000"),
        (("retry_budget", True, "nan"), "between 0 and 1"),
        (("reserve_share", True, "0.95"), "between 0.05 and 0.9"),
    ],
)
def test_bad_commands_are_refused_in_plain_words(args, words):
    with pytest.raises(ValueError, match=words):
        parse_command(*args)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"time_scale": 0.01}, "time_scale"),
        ({"time_scale": 0.5}, "horizon_s x time_scale"),
        ({"spike_rps": 300}, "highest arrival rate"),
        ({"workers": 20}, "workers"),
        ({"queue_limit": 9000}, "queue_limit"),
        ({"cost_spread": 5.0}, "cost_spread"),
        ({"discipline": "lifo"}, "discipline"),
        ({"trigger_end_s": 400}, "trigger_end_s"),
        ({"no_such": 1}, "unknown parameter"),
        ({"seed": -1}, "seed"),
    ],
)
def test_it_refuses_bad_params_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        trapped_live(**kwargs)
