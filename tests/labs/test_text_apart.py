"""Numbers read side by side never look equal when they differ (issue 34: "0.01 → 0" for
0.94 % → 0.55 %, cascade's "ranged from 0.01 to 0.01")."""

from __future__ import annotations

import pytest

from labs.text import nums_apart

pytestmark = pytest.mark.nodb


def test_shares_are_said_in_percent_with_places_enough_to_tell_them_apart():
    assert nums_apart([0.0094, 0.0055], percent=True) == ["0.94 %", "0.55 %"]
    assert nums_apart([0.0101, 0.0104, 0.0101], percent=True) == ["1.01 %", "1.04 %", "1.01 %"]


def test_different_values_get_more_places_and_equal_ones_read_the_same():
    assert nums_apart([0.012, 0.014]) == ["0.012", "0.014"]
    assert nums_apart([12.5, 12.5, 13.0]) == ["12.5", "12.5", "13"]
    assert nums_apart([1200.0, 1350.0]) == ["1,200", "1,350"]
    assert nums_apart([3, 4, 5]) == ["3", "4", "5"]
    low, high = nums_apart([0.1000001, 0.1000002])
    assert low != high
