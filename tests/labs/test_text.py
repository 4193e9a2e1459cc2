"""labs.text: how a value is written in a sentence a student reads."""

from __future__ import annotations

from labs.text import num_or_dash


def test_it_writes_a_figure_that_did_not_happen_as_a_dash():
    assert num_or_dash(None) == "—"


def test_it_writes_zero_and_other_figures_as_num_does():
    assert num_or_dash(0) == "0"
    assert num_or_dash(0.0) == "0"
    assert num_or_dash(1234.5) == "1,234.5"
