"""What an assignment asked of a student, the same in every place a teacher takes it away.

An assignment can ask for more than a run: a prediction made before it (each of the lab's
prompts: the guess, the run's outcome, right or not; whether the student, asked for a guess,
skipped it, which is not the same as a run made where nobody asked; and whether the guess
was given after a result for the run's values had been shown, which is then never right, as
on the run's page), challenges met by the student's own runs (each met or missed, with the
run that met it), the unit's self-check (right of how many) and the teacher's rubric
(points per item, the score out of the most). The class results page and its CSV/JSON, the
gradebook CSV, the term-end zip, the teacher's page of one hand-in and the LMS's grade
comment all read it from here, under the same column names, so no export disagrees with a
page by leaving something out (`tests/teaching/test_evidence.py` compares them).

Column names stay English, like the exports' other columns: data a spreadsheet reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from labs.catalogue.entries import prompts_for
from labs.catalogue.prediction import Prompt, is_right
from labs.runs.models import Run
from labs.runs.predictions import Prediction
from teaching.challenges import Status


@dataclass(frozen=True)
class Made:
    """A guess as kept with its run (`Prediction`): its value, and whether it came after a
    result for the run's values had been shown (decided once, as it was saved:
    `labs.runs.predictions.given_after_result`)."""

    value: Any
    after_result: bool = False


@dataclass(frozen=True)
class Guess:
    """One of the lab's prompts on one hand-in: the guess (None: not asked or not made)."""

    prompt: Prompt
    guess: Any
    outcome: Any
    right: bool | None
    # Given after a result for these values had been shown: never right (None: no guess).
    after_result: bool | None = None

    @property
    def made(self) -> bool:
        return self.guess is not None


@dataclass
class Evidence:
    """Everything the assignment asked of one student, beyond the run's figures."""

    predictions: list[Guess] = field(default_factory=list)
    # Asked for a guess, the student pressed "Skip this time" (Run.prediction_skipped);
    # None with nothing handed in.
    prediction_skipped: bool | None = None
    challenges: list[Status] = field(default_factory=list)
    selfcheck: Any = None  # the latest lessons.models.Attempt, or None
    scores: Mapping[str, Any] = field(default_factory=dict)  # rubric item → points
    score: float | None = None
    out_of: int = 0


def guesses_by_run(run_ids: Iterable[Any]) -> dict[Any, dict[str, Made]]:
    """run id → {figure: the guess as made, late or not}, one query for any number of runs."""
    found: dict[Any, dict[str, Made]] = {}
    rows = Prediction.objects.filter(run_id__in=[r for r in run_ids if r is not None])
    for run_id, figure, value, late in rows.values_list(
        "run_id", "figure", "value", "after_result"
    ):
        found.setdefault(run_id, {})[figure] = Made(value, late)
    return found


def skipped_runs(run_ids: Iterable[Any]) -> set[Any]:
    """The runs among `run_ids` whose student skipped the prediction when asked: one query."""
    ids = [r for r in run_ids if r is not None]
    return set(Run.objects.filter(pk__in=ids, prediction_skipped=True).values_list("pk", flat=True))


def guesses_of(
    lab: str, made: Mapping[str, Made], summary: Mapping[str, Any] | None
) -> list[Guess]:
    """Each of the lab's prompts against the run's summary (None: the run has no result).
    A pair's guesses are about its "after" run, the one the student set."""
    out = []
    for prompt in prompts_for(lab):
        kept = made.get(prompt.figure)
        guess = kept.value if kept is not None else None
        late = kept.after_result if kept is not None and guess is not None else None
        outcome = prompt.outcome(summary) if summary is not None else None
        right = None
        if guess is not None and summary is not None:
            # A guess given once the answer was seen is no prediction: never right, as the
            # run's page says (`labs.runs.predictions.verdicts`).
            right = not late and is_right(prompt, guess, outcome)
        out.append(Guess(prompt, guess, outcome, right, late))
    return out


def evidence_of(
    assignment: Any,
    submission: Any,
    *,
    made: Mapping[str, Made],
    summary: Mapping[str, Any] | None,
    challenges: Sequence[Status],
    selfcheck: Any,
    skipped: bool = False,
) -> Evidence:
    scores = submission.scores if submission is not None else {}
    return Evidence(
        predictions=guesses_of(assignment.lab, made, summary),
        prediction_skipped=(skipped and not made) if submission is not None else None,
        challenges=list(challenges),
        selfcheck=selfcheck,
        scores=scores or {},
        score=submission.score if submission is not None else None,
        out_of=assignment.rubric_max,
    )


def evidence_columns(assignment: Any) -> list[str]:
    """The columns an export gives this assignment's evidence, in order."""
    columns: list[str] = []
    for prompt in prompts_for(assignment.lab):
        columns += [
            f"prediction: {prompt.figure}: {part}" for part in ("guess", "outcome", "right")
        ]
    if prompts_for(assignment.lab):
        columns.append("prediction skipped")
    # After "prediction skipped" (added later): the columns before keep their places.
    columns += [f"prediction: {p.figure}: after a result" for p in prompts_for(assignment.lab)]
    for slug in assignment.challenges or []:
        columns += [f"challenge: {slug}: met", f"challenge: {slug}: run"]
    if assignment.selfcheck:
        columns += ["self-check right", "self-check questions"]
    columns += [f"rubric: {entry['item']}" for entry in assignment.rubric or []]
    columns += ["score", "score out of"]
    return columns


def evidence_cells(assignment: Any, evidence: Evidence, run_url) -> dict[str, Any]:
    """The evidence as {column: value}, values as typed (None: nothing there).
    `run_url(run_id)` writes a run's link."""
    cells: dict[str, Any] = {}
    for g in evidence.predictions:
        cells[f"prediction: {g.prompt.figure}: guess"] = g.guess
        cells[f"prediction: {g.prompt.figure}: outcome"] = g.outcome
        cells[f"prediction: {g.prompt.figure}: right"] = g.right
    if evidence.predictions:
        cells["prediction skipped"] = evidence.prediction_skipped
    for g in evidence.predictions:
        cells[f"prediction: {g.prompt.figure}: after a result"] = g.after_result
    by_slug = {s.challenge.slug: s for s in evidence.challenges}
    for slug in assignment.challenges or []:
        status = by_slug.get(slug)
        met = status is not None and status.met
        cells[f"challenge: {slug}: met"] = met
        attempt = status.attempt if status is not None else None
        cells[f"challenge: {slug}: run"] = run_url(attempt.run_id) if met and attempt else None
    if assignment.selfcheck:
        tried = evidence.selfcheck
        cells["self-check right"] = tried.right if tried is not None else None
        cells["self-check questions"] = tried.total if tried is not None else None
    for entry in assignment.rubric or []:
        cells[f"rubric: {entry['item']}"] = evidence.scores.get(entry["item"])
    cells["score"] = _score(evidence.score)
    cells["score out of"] = evidence.out_of or None
    return cells


def _score(value: float | None) -> float | int | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def headings(assignment: Any) -> list[tuple[str, str]]:
    """(column, the heading a teacher reads) for the page's table of evidence."""
    from django.utils.translation import gettext as _

    from teaching.unit_challenges import get_challenge

    out: list[tuple[str, str]] = []
    parts = {"guess": _("guessed"), "outcome": _("the run gave"), "right": _("right?")}
    for prompt in prompts_for(assignment.lab):
        for part, words in parts.items():
            out.append((f"prediction: {prompt.figure}: {part}", f"{_(prompt.question)} — {words}"))
    if prompts_for(assignment.lab):
        out.append(("prediction skipped", _("Prediction skipped when asked?")))
    for prompt in prompts_for(assignment.lab):
        late = _("given after seeing a result?")
        out.append(
            (f"prediction: {prompt.figure}: after a result", f"{_(prompt.question)} — {late}")
        )
    for slug in assignment.challenges or []:
        challenge = get_challenge(slug)
        goal = _(challenge.goal) if challenge else slug
        out.append((f"challenge: {slug}: met", _("Challenge met? %(goal)s") % {"goal": goal}))
        out.append((f"challenge: {slug}: run", _("the run that met it")))
    if assignment.selfcheck:
        out += [("self-check right", _("Self-check: right")), ("self-check questions", _("of"))]
    out += [
        (f"rubric: {entry['item']}", _("Rubric: %(item)s") % {"item": entry["item"]})
        for entry in assignment.rubric or []
    ]
    out += [("score", _("Score")), ("score out of", _("out of"))]
    return out


def evidence_for(submission: Any) -> Evidence:
    """One hand-in's evidence (its page, the zip): three small queries."""
    from lessons.models import latest_attempts
    from teaching.challenge_runs import challenge_statuses

    assignment, student_id = submission.assignment, submission.student_id
    made = guesses_by_run([submission.run_id]).get(submission.run_id, {})
    skipped = submission.run_id in skipped_runs([submission.run_id])
    met = challenge_statuses([student_id], [assignment]).get((student_id, assignment.pk), [])
    tried = latest_attempts([student_id], [assignment.selfcheck]) if assignment.selfcheck else {}
    return evidence_of(
        assignment,
        submission,
        made=made,
        summary=(submission.run.result or {}).get("summary")
        if submission.run.status == "succeeded"
        else None,
        challenges=met,
        selfcheck=tried.get((student_id, assignment.selfcheck)),
        skipped=skipped,
    )


def evidence_json(assignment: Any, evidence: Evidence, run_url) -> dict[str, Any]:
    """The evidence as structured data (the zip's report.json); the same values as the
    columns (`evidence_cells`), which it also carries."""
    tried = evidence.selfcheck
    return {
        "predictions": [
            {
                "figure": g.prompt.figure,
                "question": g.prompt.question,
                "guess": g.guess,
                "outcome": g.outcome,
                "right": g.right,
                "after_result": g.after_result,
            }
            for g in evidence.predictions
        ],
        "prediction_skipped": evidence.prediction_skipped if evidence.predictions else None,
        "challenges": [
            {
                "challenge": s.challenge.slug,
                "goal": s.challenge.goal,
                "met": s.met,
                "run": run_url(s.attempt.run_id) if s.met and s.attempt else None,
            }
            for s in evidence.challenges
        ],
        "self_check": (
            {"unit": assignment.selfcheck, "right": tried.right, "total": tried.total}
            if tried is not None
            else None
        ),
        "rubric": [
            {"item": e["item"], "points": evidence.scores.get(e["item"]), "max": e["max"]}
            for e in assignment.rubric or []
        ],
        "score": _score(evidence.score),
        "score_out_of": evidence.out_of or None,
        "columns": evidence_cells(assignment, evidence, run_url),
    }


def evidence_lines(assignment: Any, evidence: Evidence, run_url) -> list[str]:
    """The evidence in Markdown, for a person reading the zip's report.md."""
    from django.utils.translation import gettext as _

    from labs.catalogue.prediction import said_value

    lines = ["", f"## {_('What the assignment asked')}", ""]
    if evidence.prediction_skipped:
        skipped = _("Asked for a prediction, the student skipped it.")
        lines.append(f"- {skipped}")
    for g in evidence.predictions:
        if not g.made:
            lines.append(f"- {_(g.prompt.question)} {_('No prediction made.')}")
            continue
        mark = "✓" if g.right else "✗"
        line = f"- {mark} {_(g.prompt.question)} " + _(
            "Guessed %(guess)s; the run gave %(outcome)s."
        ) % {"guess": g.prompt.words(g.guess), "outcome": g.prompt.words(g.outcome)}
        if g.after_result:
            # The run page's own sentence (`labs.runs.predictions.verdicts`).
            line += " " + _(
                "This guess was made after a result for these values had been shown, "
                "so it is not counted right."
            )
        lines.append(line)
    for s in evidence.challenges:
        if s.met and s.attempt is not None:
            said = _("met by the run %(url)s") % {"url": run_url(s.attempt.run_id)}
            lines.append(f"- ✓ {_(s.challenge.goal)} ({said})")
        else:
            lines.append(f"- ✗ {_(s.challenge.goal)} ({_('not met yet')})")
    if assignment.selfcheck:
        tried = evidence.selfcheck
        lines.append(
            "- "
            + (
                _("Self-check: %(right)s of %(total)s right.")
                % {"right": tried.right, "total": tried.total}
                if tried is not None
                else _("Self-check: not tried.")
            )
        )
    for e in assignment.rubric or []:
        points = evidence.scores.get(e["item"])
        lines.append(f"- {e['item']}: {said_value(points)}/{e['max']}")
    if assignment.rubric:
        lines.append(f"- {_('Score')}: {said_value(_score(evidence.score))}/{evidence.out_of}")
    return lines
