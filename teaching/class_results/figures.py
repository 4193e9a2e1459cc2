"""A class's results on one assignment: every hand-in's figures side by side.

Built from the hand-ins' digests (`teaching.class_results.digest`), never from the runs'
results, with a fixed number of queries however large the class: its members, their
extensions, the hand-ins with their digests, the lesson's reference and a count of the
class's runs.

Which runs stand apart, and why (each rule is said on the page as it is here):
- a different seed: the lab draws at random, more than half the runs shown share one
  seed, and this run used another;
- a changed preset: a value the assignment suggested (not locked) was changed;
- an outlier figure: a key figure outside Tukey's fences, more than 1.5 interquartile
  ranges below the first quartile or above the third (quartiles by linear interpolation,
  `statistics.quantiles(method="inclusive")`), among at least five runs with a value, and
  more than 10% of the median away from the median. The second condition keeps a class
  whose runs nearly all agree (an IQR near 0) from flagging a peak of 2,010 against 2,008;
  with a median of 0 any other value is flagged (one student who lost payments).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Count
from django.db.models.fields.json import KT
from django.utils.translation import gettext as _

from labs.catalogue.lab import Lab
from labs.charts.class_view import KEY_FIGURES, MOST_KEY_FIGURES
from labs.interface.figures import Figure
from labs.runs.models import Run, StoredResult
from labs.runs.result_store import result_key
from labs.text import num, said
from teaching.criteria import Check, Criterion, evaluate, pair_summary, show
from teaching.models import Assignment, Extension, Membership, Submission, Timing, timing

OUTLIER_IQR = 1.5
MIN_FOR_OUTLIERS = 5
OUTLIER_MIN_SHARE = 0.10  # of the median: a smaller difference is not worth a flag
# status filter → the timings it keeps
STATUS_FILTERS: dict[str, tuple[str, ...]] = {
    "all": (Timing.ON_TIME, Timing.LATE, Timing.MISSING, Timing.OPEN),
    "submitted": (Timing.ON_TIME, Timing.LATE),
    "late": (Timing.LATE,),
    "missing": (Timing.MISSING, Timing.OPEN),
}


@dataclass
class Entry:
    """One student of the class on this assignment."""

    student: Any
    section: str
    label: str  # their username, or "Student 7" when names are hidden
    timing: str
    submission: Submission | None = None
    figures: dict[str, Any] = field(default_factory=dict)
    checks: list[Check] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # why the run stands apart

    @property
    def digest(self):
        return getattr(self.submission, "digest", None) if self.submission else None

    @property
    def passed(self) -> int:
        return sum(c.passed for c in self.checks)


@dataclass
class Spread:
    """One figure across the class."""

    figure: Figure
    points: list[tuple[str, float]]  # (label, value), for the students with a value
    no_value: int  # handed-in runs where it did not happen (e.g. never recovered)
    reference: float | None
    bounds: list[Criterion]  # the criteria on this figure, drawn as lines
    quartiles: tuple[float, float, float] | None = None
    fences: tuple[float, float] | None = None
    outliers: list[str] = field(default_factory=list)  # labels


@dataclass
class PassRate:
    criterion: Criterion
    passed: int
    total: int

    @property
    def percent(self) -> int:
        return round(100 * self.passed / self.total) if self.total else 0


@dataclass
class Change:
    """One control or parameter and how many students moved it from its starting value."""

    name: str
    label: str
    start: Any
    count: int


@dataclass
class ClassResults:
    assignment: Assignment
    lab: Lab
    entries: list[Entry]  # the students the filters keep, handed in or not
    spreads: list[Spread]
    pass_rates: list[PassRate]
    changes: list[Change]
    reference: dict[str, Any] | None  # the lesson's case: {"summary", "x", "y"}
    reference_params: dict[str, Any]
    reference_seed: int
    sections: list[str]
    counts: dict[str, int]  # timing → students, before the status filter
    runs_so_far: int  # the class's runs of the lab since the assignment was set
    runners_so_far: int  # students among them
    majority_seed: int | None

    @property
    def handed_in(self) -> list[Entry]:
        return [e for e in self.entries if e.submission is not None]

    @property
    def flagged(self) -> list[Entry]:
        return [e for e in self.handed_in if e.reasons]


def class_results(
    assignment: Assignment,
    lab: Lab,
    now: datetime,
    *,
    status: str = "all",
    section: str = "",
    names: bool = True,
) -> ClassResults:
    """The class's results, filtered by hand-in status and section."""
    memberships = list(
        Membership.objects.filter(classroom_id=assignment.classroom_id)
        .select_related("student")
        .only(
            "section",
            "student__id",
            "student__username",
            "student__first_name",
            "student__last_name",
        )
        .order_by("student__username")
    )
    ids = [m.student_id for m in memberships]
    extensions = dict(
        Extension.objects.filter(assignment=assignment, student_id__in=ids).values_list(
            "student_id", "due_at"
        )
    )
    submissions = {
        s.student_id: s
        for s in Submission.objects.filter(assignment=assignment, student_id__in=ids)
        .select_related("digest")
        .only(
            "student_id", "submitted_at", "run_id", "before_run_id", "version", "digest", "scores"
        )
    }
    criteria = assignment.checks()
    entries: list[Entry] = []
    counts: Counter[str] = Counter()
    for number, membership in enumerate(memberships, start=1):
        student = membership.student
        submission = submissions.get(student.pk)
        due = assignment.due_for(extensions.get(student.pk))
        entry = Entry(
            student=student,
            section=membership.section,
            label=student.get_username() if names else _("Student %(n)s") % {"n": number},
            timing=timing(submission.submitted_at if submission else None, due, now),
            submission=submission,
        )
        counts[entry.timing] += 1
        digest = entry.digest
        if digest is not None:
            entry.figures = digest.figures
            graded = (
                pair_summary(digest.before_figures, digest.figures)
                if assignment.is_pair
                else digest.figures
            )
            entry.checks = evaluate(criteria, graded)
        if section and membership.section != section:
            continue
        if entry.timing not in STATUS_FILTERS.get(status, STATUS_FILTERS["all"]):
            continue
        entries.append(entry)
    shown = [e for e in entries if e.digest is not None]
    params, seed = lesson_case(assignment, lab)
    reference = reference_of(lab, params, seed)
    majority = majority_seed(shown) if lab.uses_seed else None
    flag_settings(shown, assignment, lab, majority)
    spreads = [
        spread_of(figure, shown, reference, criteria) for figure in key_figures(lab, criteria)
    ]
    flag_figures(spreads, shown)
    runs = Run.objects.filter(
        owner_id__in=ids, lab=assignment.lab, created_at__gte=assignment.created_at
    ).aggregate(n=Count("pk"), students=Count("owner", distinct=True))
    return ClassResults(
        assignment=assignment,
        lab=lab,
        entries=entries,
        spreads=spreads,
        pass_rates=[
            PassRate(c, sum(e.checks[i].passed for e in shown), len(shown))
            for i, c in enumerate(criteria)
        ],
        changes=changes_of(shown, assignment, lab),
        reference=reference,
        reference_params=params,
        reference_seed=seed,
        sections=sorted({m.section for m in memberships if m.section}),
        counts=dict(counts),
        runs_so_far=runs["n"],
        runners_so_far=runs["students"],
        majority_seed=majority,
    )


# The lesson's case -------------------------------------------------------------------


def lesson_case(assignment: Assignment, lab: Lab) -> tuple[dict[str, Any], int]:
    """The run the lesson describes: the lab's defaults under the assignment's presets."""
    params = lab.defaults() | {k: v for k, v in assignment.presets.items() if k != "seed"}
    seed = assignment.presets.get("seed", lab.default_seed if lab.uses_seed else 0)
    return params, seed


def reference_of(lab: Lab, params: dict[str, Any], seed: int) -> dict[str, Any] | None:
    """The lesson's case from the result store (only its summary and main line), or None
    while nobody has run it. One query; a page never runs a model itself."""
    from labs.charts.class_view import main_series

    key = result_key(lab, params, seed)
    if not key:
        return None
    found = StoredResult.objects.filter(key=key).annotate(
        summary=KT("data__summary"), order=KT("data__series_order")
    )
    row = found.values("pk", "summary", "order").first()
    if row is None:
        return None
    summary, order = _json(row["summary"]), _json(row["order"]) or []
    keys = main_series(lab.slug, order)
    line: dict[str, Any] = {"x": [], "y": []}
    if keys:
        x_key, y_key = keys
        found_line = (
            StoredResult.objects.filter(pk=row["pk"])
            .annotate(x=KT(f"data__series__{x_key}"), y=KT(f"data__series__{y_key}"))
            .values("x", "y")
            .first()
        )
        line = dict(found_line) if found_line else line
    return {"summary": summary or {}, "x": _json(line["x"]) or [], "y": _json(line["y"]) or []}


def _json(value: Any) -> Any:
    """KT() gives a JSON value as text on every database; decode it."""
    import json

    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


# Figures -------------------------------------------------------------------------------


def key_figures(lab: Lab, criteria: Sequence[Criterion]) -> list[Figure]:
    """The numeric figures spread on the page: the criteria's first, then the lab's own."""
    names = [c.figure.rpartition(".")[2] for c in criteria]
    # A lab that names its key figures gets those; another, its first numeric ones.
    names += KEY_FIGURES.get(lab.slug) or [f.name for f in lab.figures]
    chosen: list[Figure] = []
    for name in names:
        figure = lab.figure(name)
        if figure is None or figure.kind not in ("int", "float") or figure in chosen:
            continue
        chosen.append(figure)
        if len(chosen) == MOST_KEY_FIGURES:
            break
    return chosen


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def spread_of(
    figure: Figure,
    entries: Sequence[Entry],
    reference: Mapping[str, Any] | None,
    criteria: Sequence[Criterion],
) -> Spread:
    points = [
        (e.label, float(e.figures[figure.name]))
        for e in entries
        if _number(e.figures.get(figure.name))
    ]
    ref = (reference or {}).get("summary", {}).get(figure.name)
    result = Spread(
        figure=figure,
        points=points,
        no_value=len(entries) - len(points),
        reference=float(ref) if _number(ref) else None,
        bounds=[
            c
            for c in criteria
            if c.figure.rpartition(".")[2] == figure.name
            and c.figure.partition(".")[0] != "before"
            and _number(c.value)
        ],
    )
    values = [v for _label, v in points]
    if len(values) >= MIN_FOR_OUTLIERS:
        q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
        iqr = q3 - q1
        low, high = q1 - OUTLIER_IQR * iqr, q3 + OUTLIER_IQR * iqr
        result.quartiles, result.fences = (q1, q2, q3), (low, high)
        far = OUTLIER_MIN_SHARE * abs(q2)
        result.outliers = [
            label for label, v in points if (v < low or v > high) and abs(v - q2) > far
        ]
    elif values:
        result.quartiles = (min(values), statistics.median(values), max(values))
    return result


def flag_figures(spreads: Sequence[Spread], entries: Sequence[Entry]) -> None:
    by_label = {e.label: e for e in entries}
    for spread in spreads:
        if spread.fences is None:
            continue
        low, high = spread.fences
        for label in spread.outliers:
            value = dict(spread.points)[label]
            words = (
                _("%(figure)s is %(amount)s, far above the class (its upper fence is %(fence)s)")
                if value > high
                else _(
                    "%(figure)s is %(amount)s, far below the class (its lower fence is %(fence)s)"
                )
            )
            by_label[label].reasons.append(
                words
                % {
                    "figure": said(spread.figure.label),
                    "amount": num(value),
                    "fence": num(round(high if value > high else low, 2)),
                }
            )


# Settings -------------------------------------------------------------------------------


def majority_seed(entries: Sequence[Entry]) -> int | None:
    """The seed more than half of the runs share, or None when no seed has a majority."""
    seeds = Counter(e.digest.seed for e in entries)
    if not seeds:
        return None
    seed, n = seeds.most_common(1)[0]
    return seed if n * 2 > len(entries) else None


def same(a: Any, b: Any) -> bool:
    """Equal as a teacher means it: 80 and 80.0 are the same setting."""
    if _number(a) and _number(b):
        return float(a) == float(b)
    return a == b


def flag_settings(
    entries: Sequence[Entry], assignment: Assignment, lab: Lab, majority: int | None
) -> None:
    suggested = assignment.open_presets()
    for entry in entries:
        digest = entry.digest
        if majority is not None and digest.seed != majority:
            entry.reasons.append(
                _("seed %(seed)s, while most of the class used %(most)s")
                % {"seed": digest.seed, "most": majority}
            )
        for name, value in suggested.items():
            if name == "seed" and majority is not None:
                continue  # said above, against the class rather than the preset
            used = digest.seed if name == "seed" else digest.params.get(name)
            if used is not None and not same(used, value):
                entry.reasons.append(
                    _("changed the preset %(name)s from %(was)s to %(used)s")
                    % {"name": name, "was": show(value), "used": show(used)}
                )


def changes_of(entries: Sequence[Entry], assignment: Assignment, lab: Lab) -> list[Change]:
    """Each parameter (and the seed) some student moved from where the assignment started
    them, with how many did, most moved first."""
    start = lab.defaults() | assignment.presets
    out = []
    for param in lab.params:
        begin = start.get(param.name)
        count = sum(
            1
            for e in entries
            if param.name in e.digest.params and not same(e.digest.params[param.name], begin)
        )
        if count:
            out.append(Change(param.name, _(param.label), begin, count))
    if lab.uses_seed:
        begin = assignment.presets.get("seed", lab.default_seed)
        count = sum(1 for e in entries if e.digest.seed != begin)
        if count:
            out.append(Change("seed", _("seed"), begin, count))
    return sorted(out, key=lambda c: -c.count)
