"""Checks for the numbers a student types into a lab form, with the name and bound in the error.

A run shares one Redis server with thirty other students, so every experiment has hard caps
on messages, workers and time; crossing one is a `ValueError`, never a silently clipped run.
"""

from __future__ import annotations

import math

MAX_MESSAGES = 20_000
MAX_WORKERS = 32
MAX_WALL_S = 60.0


def check_int(name: str, value: object, low: int, high: int) -> int:
    """Return `value` if it is a whole number in [low, high]; otherwise name it in a ValueError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number between {low} and {high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")
    return value


def check_float(name: str, value: object, low: float, high: float) -> float:
    """Return `value` as a float if it is a finite number in [low, high]; otherwise a ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number between {low} and {high}, got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")
    return number
