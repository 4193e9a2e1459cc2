"""What a random lab shows over 20 seeds: declared by its runner as `SPREAD`.

The catalogue (`labs.catalogue.spread`) reads it and adds the "Also run 20 seeds"
parameter; the runner only names which of its figures and series tell the story.
"""

from __future__ import annotations

from dataclasses import dataclass

from labs.text import gettext_noop


@dataclass(frozen=True)
class Spread:
    """One key figure to show seed by seed, and optionally one series as a band over time."""

    figure: str  # a numeric summary figure
    x: str | None = None  # series names for the band
    y: str | None = None
    x_label: str = gettext_noop("second")  # the band's axis titles (msgids)
    y_label: str = ""
    # A summary figure holding what theory expects of `figure` (the same for every seed):
    # drawn as a level, and the sentence says whether the 20 seeds' range holds it.
    expected: str | None = None
    percent: bool = False  # `figure` is a share: said and drawn as a percentage
