"""Every sentence a lab writes about a run holds against that run's figures (issue 36).

For every lab in `labs.catalogue.entries.LABS`, hypothesis draws valid parameters: the
lab's defaults with one to three params changed to random values inside each `Param`'s
bounds, kept only if the lab's own checks and its cost bound accept them (so a run stays
short). The lab runs as the site runs it (`run_lab` with a silent Progress), and every
sentence about the result is read back by `tests/labs/sentence_checks.py`: the headline,
each prediction's "You expected …" and its explanation (`labs.catalogue.prediction.judge`,
with a random guess), and for a random lab the 20-seed line (`labs.catalogue.spread`).

Experiment labs run on the real Redis and take seconds each: they are checked on the
saved results of real runs in tests/fixtures/experiment_results/ (the results the other
experiment tests use), and trapped-live also on results built by its simulated twin,
trapped-service, with random params. "What changed" is written in the browser
(static/labs/drafts.js) from the two runs' facts (`labs.web.changes.facts_json`): the facts
are read back here against each run's figures, and the script's words against random facts
in tests/js/labs/drafts.test.js.
A failure names the lab, the sentence, what is wrong and the parameters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from labs.catalogue.entries import LABS
from labs.catalogue.lab import Lab
from labs.catalogue.prediction import judge
from labs.catalogue.spread import OVER_SEEDS
from labs.course.assignment_05.trapped_live import run as trapped_live
from labs.interface.params import Param
from labs.interface.progress import SilentProgress
from labs.runs.execution import refusals, run_lab
from labs.runs.models import Run
from labs.web.changes import facts_json
from tests.lab_helpers import run
from tests.labs.sentence_checks import problems

pytestmark = pytest.mark.nodb

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "experiment_results"
SIMULATIONS = [lab for lab in LABS if lab.kind == "sim"]
EXPERIMENTS = [lab for lab in LABS if lab.kind == "experiment"]
# Switches that repeat the whole run over more seeds: drawn by their own test below.
REPEATS = {OVER_SEEDS.name, "ten_seeds"}
EXAMPLES = 8  # per lab: 36 labs x 8 runs stay within a couple of minutes
BUDGET_S = 1.5  # a drawn run's bound on worker time (the lab's own cost function)


def _value(param: Param) -> st.SearchStrategy[Any]:
    low, high = param.min, param.max
    if param.kind == "bool":
        return st.booleans()
    if param.kind == "choice":
        return st.sampled_from([value for value, _ in param.choices])
    if param.kind in ("int", "int_list"):
        one: st.SearchStrategy[Any] = st.integers(int(low or 0), int(high or 1000))
    else:
        one = st.floats(low or 0.0, high or 1000.0, allow_nan=False).map(lambda v: round(v, 2))
        one = one.filter(lambda v: (low is None or v >= low) and (high is None or v <= high))
    if param.kind.endswith("_list"):
        return st.lists(one, min_size=1, max_size=param.max_items or 1)
    return one


@st.composite
def params_of(draw: st.DrawFn, lab: Lab) -> dict[str, Any]:
    """The lab's defaults with one to three params redrawn inside their bounds."""
    free = [p for p in lab.params if p.name not in REPEATS]
    chosen = draw(
        st.lists(st.sampled_from(free), min_size=1, max_size=3, unique_by=lambda p: p.name)
    )
    params = lab.defaults() | {p.name: draw(_value(p)) for p in chosen}
    assume(not refusals(lab, params))
    assume(lab.cost is None or lab.cost(params).seconds <= BUDGET_S)
    return params


def sentences_about(lab: Lab, result: dict[str, Any], guesses: list[Any]) -> list[str]:
    """The headline, then each prediction's comparison and explanation."""
    out = list(lab.headline(result))
    for prompt, guess in zip(lab.prompts, guesses, strict=False):
        verdict = judge(prompt, guess, result["summary"], result["params"])
        out += [verdict.compared, verdict.because]
    return out


def guesses_for(lab: Lab, data: st.DataObject) -> list[Any]:
    out = []
    for prompt in lab.prompts:
        if prompt.choices:
            out.append(data.draw(st.sampled_from([c.value for c in prompt.choices])))
        else:
            steps = int(round((prompt.high - prompt.low) / prompt.step))
            out.append(round(prompt.low + data.draw(st.integers(0, steps)) * prompt.step, 6))
    return out


def assert_true_sentences(lab: Lab, result: dict[str, Any], guesses: list[Any]) -> None:
    # A guess and the prompt's outcome (a share as a percentage) are figures of the sentence.
    outcomes = [prompt.outcome(result["summary"]) for prompt in lab.prompts]
    extra = [
        v for v in [*guesses, *outcomes] if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    wrong = problems(lab.slug, result, sentences_about(lab, result, guesses), extra)
    assert not wrong, (
        f"lab {lab.slug}, params {result['params']}, seed {result.get('seed')}:\n"
        + "\n".join(wrong)
    )


@pytest.mark.parametrize("lab", SIMULATIONS, ids=lambda lab: lab.slug)
def test_every_sentence_of_a_simulated_run_holds(lab: Lab) -> None:
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
    )
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        params = data.draw(params_of(lab))
        seed = data.draw(st.integers(1, 1000)) if lab.uses_seed else lab.default_seed
        result = run_lab(lab, params, seed, SilentProgress())
        assert_true_sentences(lab, result, guesses_for(lab, data))

    check()


@pytest.mark.parametrize("lab", SIMULATIONS, ids=lambda lab: lab.slug)
def test_what_changed_says_each_runs_own_values_and_figures(lab: Lab) -> None:
    """The facts a run's body carries for "What changed": a value for every parameter the
    run had, and every figure's words read back against that run's result."""

    @settings(
        max_examples=3,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
    )
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        params = data.draw(params_of(lab))
        seed = data.draw(st.integers(1, 1000)) if lab.uses_seed else lab.default_seed
        result = run_lab(lab, params, seed, SilentProgress())
        facts = json.loads(
            facts_json(Run(lab=lab.slug, params=params, seed=seed, result=result), lab)
        )
        assert [name for name, _, _ in facts["params"] if name != "seed"] == [
            p.name for p in lab.params if p.name in params
        ]
        # A value is said as the form shows it (labs.web.changes.value_words: "1000.5" as
        # typed); a figure as the run's own words for it, read back against its result.
        said = [f"{label}: {words}" for _, label, words in facts["figures"]]
        wrong = problems(lab.slug, result, said)
        assert not wrong, f"lab {lab.slug}, params {params}, seed {seed}:\n" + "\n".join(wrong)

    check()


@pytest.mark.parametrize("lab", EXPERIMENTS, ids=lambda lab: lab.slug)
def test_every_sentence_of_a_saved_real_run_holds(lab: Lab) -> None:
    saved = json.loads((FIXTURES / f"{lab.slug}.json").read_text())

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        assert_true_sentences(lab, saved, guesses_for(lab, data))

    check()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(
    recover_at_s=st.integers(20, 150),
    spike_rps=st.sampled_from([80.0, 120.0, 200.0]),
    admission=st.booleans(),
)
def test_trapped_live_says_true_things_about_its_simulated_twin(recover_at_s, spike_rps, admission):
    """trapped-live's own headline on a result its simulated twin made (the live figures
    added as the live run adds them): the no-control run every student starts with too."""
    twin = run(
        "trapped-service",
        horizon_s=150,
        recover_at_s=recover_at_s,
        spike_rps=spike_rps,
        admission_limit=admission,
    )
    s = twin["summary"]
    live = {
        **twin,
        "lab": "trapped-live",
        "params": {**twin["params"], "time_scale": 0.4},
        "summary": {
            **s,
            "wall_s": 60.0,
            "model_recovered": s["recovered"],
            "model_peak_backlog": s["peak_backlog"],
            "model_amplification": s["amplification"],
        },
        "tables": {**twin["tables"], "timeline_data": [], "effective_params": twin["params"]},
    }
    wrong = problems("trapped-live", live, trapped_live.headline(live))
    assert not wrong, f"lab trapped-live (twin), params {twin['params']}:\n" + "\n".join(wrong)


SEEDED = [lab for lab in SIMULATIONS if any(p.name in REPEATS for p in lab.params)]


@pytest.mark.parametrize("lab", SEEDED, ids=lambda lab: lab.slug)
def test_the_line_over_many_seeds_holds(lab: Lab) -> None:
    """The 20-seed (or 10-seed) lines at the lab's defaults, against the seeds' own figures."""
    repeat = next(p.name for p in lab.params if p.name in REPEATS)
    params = lab.defaults() | {repeat: True}
    if lab.cost is not None and lab.cost(params).seconds > 20 * BUDGET_S:
        pytest.skip(f"{lab.slug}'s seeds at its defaults are over the budget of this check")
    result = run_lab(lab, params, lab.default_seed, SilentProgress())
    assert_true_sentences(lab, result, [])
