"""`Lab.of`: a lab built from what its runner declares (`LabRunner`) and its entry's words."""

from __future__ import annotations

import importlib

from labs.catalogue.entries import LABS
from labs.catalogue.lab import EXPERIMENT_TIME_LIMIT_S, Lab
from labs.catalogue.spread import OVER_SEEDS
from labs.experiments.limits import MAX_WALL_S
from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.spread import Spread

ENTRY = {"slug": "toy", "unit": "lesson-07", "title": "Toy", "intro": "A toy."}


def toy_charts(result):
    return [{"data": [], "layout": {"title": "toy"}}]


def toy_runner(**declared) -> LabRunner:
    return LabRunner(
        params=(Param("n", "N", "int", 3, "How many.", min=1, max=9),),
        run=lambda params, seed, progress: {"summary": {"total": params["n"]}, "series": {}},
        headline=lambda result: ["toy"],
        figures=(Figure("total", "Total", "int"),),
        **declared,
    )


def test_a_simulation_takes_its_params_figures_and_functions_from_the_runner():
    toy = toy_runner(check=lambda params: {})
    lab = Lab.of(toy, charts=toy_charts, **ENTRY)
    assert (lab.params, lab.figures, lab.run, lab.headline, lab.check, lab.charts) == (
        toy.params,
        toy.figures,
        toy.run,
        toy.headline,
        toy.check,
        toy_charts,
    )
    assert (lab.kind, lab.uses_seed, lab.keeps_dlq, lab.time_limit_s) == ("sim", False, False, 30)


def test_an_experiment_gets_the_limit_above_the_experiments_own_stop_and_says_why_it_stopped():
    toy = toy_runner(kind="experiment", keeps_dlq=True, uses_seed=True)
    lab = Lab.of(toy, charts=toy_charts, **ENTRY)
    assert (lab.kind, lab.keeps_dlq, lab.uses_seed, lab.check) == ("experiment", True, True, None)
    assert lab.time_limit_s == EXPERIMENT_TIME_LIMIT_S > MAX_WALL_S
    assert lab.headline is not toy.headline  # wrapped: a stopped run's headline says why


def test_the_runners_own_seed_and_time_limit_win_over_the_defaults():
    lab = Lab.of(toy_runner(default_seed=42, time_limit_s=60), charts=toy_charts, **ENTRY)
    assert (lab.default_seed, lab.time_limit_s) == (42, 60)


def test_a_random_lab_that_declares_a_spread_gets_the_twenty_seeds():
    lab = Lab.of(toy_runner(uses_seed=True, spread=Spread("total")), charts=toy_charts, **ENTRY)
    assert lab.params[-1] == OVER_SEEDS
    result = {"summary": {"total": 3}, "series": {}, "params": {"n": 3}, "seed": 1}
    assert lab.charts(result)[0] == toy_charts(result)[0]


def test_every_lab_is_built_from_its_own_folders_runner():
    for lab in LABS:
        folder = f"labs.course.{lab.unit.replace('-', '_')}.{lab.slug.replace('-', '_')}"
        runner = importlib.import_module(f"{folder}.run").RUNNER
        assert importlib.import_module(f"{folder}.lab").LAB is lab
        assert lab.figures == runner.figures and lab.kind == runner.kind, lab.slug
        if runner.spread is None:  # a spread wraps the run in its 20 seeds
            assert lab.run is runner.run, lab.slug
