"""The before/after report: a recovery procedure written from what two runs measured."""

from __future__ import annotations

import copy
from functools import cache

import pytest

from labs.capstone import report as reports
from labs.capstone.markdown import render
from labs.capstone.pairs import pair_params
from tests.lab_helpers import lab, run

NAIVE = {"drop_expired": True, "limit_retries": True, "drop_payments": True}
STEPS = [
    "stop-amplification",
    "drop-expired",
    "reconcile-payments",
    "admit-below-capacity",
    "reopen",
]
LINKS = {
    "before": "http://x/runs/b/",
    "after": "http://x/runs/a/",
    "before_obligations": "http://x/runs/b/obligations/",
    "after_obligations": "http://x/runs/a/obligations/",
}


@cache
def pair() -> tuple[dict, dict]:
    """The one-click pair on the defaults: controls off, then the recommended set on."""
    before, after = pair_params(lab("trapped-service").defaults())
    return run("trapped-service", **before), run("trapped-service", **after)


def report(before: dict, after: dict) -> dict:
    return reports.build(
        {"id": "b", "owner": "alice", "result": before},
        {"id": "a", "owner": "alice", "result": after},
    )


def verdicts(built: dict) -> dict[str, str]:
    return {step["key"]: step["verdict"] for step in built["procedure"]}


def test_it_finds_every_step_worked_when_the_controls_free_the_service():
    built = report(*pair())
    assert list(verdicts(built)) == STEPS
    assert set(verdicts(built).values()) == {"worked"}
    assert built["worked"] == 5
    assert built["outcome"] == (
        "After the controls went on at 150 s the service recovered at 154 s and no payment "
        "was lost."
    )


def test_it_finds_no_step_worked_for_two_trapped_runs():
    before, _ = pair()
    built = report(before, before)
    assert verdicts(built) == dict.fromkeys(STEPS[:4], "did not work") | {"reopen": "not reached"}
    assert built["outcome"].startswith("After 150 s the service did not recover")


def test_it_puts_the_measured_figure_in_each_step():
    steps = {s["key"]: s for s in report(*pair())["procedure"]}
    amplification = steps["stop-amplification"]
    assert amplification["figure"] == (
        "After 150 s: 0.01 retries per new request. The spare capacity (100/s for 80.7/s of "
        "new requests) can carry at most 0.24."
    )
    assert amplification["before"] == "2 retries per new request"
    assert "1,958 expired items were dropped unserved" in steps["drop-expired"]["figure"]
    assert (
        "0 payments lost, 0 unknown with no owner, 360 reconciled"
        in (steps["reconcile-payments"]["figure"])
    )
    assert (
        "82.8 requests/s let in; safe useful capacity 97.3/s"
        in (steps["admit-below-capacity"]["figure"])
    )
    assert "the limit rose from 90/s to no limit at 186 s" in steps["reopen"]["figure"]
    assert steps["reconcile-payments"]["controls"] == ["reconcile timed-out payments"]


def _after_150(result: dict, name: str, value: float) -> None:
    values = result["series"][name]
    values[150:] = [value] * len(values[150:])


def _more_retries(r):
    _after_150(r, "retries", 300)


def _wasted_work(r):
    # 12 wasted for about 80 useful a second: over the 10% target, while the capacity left
    # for useful work (88%) still exceeds what is let in, so only this step changes.
    _after_150(r, "wasted", 12)


def _lost_payment(r):
    r["summary"]["obligations_lost"] = 1


def _too_much_let_in(r):
    _after_150(r, "admitted", 150)


def _not_healthy_at_the_end(r):
    r["summary"]["recovered"] = False


def _never_drained(r):
    r["summary"]["actual_drain_s"] = None


@pytest.mark.parametrize(
    ("change", "step", "verdict"),
    [
        (_more_retries, "stop-amplification", "did not work"),
        (_wasted_work, "drop-expired", "did not work"),
        (_lost_payment, "reconcile-payments", "did not work"),
        (_too_much_let_in, "admit-below-capacity", "did not work"),
        (_not_healthy_at_the_end, "reopen", "did not work"),
        (_never_drained, "reopen", "not reached"),
    ],
)
def test_it_changes_a_steps_verdict_when_its_figure_changes(change, step, verdict):
    before, after = pair()
    changed = copy.deepcopy(after)
    change(changed)
    built = report(before, changed)
    assert verdicts(built)[step] == verdict
    others = {k: v for k, v in verdicts(built).items() if k != step}
    assert set(others.values()) == {"worked"}


def test_it_fails_the_payments_step_of_a_naive_drop():
    before, _ = pair()
    naive = run("trapped-service", **NAIVE)
    step = next(s for s in report(before, naive)["procedure"] if s["key"] == "reconcile-payments")
    assert step["verdict"] == "did not work"
    assert step["figure"].startswith("At the end: 76 payments lost, 294 unknown with no owner")
    assert step["controls"] == ["drop expired payments too (naive)"]


def test_it_sets_the_drain_estimate_against_the_actual_drain():
    drain = report(*pair())["drain"]
    assert drain["after"] | {"gap": ""} == {
        "at_s": 150,
        "backlog": 2008,
        "net_rps": 12.0,
        "estimate_s": 167.333,
        "actual_s": 6.0,
        "held": False,
        "gap": "",
        "oldest_age_at_start_s": 19.468,
        "healthy_from_s": 154,
    }
    assert "discarded at the dequeue check" in drain["after"]["gap"]
    assert drain["before"]["estimate_s"] is None and drain["before"]["actual_s"] is None


def test_it_says_what_was_simulated():
    built = report(*pair())
    assert built["same_seed"]
    assert built["simulated"][0].startswith("Everything is simulated in one process")
    assert built["simulated"][1] == (
        "Both runs used seed 5 and the same load: the same callers arrived at the same "
        "moments, whatever the controls did."
    )
    assert [c["name"] for c in built["changed_params"]] == [
        "admission_limit",
        "limit_retries",
        "drop_expired",
        "reconcile_payments",
        "reserve_share",
    ]
    assert built["runs"]["after"]["params"]["reserve_share"] == 0.25
    assert len(built["timelines"]["before"]["backlog"]) == 300


def test_it_refuses_a_run_of_another_lab():
    with pytest.raises(ValueError, match="is not a trapped-service or trapped-live run"):
        report(run("job-cost", horizon_s=60, incident_end_s=40), pair()[1])


def test_it_writes_the_figures_into_the_markdown():
    text = render(report(*pair()), title="Report", links=LINKS)
    assert text.startswith("# Report\n")
    assert "| Backlog at the end | 2,008 | 14 |" in text
    assert "| Payments reconciled | 0 | 360 |" in text
    assert "## Recovery procedure (5 of 5 steps worked)" in text
    assert "### 1. Stop the amplification: worked" in text
    assert "- Measured: After 150 s: 0.01 retries per new request." in text
    assert "| after | 150 s | 2,008 | 12/s | 167.3 s | 6 s | no |" in text
    assert "| 150 | 2007 | 57 | 19.661 | 0.797 |" in text  # the timeline, every 10 s
    assert "| 160 | " in text and "| 290 | " in text
    assert "- After: http://x/runs/a/obligations/" in text
    assert "Before (seed 5): `horizon_s=300`, `base_rps=80`" in text
    assert "`admission_limit` false → true" in text and "`reserve_share` 0 → 0.25" in text
    # Students repeat a run with its Re-run button: they have no command line.
    assert "manage.py" not in text and "Re-run with the same parameters and seed" in text
    assert "- Not tried:" not in text and "- Tried: retry budget of 0.1 per new request" in text


def test_it_keeps_pipes_in_a_cell_from_breaking_the_markdown_table():
    built = report(*pair())
    built["compared"][0]["figure"] = "a | b"
    assert "| a \\| b | no | yes |" in render(built, title="R", links=LINKS)


def test_it_judges_nothing_when_the_controls_never_went_on():
    before, _ = pair()
    never = run("trapped-service", horizon_s=120, recover_at_s=120, limit_retries=True)
    built = report(before, never)
    assert set(verdicts(built).values()) == {"not reached"}
    assert built["procedure"][0]["figure"] == "The controls never went on."
    assert built["outcome"].startswith("The controls never went on")


def test_it_says_when_the_after_run_recovered_by_itself():
    mild = run("trapped-service", spike_rps=120, trigger_end_s=63, horizon_s=160)
    built = report(pair()[0], mild)
    assert built["outcome"] == "The service recovered by itself at 65 s, and no payment was lost."


UNLIMITED = {"limit_retries": True, "drop_expired": True, "reconcile_payments": True}


def test_each_step_says_which_of_its_controls_were_tried_and_which_were_not():
    before, _ = pair()
    after = run("trapped-service", **UNLIMITED)
    steps = {s["key"]: s for s in report(before, after)["procedure"]}
    admit, reopen = steps["admit-below-capacity"], steps["reopen"]
    # No admission limit: these two steps worked without one, and say so.
    assert admit["verdict"] == reopen["verdict"] == "worked"
    assert admit["controls"] == [] and admit["not_tried"] == ["an admission limit"]
    assert admit["tried_text"] == (
        "Not tried: an admission limit. "
        "It worked without a control of its own: the others were enough."
    )
    assert reopen["not_tried"] == [
        "an admission limit",
        "raising the admission limit step by step",
    ]
    assert "reopened at once" not in reopen["figure"]
    assert "a gradual reopen was not tried" in reopen["figure"]
    amplification = steps["stop-amplification"]
    assert amplification["controls"] == ["retry budget of 0.1 per new request"]
    assert amplification["tried_text"] == (
        "Tried: retry budget of 0.1 per new request. Not tried: an admission limit."
    )
    # The recommended set tries every step's own controls.
    recommended = report(*pair())["procedure"]
    assert [s["not_tried"] for s in recommended] == [[]] * 5


def test_a_gradual_reopen_is_tried_only_with_an_admission_limit_that_ramps():
    from labs.capstone.report import untried

    limited = {"admission_limit": True, "reopen_ramp_s": 30}
    assert untried("reopen", limited) == []
    assert untried("reopen", limited | {"reopen_ramp_s": 0}) == [
        "raising the admission limit step by step"
    ]


def test_it_says_true_things_about_the_callers_of_the_two_runs():
    before, after = pair()
    # The claim holds in the model: the pair's callers are the same, second by second.
    assert before["series"]["arrivals"] == after["series"]["arrivals"]
    bigger = run("trapped-service", **{**after["params"], "spike_rps": 250.0})
    assert bigger["series"]["arrivals"] != before["series"]["arrivals"]
    line = report(before, bigger)["simulated"][1]
    assert line.startswith("Both runs used seed 5, but their load differs")


def test_it_refuses_to_mix_a_simulated_and_a_live_run():
    live = copy.deepcopy(pair()[1]) | {"lab": "trapped-live"}
    with pytest.raises(ValueError, match="are not of the same lab"):
        report(pair()[0], live)


def test_it_says_a_live_pair_ran_on_a_real_redis():
    facts = {side: {"seed": 5, "params": {"horizon_s": 40}} for side in ("before", "after")}
    live = reports._simulated(facts, "trapped-live")
    assert live[0].startswith("Both runs played the scenario live on a real Redis")
    assert "simulated in one process" not in " ".join(live)
    assert "the operator panel" in live[2]


def test_it_lists_params_in_the_forms_order_whatever_order_the_database_gave():
    """PostgreSQL's jsonb hands keys back sorted by length: the report must not follow it."""
    form_order = list(lab("trapped-service").defaults())
    shuffled = {name: lab("trapped-service").defaults()[name] for name in sorted(form_order)}
    assert list(shuffled) != form_order
    result = {"lab": "trapped-service", "params": shuffled, "tables": {}}
    assert list(reports.run_params(result)) == form_order
