"""People the tests share: a teacher and two students, built in code."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group

from labs.roles import TEACHERS_GROUP

PASSWORD = "test-password-123"


@dataclass
class People:
    teacher: object
    alice: object
    bob: object


@cache
def password_hash() -> str:
    """Hash PASSWORD once: the real hasher is slow on purpose, and tests make many users."""
    return make_password(PASSWORD)


def make_user(username: str, *, teacher: bool = False):
    user = get_user_model().objects.create(username=username, password=password_hash())
    if teacher:
        user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    return user


def make_people() -> People:
    return People(
        teacher=make_user("tara", teacher=True), alice=make_user("alice"), bob=make_user("bob")
    )


# A school: two classes with a teacher and a student each, an assignment in each.

DUE = datetime(2031, 3, 14, 17, 0, tzinfo=UTC)
LOCKED_DRAIN = {"arrivals": [50, 800, 800, 800, 200, 50, 50, 50, 50, 50], "per_worker": 100}
DRAIN_CRITERIA = [
    {"figure": "left_at_end", "op": "==", "value": 0},
    {"figure": "peak_backlog", "op": "<", "value": 800},
    {"figure": "worker_seconds", "op": "<=", "value": 35},
    {"figure": "cleared_at_s", "op": "<=", "value": 5},
]


@dataclass
class School:
    teacher: object  # teaches class A
    alice: object  # a student of class A
    bob: object  # a student of class B
    other_teacher: object  # teaches class B
    class_a: object
    class_b: object
    assignment_a: object
    assignment_b: object


def make_school() -> School:
    from teaching.models import Assignment, Classroom, Membership

    people = make_people()
    ted = make_user("ted", teacher=True)
    class_a = Classroom.objects.create(name="Class A", teacher=people.teacher, join_code="AAAA2222")
    class_b = Classroom.objects.create(name="Class B", teacher=ted, join_code="BBBB3333")
    # Accounts the classes made, as a roster import does (so the teacher may reset them).
    roster = Membership.Origin.ROSTER
    Membership.objects.create(classroom=class_a, student=people.alice, origin=roster)
    Membership.objects.create(classroom=class_b, student=people.bob, origin=roster)

    def assignment(classroom):
        return Assignment.objects.create(
            classroom=classroom,
            title=f"Drain the burst ({classroom.name})",
            lab="drain",
            instructions="Clear the lesson's burst sooner, with at most 35 worker-seconds.",
            presets={**LOCKED_DRAIN, "rule": "backlog"},
            locked=list(LOCKED_DRAIN),
            criteria=DRAIN_CRITERIA,
            due_at=DUE,
        )

    return School(
        teacher=people.teacher,
        alice=people.alice,
        bob=people.bob,
        other_teacher=ted,
        class_a=class_a,
        class_b=class_b,
        assignment_a=assignment(class_a),
        assignment_b=assignment(class_b),
    )


def finished_run(owner, *, lab: str = "drain", seed: int = 0, **params):
    """A succeeded run with a real result, computed here rather than by a worker."""
    from labs.catalogue.entries import get_lab
    from labs.interface.progress import SilentProgress
    from labs.runs.execution import run_lab
    from labs.runs.models import Run

    chosen = get_lab(lab)
    values = chosen.defaults() | params
    result = run_lab(chosen, values, seed, SilentProgress())
    return Run.objects.create(
        owner=owner, lab=lab, params=values, seed=seed, status="succeeded", result=result
    )


# A real-queue experiment's result, kept from a run on Redis (regenerate: tests/fixtures/README).
EXPERIMENT_RESULTS = Path(__file__).parent / "fixtures" / "experiment_results"


def stored_experiment_run(owner, lab: str, *, running: bool = False):
    """A finished run of experiment `lab` from its stored result, no Redis needed; or, with
    `running`, the same run half way, its first readings as the live view gets them."""
    import json

    from labs.charts.live import rows
    from labs.runs.models import Run

    result = json.loads((EXPERIMENT_RESULTS / f"{lab}.json").read_text())
    fields = {"owner": owner, "lab": lab, "params": result["params"], "seed": result["seed"]}
    if running:
        samples = rows(result["series"])[:5]
        return Run.objects.create(
            **fields, status="running", progress={"done": 1, "total": 2, "samples": samples}
        )
    return Run.objects.create(**fields, status="succeeded", result=result)
