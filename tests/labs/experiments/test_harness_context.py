"""The context every experiment is handed: its sampling bound is checked once, here."""

from __future__ import annotations

import pytest

from labs.experiments.context import (
    LOCAL,
    MAX_SAMPLE_INTERVAL_S,
    MIN_SAMPLE_INTERVAL_S,
    ExperimentContext,
)


@pytest.mark.parametrize("interval_s", [MIN_SAMPLE_INTERVAL_S / 2, MAX_SAMPLE_INTERVAL_S * 2])
def test_it_refuses_a_sampling_interval_out_of_bounds(interval_s):
    with pytest.raises(ValueError, match="sample_interval_s"):
        ExperimentContext(sample_interval_s=interval_s)


def test_the_experiments_own_interval_holds_unless_one_is_asked_for():
    assert LOCAL.interval_s(0.05) == 0.05
    assert ExperimentContext(sample_interval_s=0.2).interval_s(0.05) == 0.2
