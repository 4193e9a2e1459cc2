"""Where a finished trapped-service run's page leads: the operator view and the report.

The catalogue entry hands `run_links` to `Lab(links=...)`, so the shared run page shows
these without knowing the capstone exists.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext


def run_links(run: Any) -> list[tuple[str, str]]:
    """(words, url) pairs under a finished run's facts."""
    return [
        (gettext("Operator view: the payments"), reverse("run-obligations", args=[run.id])),
        (
            gettext("Compare with another run (before/after report)"),
            f"{reverse('report-pick')}?before={run.id}",
        ),
    ]
