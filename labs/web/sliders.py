"""The range slider beside a number box: which stretch of a param's bounds it covers, and how.

A param's bounds say what a run accepts (`per_worker` 1 to 100,000); a slider over all of
that would put the lesson's 100 at the far left, one pixel from 1. So a slider covers the
*useful* range around the lesson's value, on a logarithmic track when the lesson's value
sits in the bottom thirtieth of the bounds (a value that matters from 1 to 10,000), and
the box beside it still takes any value the bounds allow. The browser maps positions to
values (`static/labs/controls.js`), from the spec written here on the slider's `data-*`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from labs.interface.params import Param

# The lesson's value in the bottom 1/LOG_FROM of the bounds: the track is logarithmic.
LOG_FROM = 30
# A logarithmic track reaches this many times the lesson's value either side of it.
LOG_REACH = 100
# A linear track moves in steps of about 1/LINEAR_STEPS of its length.
LINEAR_STEPS = 100
# A logarithmic track has this many positions per tenfold (each about 10 % further).
PER_DECADE = 24


@dataclass(frozen=True)
class Slider:
    """A slider's track: from `low` to `high`, logarithmic or not, whole numbers or not.

    `zero` puts 0 at the left end of a logarithmic track (which cannot reach 0 itself),
    then `low` one position on. `step` is a linear track's grid; `positions` how many
    places the thumb can stop at (0 to positions). `mark` is the lesson's value.
    """

    low: float
    high: float
    log: bool
    whole: bool
    zero: bool
    step: float
    positions: int
    mark: float
    # A value that matters in its last nines (99.9 %, 99.99 % of 100): the logarithmic
    # track measures the distance below this bound instead (`low`, `high` are distances).
    below: float | None = None

    @property
    def scale(self) -> str:
        if not self.log:
            return "linear"
        return "log" if self.below is None else "log-below"

    def data(self) -> dict[str, str]:
        """The `data-*` attributes the browser maps positions to values with."""
        return {
            "data-low": _plain(self.low),
            "data-high": _plain(self.high),
            "data-scale": self.scale,
            "data-below": "" if self.below is None else _plain(self.below),
            "data-whole": "1" if self.whole else "0",
            "data-zero": "1" if self.zero else "0",
            "data-step": _plain(self.step),
            "data-mark": _plain(self.mark),
        }


def slider_for(param: Param) -> Slider | None:
    """The slider for a number param, or None for lists, choices, switches and unbounded
    numbers (and for a range too short to slide, like 0 to 0)."""
    if param.kind not in ("int", "float") or param.min is None or param.max is None:
        return None
    low, high, mark = float(param.min), float(param.max), float(param.default)
    whole = param.kind == "int"
    if high <= low:
        return None
    if low < mark < high and (high - low) >= LOG_FROM * (high - mark) and not whole:
        return _nines_slider(low, high, mark)
    if _wants_log(low, high, mark, whole):
        return _log_slider(low, high, mark, whole)
    step = _nice(max((high - low) / LINEAR_STEPS, 1.0 if whole else 0.0))
    positions = max(1, math.ceil((high - low) / step))
    return Slider(low, high, False, whole, False, step, positions, mark)


def _wants_log(low: float, high: float, mark: float, whole: bool) -> bool:
    """The lesson's value near the bottom of a range that spans tenfolds."""
    if mark > low:
        return (high - low) >= LOG_FROM * (mark - low)
    if low > 0:  # the lesson starts at the bound itself: 1 of 1 to 100
        return high / low >= LOG_FROM
    return whole and high >= 100  # 0 of 0 to 999 lost workers; 0 of 0 to 0.9 is linear


def _nines_slider(low: float, high: float, mark: float) -> Slider:
    """99.9 of 0 to 100: a logarithmic track on the distance below 100 (10, 1, 0.1 ...)."""
    gap = high - mark
    near = gap / LOG_REACH
    far = min(high - low, gap * LOG_REACH)
    positions = max(2, round(math.log10(far / near) * PER_DECADE)) + 1
    return Slider(near, far, True, False, True, 0.0, positions, mark, below=high)


def _log_slider(low: float, high: float, mark: float, whole: bool) -> Slider:
    zero = low <= 0
    floor = 1.0 if whole else high / 10_000
    start = max(low, mark / LOG_REACH, floor if zero else low)
    # With nothing to centre on (a lesson's 0), the first three tenfolds above the floor.
    end = min(high, start * 1000) if mark <= 0 else min(high, mark * LOG_REACH)
    start = max(start, 1.0) if whole else start
    if end <= start:
        end = high
    decades = math.log10(end / start)
    positions = max(2, round(decades * PER_DECADE)) + (1 if zero else 0)
    return Slider(start, end, True, whole, zero, 0.0, positions, mark)


def _nice(x: float) -> float:
    """The nearest of 1, 2 and 5 times a power of ten at or below `x` (0.01, 0.2, 50 ...)."""
    if x <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(x))
    for factor in (5, 2, 1):
        if factor * power <= x:
            return factor * power
    return power


def _plain(x: float) -> str:
    """A number as the browser reads it back: 100 rather than 100.0, no exponent."""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.10f}".rstrip("0").rstrip(".")
