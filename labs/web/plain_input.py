"""Reading what a student typed: numbers in the digits 0-9 only, yes/no said plainly.

Python's `int()` and `float()` accept more than a form should: "1_0" (ten), "٣" (an
Arabic-Indic three), "１２" (full-width twelve), " 5 " and "nan". A number field that
took them would run a lab on a value the student never meant, or one a chart cannot
show. So a number is read only by `labs.text.parse_whole` / `parse_decimal` (the one parser
of numbers), and anything else is
refused with words saying how to write it. Yes/no fields read "yes" only from the words
a checkbox or the `lab` command send, and refuse anything else instead of reading it
as yes.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from labs.text import parse_decimal, parse_whole

__all__ = ["decimal_message", "parse_decimal", "parse_whole", "parse_yes_no", "whole_message"]

YES = frozenset({"true", "on", "yes", "1"})
NO = frozenset({"false", "off", "no", "0", ""})


def whole_message() -> str:
    return _("Use a whole number written with the digits 0-9, like 12.")


def decimal_message() -> str:
    return _("Use a number written with the digits 0-9 and a dot for decimals, like 2.5.")


def parse_yes_no(value: object) -> bool:
    """A checkbox's or the command line's yes/no; ValidationError for anything else."""
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    text = str(value).strip().lower()
    if text in YES:
        return True
    if text in NO:
        return False
    raise ValidationError(_("Answer yes or no."), code="invalid")
