"""`Lab.from_runner`: what a runner module declares once, and an entry may not say again."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from labs.catalogue.lab import EXPERIMENT_TIME_LIMIT_S, Lab
from labs.experiments.limits import MAX_WALL_S
from labs.interface.figures import Figure
from labs.interface.params import Param

ENTRY = {"slug": "toy", "unit": "lesson-07", "title": "Toy", "intro": "A toy.", "charts": list}


def runner(**declared):
    return SimpleNamespace(
        __name__="labs.runners.toy",
        PARAMS=(Param("n", "N", "int", 3, "How many.", min=1, max=9),),
        FIGURES=(Figure("total", "Total", "int"),),
        run=lambda params, seed, progress: {"summary": {"total": params["n"]}, "series": {}},
        headline=lambda result: [],
        **declared,
    )


def test_a_simulation_takes_its_params_figures_and_functions_from_the_runner():
    toy = runner(check=lambda params: {})
    lab = Lab.from_runner(toy, **ENTRY)
    assert (lab.params, lab.figures, lab.run, lab.headline, lab.check) == (
        toy.PARAMS,
        toy.FIGURES,
        toy.run,
        toy.headline,
        toy.check,
    )
    assert (lab.kind, lab.uses_seed, lab.keeps_dlq, lab.time_limit_s) == ("sim", False, False, 30)


def test_an_experiment_gets_the_limit_above_the_experiments_own_stop():
    lab = Lab.from_runner(runner(KIND="experiment", KEEPS_DLQ=True, USES_SEED=True), **ENTRY)
    assert (lab.kind, lab.keeps_dlq, lab.uses_seed, lab.check) == ("experiment", True, True, None)
    assert lab.time_limit_s == EXPERIMENT_TIME_LIMIT_S > MAX_WALL_S


def test_the_runners_own_seed_and_time_limit_win_over_the_defaults():
    lab = Lab.from_runner(runner(DEFAULT_SEED=42, TIME_LIMIT_S=60), **ENTRY)
    assert (lab.default_seed, lab.time_limit_s) == (42, 60)


def test_an_entry_may_not_declare_again_what_the_runner_declares():
    with pytest.raises(TypeError, match="labs.runners.toy declares time_limit_s already"):
        Lab.from_runner(runner(), time_limit_s=5, **ENTRY)
