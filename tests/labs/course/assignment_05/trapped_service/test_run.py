"""Assignment 05's main lab, `trapped-service`: the trap, the controls, and the payments."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from labs.capstone.pairs import CONTROLS_OFF, pair_params
from labs.course.assignment_05.trapped_service.charts import PAYMENT_COLOURS
from labs.course.assignment_05.trapped_service.run import CONTROLS_GROUP
from labs.sim.capstone import RECOMMENDED_CONTROLS
from labs.web.try_next import try_next_links
from teaching.criteria import parse_line
from tests.lab_helpers import form, headline, lab, refusal, run

DEVANAGARI = re.compile("[\u0900-\u097f]")

NAIVE = {"drop_expired": True, "limit_retries": True, "drop_payments": True}


def test_it_groups_the_form_like_the_assignment():
    groups = [group for group, _ in form("trapped-service").groups()]
    assert groups == ["Workload", "Service", "Clients", "Trigger", CONTROLS_GROUP, "Randomness"]


def test_it_takes_every_default_and_bound_from_the_models_spec():
    p = lab("trapped-service").param("admit_rps")
    assert (p.default, p.min, p.max, p.kind, p.unit) == (90.0, 1, 100000, "float", "/s")
    assert lab("trapped-service").param("discipline").choices == (
        ("fifo", "fifo"),
        ("lifo", "lifo"),
        ("codel", "codel"),
    )


def test_it_keeps_the_service_trapped_long_after_the_spike_with_the_defaults():
    result = run("trapped-service")
    s, series = result["summary"], result["series"]
    assert not s["recovered"]
    # 210 s after the spike ended the queue is still full and nobody gets a useful answer...
    assert series["backlog"][-1] == s["final_backlog"] == 2008
    assert s["final_oldest_age_s"] > 10 and s["goodput_last_30s_rps"] == 0
    # ... because each caller keeps retrying: the loop, not the spike, holds the load up.
    after = slice(100, 300)
    assert sum(series["retries"][after]) > 1.5 * sum(series["arrivals"][after])


def test_it_drains_the_queue_with_the_controls_on():
    s = run("trapped-service", **RECOMMENDED_CONTROLS)["summary"]
    assert (s["recovered"], s["recovered_at_s"], s["final_backlog"]) == (True, 154, 14)
    assert s["goodput_recovered"] and s["obligations_lost"] == 0


def test_it_loses_payments_when_dropping_naively_and_none_when_reconciling():
    naive = run("trapped-service", **NAIVE)["summary"]
    careful = run("trapped-service", **(NAIVE | {"drop_payments": False}), reconcile_payments=True)
    careful = careful["summary"]
    assert naive["obligations_lost"] == 76 and naive["obligations_unknown"] == 294
    assert careful["obligations_lost"] == careful["obligations_unknown"] == 0
    assert careful["obligations_reconciled"] == 370
    # The queue empties the same way in both: only the ledger tells them apart.
    assert naive["final_backlog"] == careful["final_backlog"]
    assert naive["obligations_accounted"] and careful["obligations_accounted"]


def test_it_repeats_a_run_with_the_same_seed_and_not_with_another():
    first = run("trapped-service", seed=9, horizon_s=120, recover_at_s=120)
    assert run("trapped-service", seed=9, horizon_s=120, recover_at_s=120) == first
    assert run("trapped-service", seed=10, horizon_s=120, recover_at_s=120) != first


def test_it_says_the_trap_and_the_recovery_in_words():
    trapped = headline("trapped-service", run("trapped-service"))
    assert (
        "The spike ended at 90 s but the queue was still 2,008 deep at 300 s, and its oldest "
        "request had waited 19.9 s: the service stayed trapped." in trapped
    )
    assert "Controls on: none." in trapped
    assert "860 unknown (nobody in charge)" in trapped
    assert (
        "139/s more arriving than the workers could finish. The estimate said it would never "
        "drain, and it did not: admitted work stayed at or above useful capacity." in trapped
    ), trapped
    assert trapped.count("never drain") == 1  # said once, not again in brackets
    freed = headline("trapped-service", run("trapped-service", **RECOMMENDED_CONTROLS))
    assert "With the controls on from 150 s it recovered at 154 s and no payment was lost." in freed
    assert "360 reconciled later" in freed
    assert ". The estimate said it would drain in 167.3 s; it drained in 6 s" in freed
    naive = headline("trapped-service", run("trapped-service", **NAIVE))
    assert "recovered at 156 s and 76 payments were lost." in naive


def test_it_says_when_the_service_recovers_by_itself():
    text = headline("trapped-service", run("trapped-service", spike_rps=120, trigger_end_s=63))
    assert "It recovered by itself at 65 s, 2 s after the spike ended." in text


def test_it_marks_the_trigger_and_the_controls_on_the_timelines():
    flows, backlog, payments, _ = lab("trapped-service").charts(
        run("trapped-service", **RECOMMENDED_CONTROLS)
    )
    assert [t["name"] for t in flows["data"]] == [
        "new requests",
        "retries",
        "completions (all)",
        "useful completions (caller still waiting)",
    ]
    trigger, controls, *_ = backlog["layout"]["shapes"]
    assert (trigger["x0"], trigger["x1"]) == (60, 90)
    assert controls["x0"] == controls["x1"] == 150
    assert "controls on at 150 s" in [n["text"] for n in backlog["layout"]["annotations"]]
    assert backlog["data"][1]["yaxis"] == "y2" and "yaxis2" in backlog["layout"]
    assert [t["line"]["color"] for t in payments["data"]] == list(PAYMENT_COLOURS.values())
    assert {t["stackgroup"] for t in payments["data"]} == {"payments"}


def test_it_says_no_control_was_on_at_recover_at_s():
    backlog = lab("trapped-service").charts(run("trapped-service"))[1]
    # A long note is broken in two lines on the chart (<br>): read as words.
    notes = [n["text"].replace("<br>", " ") for n in backlog["layout"]["annotations"]]
    assert "controls set for 150 s (none switched on)" in notes


def test_it_shows_the_models_cross_field_rules_next_to_the_field():
    assert (
        "The trigger must end at or after it starts"
        in refusal("trapped-service", trigger_end_s=50)["trigger_end_s"][0]
    )
    both = refusal("trapped-service", drop_payments=True, reconcile_payments=True)
    assert "Not both" in both["drop_payments"][0]
    too_big = refusal("trapped-service", base_rps=20000)
    assert "300,000" in too_big["horizon_s"][0]


def test_it_pairs_the_form_with_the_controls_off_then_on():
    defaults = lab("trapped-service").defaults()
    before, after = pair_params(defaults)
    assert before == defaults | CONTROLS_OFF
    assert after == defaults | RECOMMENDED_CONTROLS
    ticked = defaults | {"drop_expired": True, "limit_retries": True}
    before, after = pair_params(ticked)
    assert not before["drop_expired"] and not before["limit_retries"]
    assert after == ticked  # the student's own choice, not the recommended set


def test_it_charts_how_long_answered_callers_waited_against_the_timeout():
    result = run("trapped-service", **RECOMMENDED_CONTROLS)
    latency = lab("trapped-service").charts(result)[3]
    p50, p99, call = latency["data"]
    assert p99["y"] == result["series"]["latency_p99_ms"]
    assert call["y"] == result["series"]["call_latency_p99_ms"]
    assert None in p99["y"]  # the trapped seconds: nobody was answered, a gap not a zero
    timeout = [shape for shape in latency["layout"]["shapes"] if shape.get("y0") == 1000.0]
    notes = [note["text"].replace("<br>", " ") for note in latency["layout"]["annotations"]]
    assert timeout and any("timeout (1,000 ms)" in note for note in notes)


def test_it_reports_p99_figures_a_teacher_can_grade_on():
    figures = {figure.name: figure for figure in lab("trapped-service").figures}
    check = parse_line("p99_ms_last_30s < 500", figures)
    trapped = run("trapped-service")["summary"]
    freed = run("trapped-service", **RECOMMENDED_CONTROLS)["summary"]
    assert not check.check(trapped).passed  # nobody answered at all: no value, not a pass
    assert trapped["p99_ms_last_30s"] is None
    assert check.check(freed).passed and freed["p99_ms_last_30s"] < 500
    assert freed["call_p99_ms_after"] >= freed["p99_ms_after"]


def test_only_one_retrying_layer_cuts_27_attempts_a_call_to_3_yet_alone_leaves_it_trapped():
    three = run("trapped-service", retry_layers=3)
    one = run("trapped-service")  # the defaults: only one layer retries
    assert "3 layers each retried: one call could make 3 × 3 × 3 = 27 attempts." in headline(
        "trapped-service", three
    )
    assert "Only one layer retried: one call made at most 3 attempts." in headline(
        "trapped-service", one
    )
    # Measured attempts per new request: about 21 of the 27 allowed, against 2.6 of 3...
    assert three["summary"]["amplification"] == 21.068
    assert one["summary"]["amplification"] == 2.634
    # ... yet 80 new requests/s x 2.6 is still more than the 100/s the workers finish:
    # one retrying layer is necessary, not enough. With no retries at all it gets out.
    assert not three["summary"]["recovered"] and not one["summary"]["recovered"]
    alone = run("trapped-service", max_attempts=1)["summary"]
    assert (alone["recovered"], alone["recovered_at_s"]) == (True, 190)
    # With the recovery controls both drain; three layers still send 5.6 times the attempts.
    freed3 = run("trapped-service", retry_layers=3, **RECOMMENDED_CONTROLS)["summary"]
    freed1 = run("trapped-service", **RECOMMENDED_CONTROLS)["summary"]
    assert (freed3["recovered_at_s"], freed1["recovered_at_s"]) == (153, 154)
    assert (freed3["amplification"], freed1["amplification"]) == (9.9, 1.769)


def test_it_offers_the_way_back_to_one_retrying_layer_after_a_run_with_three():
    chosen = lab("trapped-service")
    values = chosen.defaults() | {"retry_layers": 3}
    questions = [q for q, _ in try_next_links(chosen.slug, chosen.params, chosen.try_next, values)]
    assert any("27 attempts a call become 3" in q for q in questions)
    from_defaults = try_next_links(chosen.slug, chosen.params, chosen.try_next, chosen.defaults())
    assert not any("become 3" in q for q, _ in from_defaults)


@pytest.mark.parametrize("params", [RECOMMENDED_CONTROLS, {}], ids=["controls", "none"])
def test_it_writes_the_chart_notes_in_the_readers_language(params):
    result = run("trapped-service", **params)

    def notes() -> list[str]:
        backlog = lab("trapped-service").charts(result)[1]
        return [n["text"] for n in backlog["layout"]["annotations"]]

    english = notes()
    with translation.override("mr"):
        marathi = notes()
    assert any(n.startswith(("controls on at", "controls set for ")) for n in english)
    assert any("half the timeout" in n for n in english)
    for note in marathi:
        assert not note.startswith("controls on at") and "half the timeout" not in note
        assert "none switched on" not in note
    assert sum(bool(DEVANAGARI.search(n)) for n in marathi) >= 2
