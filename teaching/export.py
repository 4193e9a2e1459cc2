"""Everything a class holds, as one zip for the teacher to keep at the end of term.

    <class>/gradebook.csv                 the gradebook download
    <class>/figures.csv                   every handed-in run's summary figures, one per line
    <class>/handins/<assignment>/<student>/report.md and report.json
                                          the hand-in: its runs, criteria, the analysis,
                                          its predictions, challenges, self-check and
                                          rubric (`teaching.evidence`), the feedback and
                                          every earlier version

A before/after pair of a capstone lab gets the same report as its report page's Markdown
and JSON downloads. The zip is built in a temporary file (in memory up to 16 MB) and
streamed, so a class of 100 × 20 does not hold a web process's memory.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
import zipfile
from typing import Any

from django.http import FileResponse, HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from labs.capstone import report as reports
from labs.capstone.analysis import Analysis
from labs.capstone.markdown import analysis_markdown, own_words
from labs.capstone.markdown import render as render_markdown
from labs.capstone.presenters import report_facts
from labs.runs.models import Run
from labs.web.exports import cell
from lessons.models import latest_attempts
from teaching.challenge_runs import challenge_statuses
from teaching.criteria import evaluate
from teaching.evidence import (
    Evidence,
    evidence_for,
    evidence_json,
    evidence_lines,
    evidence_of,
    guesses_by_run,
    skipped_runs,
)
from teaching.gradebook.book import build_gradebook, summary_of
from teaching.gradebook.plain_table import gradebook_table
from teaching.models import Classroom, Submission, timing
from teaching.people import shown_username_en

IN_MEMORY_BYTES = 16 * 1024 * 1024


def export_response(request: HttpRequest, classroom: Classroom) -> FileResponse:
    """The class's zip as a download."""
    folder = slugify(classroom.name) or f"class-{classroom.pk}"
    # Not a `with`: FileResponse closes the file once it has been sent.
    buffer = tempfile.SpooledTemporaryFile(max_size=IN_MEMORY_BYTES)  # noqa: SIM115
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in class_files(request, classroom):
            archive.writestr(f"{folder}/{name}", text)
    buffer.seek(0)
    return FileResponse(
        buffer, as_attachment=True, filename=f"{folder}.zip", content_type="application/zip"
    )


def class_files(request: HttpRequest, classroom: Classroom):
    """(path in the zip, text) for everything the class holds."""
    now = timezone.now()
    header, rows = gradebook_table(build_gradebook(classroom, now), request)
    yield "gradebook.csv", _csv(header, rows)
    submissions = list(
        Submission.objects.filter(assignment__classroom=classroom)
        .select_related(
            "assignment",
            "student",
            "run__owner",
            "run__stored_result",
            "before_run__owner",
            "before_run__stored_result",
        )
        .prefetch_related("versions")
        .order_by("assignment__due_at", "assignment_id", "student__username")
    )
    analyses = _analyses(submissions)
    found = class_evidence(submissions)
    figures: list[list[Any]] = []
    for sub in submissions:
        who = shown_username_en(sub.student)
        where = f"handins/{sub.assignment.pk}-{slugify(sub.assignment.title)}/{slugify(who)}"
        analysis = analyses.get((sub.before_run_id, sub.run_id)) if sub.before_run_id else None
        data = handin_json(request, sub, analysis, now, evidence=found.get(sub.pk))
        yield f"{where}/report.json", json.dumps(data, indent=1, ensure_ascii=False)
        yield (
            f"{where}/report.md",
            handin_markdown(request, sub, analysis, data, evidence=found.get(sub.pk)),
        )
        for side, run in (("before", sub.before_run), ("run", sub.run)):
            if run is None:
                continue
            for figure, value in ((run.result or {}).get("summary") or {}).items():
                figures.append(
                    [who, sub.assignment.title, sub.version, side, run.id, run.lab, figure, value]
                )
    columns = ["username", "assignment", "version", "side", "run", "lab", "figure", "value"]
    yield "figures.csv", _csv(columns, figures)


def _analyses(submissions: list[Submission]) -> dict[tuple[Any, Any], Analysis]:
    pairs = [s for s in submissions if s.before_run_id]
    found = Analysis.objects.filter(after_id__in=[s.run_id for s in pairs])
    return {(a.before_id, a.after_id): a for a in found}


def _run_facts(request: HttpRequest, run: Run) -> dict[str, Any]:
    return {
        "id": str(run.id),
        "url": request.build_absolute_uri(reverse("run-detail", args=[run.id])),
        "lab": run.lab,
        "params": run.params,
        "seed": run.seed,
        "status": run.status,
        "created_at": run.created_at.isoformat(timespec="seconds"),
        "summary": (run.result or {}).get("summary"),
    }


def class_evidence(submissions: list[Submission]) -> dict[Any, Evidence]:
    """submission id → what its assignment asked (`teaching.evidence`): three queries for
    the whole class."""
    students = sorted({s.student_id for s in submissions})
    assignments = list({s.assignment_id: s.assignment for s in submissions}.values())
    made = guesses_by_run(s.run_id for s in submissions)
    skipped = skipped_runs(s.run_id for s in submissions)
    met = challenge_statuses(students, assignments)
    units = {a.selfcheck for a in assignments if a.selfcheck}
    tried = latest_attempts(students, units) if units else {}
    return {
        s.pk: evidence_of(
            s.assignment,
            s,
            made=made.get(s.run_id, {}),
            summary=(s.run.result or {}).get("summary")
            if s.run.status == Run.Status.SUCCEEDED
            else None,
            challenges=met.get((s.student_id, s.assignment_id), []),
            selfcheck=tried.get((s.student_id, s.assignment.selfcheck)),
            skipped=s.run_id in skipped,
        )
        for s in submissions
    }


def _run_url(request: HttpRequest):
    return lambda run_id: request.build_absolute_uri(reverse("run-detail", args=[run_id]))


def handin_json(
    request: HttpRequest,
    sub: Submission,
    analysis: Analysis | None,
    now,
    *,
    evidence: Evidence | None = None,
) -> dict:
    """One hand-in as data: what the teacher graded and wrote, what the assignment asked
    beyond the run (predictions, challenges, self-check, rubric), and the earlier versions."""
    if evidence is None:
        evidence = evidence_for(sub)
    due = sub.assignment.due_at
    checks = evaluate(sub.assignment.checks(), summary_of(sub))
    data: dict[str, Any] = {
        "assignment": sub.assignment.title,
        "student": shown_username_en(sub.student),
        "version": sub.version,
        "submitted_at": sub.submitted_at.isoformat(timespec="seconds"),
        "timing": timing(sub.submitted_at, due, now),
        "run": _run_facts(request, sub.run),
        "before_run": _run_facts(request, sub.before_run) if sub.before_run else None,
        "criteria": [
            {"criterion": str(c.criterion), "value": c.actual, "passed": c.passed} for c in checks
        ],
        "feedback": _feedback(sub),
        "evidence": evidence_json(sub.assignment, evidence, _run_url(request)),
        "analysis": analysis.to_json() if analysis else None,
        "earlier_versions": [
            {
                "version": v.version,
                "run": str(v.run_id),
                "before_run": str(v.before_run_id) if v.before_run_id else None,
                "submitted_at": v.submitted_at.isoformat(timespec="seconds"),
                "feedback": _feedback(v),
            }
            for v in sub.versions.all()
        ],
    }
    if _has_capstone_report(sub):
        assert sub.before_run is not None
        data["report"] = reports.build(report_facts(sub.before_run), report_facts(sub.run))
    return data


def _feedback(item) -> dict[str, Any]:
    return {
        "text": item.feedback,
        "scores": item.scores,
        "at": item.feedback_at.isoformat(timespec="seconds") if item.feedback_at else None,
    }


def _has_capstone_report(sub: Submission) -> bool:
    pair = (sub.before_run, sub.run)
    return all(
        run is not None and run.lab in reports.LABS and run.status == Run.Status.SUCCEEDED
        for run in pair
    )


def handin_markdown(
    request: HttpRequest,
    sub: Submission,
    analysis: Analysis | None,
    data: dict[str, Any],
    *,
    evidence: Evidence | None = None,
) -> str:
    """The hand-in for a person to read: the pair's report, or the run and its criteria,
    and what the assignment asked beyond the run."""
    if evidence is None:
        evidence = evidence_for(sub)
    # Every text a person typed (a title, a name, feedback, a score's item) goes through
    # `own_words`: a Markdown renderer would pass its HTML on.
    lines = [
        f"# {own_words(sub.assignment.title)}: {own_words(data['student'])}",
        "",
        _("Version %(n)s, handed in %(when)s (%(timing)s).")
        % {"n": sub.version, "when": data["submitted_at"], "timing": _(data["timing"])},
        "",
    ]
    if "report" in data:
        assert sub.before_run is not None
        title = _("Before/after report: %(lab)s, seed %(before)s / %(after)s") % {
            "lab": sub.run.lab,
            "before": sub.before_run.seed,
            "after": sub.run.seed,
        }
        links = {"before": data["before_run"]["url"], "after": data["run"]["url"]}
        links |= {"before_obligations": links["before"], "after_obligations": links["after"]}
        lines.append(render_markdown(data["report"], title=title, links=links))
    else:
        for key, heading in (("before_run", _("Before")), ("run", _("The run"))):
            run = data[key]
            if run is None:
                continue
            lines += [f"## {heading}", "", f"{run['lab']}, seed {run['seed']}: {run['url']}", ""]
            lines += [
                f"- `{name}` = {own_words(str(value))}"
                for name, value in (run["summary"] or {}).items()
            ]
            lines.append("")
    if analysis is not None:
        lines.append(analysis_markdown(analysis))
    lines += ["", f"## {_('Criteria')}", ""]
    for check in data["criteria"]:
        mark = "✓" if check["passed"] else "✗"
        lines.append(f"- {mark} `{check['criterion']}` ({check['value']})")
    if not data["criteria"]:
        lines.append(_("No criteria: the teacher reads the runs."))
    lines += evidence_lines(sub.assignment, evidence, _run_url(request))
    feedback = data["feedback"]
    lines += ["", f"## {_('Feedback')}", "", own_words(feedback["text"]) or _("no feedback yet")]
    if feedback["scores"]:
        scores = feedback["scores"].items()
        lines += ["", *[f"- {own_words(str(item))}: {own_words(str(n))}" for item, n in scores]]
    return "\n".join(lines) + "\n"


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([cell(h) for h in header])
    writer.writerows([cell(v) for v in row] for row in rows)
    return out.getvalue()
