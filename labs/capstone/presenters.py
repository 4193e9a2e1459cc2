"""What the before/after page shows, worked out once so its template stays simple."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext, pgettext

from labs.capstone import charts as report_charts
from labs.capstone import report as reports
from labs.runs.models import Run
from labs.words.recovery_controls import controls_on


@dataclass
class ReportView:
    """The before/after page: both runs' progress, then the report once both succeeded."""

    before: Run
    after: Run
    report: dict[str, Any] | None = None
    timelines: list[dict[str, Any]] = field(default_factory=list)
    steps: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    problem: str = ""

    @property
    def finished(self) -> bool:
        return self.before.is_finished and self.after.is_finished

    @property
    def sides(self) -> list[tuple[str, Run, list[str]]]:
        """(which, run, the controls it had on), for the facts at the top of the page."""
        return [
            (pgettext("the run of a pair", "Before"), self.before, controls_on(self.before.params)),
            (pgettext("the run of a pair", "After"), self.after, controls_on(self.after.params)),
        ]


def report_facts(run: Run) -> dict[str, Any]:
    """What `labs.capstone.report.build` needs of a saved run."""
    return {"id": str(run.id), "owner": run.owner.get_username(), "result": run.result}


def present_report(before: Run, after: Run) -> ReportView:
    view = ReportView(before=before, after=after)
    failed = [r for r in (before, after) if r.status == Run.Status.FAILED]
    if failed:
        view.problem = gettext("A run of this pair failed, so there is no report: %(error)s") % {
            "error": failed[0].error_text
        }
    elif before.status == after.status == Run.Status.SUCCEEDED:
        view.report = reports.build(report_facts(before), report_facts(after))
        view.timelines = report_charts.timelines(view.report)
        view.steps = [
            (step, report_charts.step_figure(view.report, step["key"]))
            for step in view.report["procedure"]
        ]
    return view
