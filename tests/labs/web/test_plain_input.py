"""Number and yes/no fields read only what a student plainly wrote, and say how otherwise."""

from __future__ import annotations

import pytest

from tests.lab_helpers import form

ODD_NUMBERS = ["1_0", "٣", "１２", "१२", "nan", "inf", "1e", "--2", "0x10", "2,5"]


@pytest.mark.parametrize("typed", ODD_NUMBERS)
def test_a_whole_number_field_refuses_anything_but_the_digits_0_to_9(typed):
    filled = form("drain", per_worker=typed)
    assert not filled.is_valid()
    assert "digits 0-9" in " ".join(filled.errors["per_worker"])


@pytest.mark.parametrize("typed", ODD_NUMBERS)
def test_a_decimal_field_refuses_them_too(typed):
    filled = form("backoff", base_ms=typed)
    assert not filled.is_valid()
    assert "digits 0-9" in " ".join(filled.errors["base_ms"])


@pytest.mark.parametrize("typed", ["1_0", "٣", "１２"])
def test_a_list_of_numbers_refuses_them_in_any_place(typed):
    filled = form("drain", arrivals=f"50, {typed}, 800")
    assert not filled.is_valid()
    assert "Value 2" in " ".join(filled.errors["arrivals"])


@pytest.mark.parametrize(("typed", "read"), [("12", 12), (" 12 ", 12), ("+3", 3)])
def test_plain_whole_numbers_still_read(typed, read):
    filled = form("drain", per_worker=typed)
    assert filled.is_valid(), filled.errors
    assert filled.params()["per_worker"] == read


@pytest.mark.parametrize(("typed", "read"), [("2.5", 2.5), ("10", 10.0), ("1.", 1.0)])
def test_plain_decimals_still_read(typed, read):
    filled = form("backoff", base_ms=typed)
    assert filled.is_valid(), filled.errors
    assert filled.params()["base_ms"] == read


@pytest.mark.parametrize(
    ("typed", "read"),
    [("true", True), ("on", True), ("yes", True), ("false", False), ("no", False), ("", False)],
)
def test_yes_no_reads_the_plain_words(typed, read):
    filled = form("trapped-service", limit_retries=typed)
    filled.data = filled.data | {"seed": "5"}
    assert filled.is_valid(), filled.errors
    assert filled.params()["limit_retries"] is read


@pytest.mark.parametrize("typed", ["maybe", "False!", "nein", "2"])
def test_yes_no_refuses_anything_else_instead_of_reading_it_as_yes(typed):
    filled = form("trapped-service", limit_retries=typed)
    filled.data = filled.data | {"seed": "5"}
    assert not filled.is_valid()
    assert "Answer yes or no" in " ".join(filled.errors["limit_retries"])
