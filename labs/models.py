"""Where Django looks for the app's models; they live with the run lifecycle in `labs.runs`."""

from labs.capstone.analysis import Analysis
from labs.runs.early_guesses import EarlyGuess
from labs.runs.models import Run, RunManager, RunQuerySet
from labs.runs.predictions import Prediction, SeenResult
from labs.runs.shares import SharedSetup

__all__ = [
    "Analysis",
    "EarlyGuess",
    "Prediction",
    "Run",
    "RunManager",
    "RunQuerySet",
    "SeenResult",
    "SharedSetup",
]
