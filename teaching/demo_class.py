"""Thirty demo students who handed in the demo assignment, each run by the real model.

So that `./dev run` opens on a class that looks like one: most of them freed the service
with the lesson's seed, some with half the controls, a few with a seed of their own, one
who dropped payments, two who have not handed in yet; two sections. Every run is computed
by `labs.runs.execution.run_lab` and kept in the result store under its key, as a worker
would keep it, so identical runs share one result and the lesson's case is the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.utils import timezone

from labs.catalogue.lab import Lab
from labs.interface.progress import SilentProgress
from labs.runs.execution import run_lab
from labs.runs.models import Run, StoredResult
from labs.runs.predictions import Prediction
from labs.runs.result_store import result_key
from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS
from teaching.models import Assignment, Membership, Submission

ALL = dict(RECOMMENDED_CONTROLS)
NO_RECONCILE = {k: v for k, v in ALL.items() if k != "reconcile_payments"}
# What a student switched on for the after run, by name: the class's mix below.
RECIPES: dict[str, dict[str, Any]] = {
    "all": ALL,
    "late-controls": ALL | {"recover_at_s": 200.0},
    "early-controls": ALL | {"recover_at_s": 110.0},
    "no-reconcile": NO_RECONCILE,
    "door-and-budget": {"admission_limit": True, "limit_retries": True},
    "drop-and-budget": {"drop_expired": True, "limit_retries": True},
    "door-only": {"admission_limit": True},
    "drop-payments": NO_RECONCILE | {"drop_payments": True},
    "more-workers": ALL | {"workers": 10},
    "wide-reserve": ALL | {"reserve_share": 0.5},
}


@dataclass(frozen=True)
class DemoStudent:
    username: str
    first: str
    last: str
    section: str
    recipe: str = "all"
    seed: int | None = None  # None: the assignment's (the lesson's) seed
    hands_in: bool = True
    params: dict[str, Any] = field(default_factory=dict)


CLASS = (
    DemoStudent("aarav", "Aarav", "Deshmukh", "A"),
    DemoStudent("aditi", "Aditi", "Kale", "A", "no-reconcile"),
    DemoStudent("amol", "Amol", "Pawar", "A", "door-and-budget"),
    DemoStudent("anjali", "Anjali", "Shinde", "A"),
    DemoStudent("bhavesh", "Bhavesh", "Gaikwad", "A", "all", seed=11),
    DemoStudent("chaitali", "Chaitali", "More", "A", "late-controls"),
    DemoStudent("dhruv", "Dhruv", "Jadhav", "A"),
    DemoStudent("gauri", "Gauri", "Bhosale", "A", "drop-and-budget"),
    DemoStudent("harsh", "Harsh", "Chavan", "A", "wide-reserve"),
    DemoStudent("isha", "Isha", "Kulkarni", "A"),
    DemoStudent("jay", "Jay", "Salunkhe", "A", "door-only"),
    DemoStudent("kavya", "Kavya", "Naik", "A", "early-controls"),
    DemoStudent("mihir", "Mihir", "Sawant", "A", hands_in=False),
    DemoStudent("neha", "Neha", "Patwardhan", "A"),
    DemoStudent("omkar", "Omkar", "Thorat", "A", "no-reconcile"),
    DemoStudent("pooja", "Pooja", "Gokhale", "B"),
    DemoStudent("pranav", "Pranav", "Mane", "B", "drop-payments"),
    DemoStudent("rutuja", "Rutuja", "Kadam", "B", "all", seed=23),
    DemoStudent("sahil", "Sahil", "Ghorpade", "B"),
    DemoStudent("sakshi", "Sakshi", "Wagh", "B", "door-and-budget"),
    DemoStudent("samar", "Samar", "Deshpande", "B", "more-workers"),
    DemoStudent("shruti", "Shruti", "Apte", "B"),
    DemoStudent("siddhi", "Siddhi", "Phadke", "B", "late-controls"),
    DemoStudent("soham", "Soham", "Karve", "B"),
    DemoStudent("tanvi", "Tanvi", "Ranade", "B", "drop-and-budget"),
    DemoStudent("tejas", "Tejas", "Lele", "B", hands_in=False),
    DemoStudent("urvi", "Urvi", "Bapat", "B", "no-reconcile"),
    DemoStudent("vedant", "Vedant", "Sathe", "B"),
    DemoStudent("yash", "Yash", "Oak", "B", "all", seed=42),
    DemoStudent("zoya", "Zoya", "Shaikh", "B", "early-controls"),
)
# The class handed in over the last two hours, one every few minutes.
SPREAD = timedelta(minutes=4)


class DemoRuns:
    """Runs of one lab for the demo, each result computed once per (params, seed)."""

    def __init__(self, lab: Lab, assignment: Assignment) -> None:
        self.lab, self.assignment = lab, assignment

    def values(self, params: dict[str, Any]) -> dict[str, Any]:
        values = self.lab.defaults() | self.assignment.presets | params
        return {k: v for k, v in values.items() if k != "seed"}

    def stored(self, values: dict[str, Any], seed: int) -> tuple[str, StoredResult]:
        key = result_key(self.lab, values, seed)
        found = StoredResult.objects.filter(key=key).first()
        if found is None:
            found = StoredResult.keep(key, run_lab(self.lab, values, seed, SilentProgress()))
        return key, found

    def run(self, owner, params: dict[str, Any], seed: int, name: str, at) -> Run:
        values = self.values(params)
        key, stored = self.stored(values, seed)
        return Run.objects.create(
            owner=owner,
            lab=self.lab.slug,
            name=name,
            params=values,
            seed=seed,
            status=Run.Status.SUCCEEDED,
            result_key=key,
            stored_result=stored,
            created_at=at,
            started_at=at,
            finished_at=at,
        )


def seed_class(
    assignment: Assignment, lab: Lab, teacher, password: str, section_of_others: str = "A"
) -> int:
    """Add the demo class to `assignment`'s class and hand its runs in; returns how many
    students it has. The class's students already there and in no section join
    `section_of_others`. Safe to run again: nobody is added or handed in twice."""
    users = get_user_model()
    hashed = make_password(password)  # once: the real hasher is slow on purpose
    runs = DemoRuns(lab, assignment)
    lesson_seed = assignment.presets.get("seed", lab.default_seed)
    now = timezone.now()
    start = now - (len(CLASS) + 5) * SPREAD
    if assignment.created_at > start:  # set before the class's first run, as in a lesson
        Assignment.objects.filter(pk=assignment.pk).update(created_at=start)
        assignment.created_at = start
    # The lesson's case, kept under the teacher's name so the page marks its figures.
    if not Run.objects.filter(owner=teacher, lab=lab.slug, name="The lesson's case").exists():
        runs.run(teacher, {}, lesson_seed, "The lesson's case", now - len(CLASS) * SPREAD)
    assignment.classroom.memberships.filter(section="").update(section=section_of_others)
    for number, plan in enumerate(CLASS):
        student, _created = users.objects.get_or_create(
            username=plan.username,
            defaults={"first_name": plan.first, "last_name": plan.last, "password": hashed},
        )
        Membership.objects.get_or_create(
            classroom=assignment.classroom,
            student=student,
            defaults={"section": plan.section, "origin": Membership.Origin.ROSTER},
        )
        if not plan.hands_in:
            continue
        handed_in = Submission.objects.filter(assignment=assignment, student=student).first()
        if handed_in is not None:
            # A class seeded before predictions existed gets them too (once).
            predict(handed_in.run, demo_guesses(number))
            continue
        seed = lesson_seed if plan.seed is None else plan.seed
        at = now - (len(CLASS) - number) * SPREAD
        before = runs.run(student, {}, seed, "Before: controls off", at)
        after = runs.run(student, RECIPES[plan.recipe] | plan.params, seed, plan.recipe, at)
        predict(after, demo_guesses(number))  # made before the run, as the lab page does
        Submission.objects.create(
            assignment=assignment,
            student=student,
            run=after,
            before_run=before,
            submitted_at=at + timedelta(minutes=1),
        )
    return len(CLASS)


def demo_guesses(number: int) -> dict[str, Any]:
    """What demo student `number` expected before the run with the controls on: most
    expect it to recover (most do), every third that it stays trapped, every fifth
    made no prediction; their guesses of the peak backlog spread from 400 to 900."""
    if number % 5 == 4:
        return {}
    return {"recovered": number % 3 != 0, "peak_backlog": 400 + 100 * (number % 6)}


def predict(run: Run, guesses: dict[str, Any]) -> None:
    """Keep `guesses` with `run`, unless it has some already (safe to run again)."""
    if guesses and not run.predictions.exists():
        Prediction.objects.bulk_create(
            Prediction(run=run, figure=figure, value=value) for figure, value in guesses.items()
        )
