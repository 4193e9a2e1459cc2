"""A figure knows which values are of its kind."""

from __future__ import annotations

import pytest

from labs.interface.figures import Figure


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        ("int", [0, -3, 800], [1.5, True, "8", None]),
        ("float", [0.5, 3], [True, "0.5", None]),
        ("bool", [True, False], [0, 1, "true", None]),
        ("str", ["fixed"], [1, None]),
    ],
)
def test_it_accepts_only_values_of_its_kind(kind, good, bad):
    figure = Figure("x", "X", kind)
    assert all(figure.accepts(v) for v in good)
    assert not any(figure.accepts(v) for v in bad)


def test_it_accepts_none_only_when_nullable():
    assert Figure("cleared_at_s", "Cleared", "int", nullable=True).accepts(None)
    assert not Figure("cleared_at_s", "Cleared", "int").accepts(None)
