"""Create the demo (idempotent): a teacher, a class of students and an assignment.

A new user logs in and sees the whole flow at once: the teacher's class with its
students, an assignment on the capstone lab (or on the drain lab while the capstone is
not in the catalogue), two graded submissions in the gradebook, and on the capstone a
class of thirty more hand-ins (`teaching.demo_class`) for the class results page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from labs.capstone.analysis import Analysis
from labs.catalogue.entries import get_lab
from labs.catalogue.lab import Lab
from labs.interface.progress import SilentProgress
from labs.roles import TEACHERS_GROUP
from labs.runs.execution import run_lab
from labs.runs.models import Run
from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS
from teaching.criteria import CriteriaError, parse_criteria
from teaching.demo_class import predict, seed_class
from teaching.models import HANDIN_PAIR, Assignment, Classroom, Membership, Submission

DEMO_PASSWORD = "queues-demo"  # noqa: S105 - printed in the README on purpose: demo only
TEACHER = ("teacher", "Tara", "Teacher")
STUDENTS = [("asha", "Asha", "Patil"), ("ravi", "Ravi", "Kulkarni"), ("meera", "Meera", "Joshi")]
# In both languages, like the assignment's title: the demo is the first class a Marathi
# room is shown (the second review found its English name on 44 Marathi pages).
CLASS_NAME = "Queues and resilience (demo) · queues आणि लवचीकता (डेमो)"
OLD_CLASS_NAME = "Queues and resilience (demo)"  # a demo seeded before: renamed in place
DUE_IN = timedelta(days=14)


def _default(slug: str, name: str) -> Any:
    """A lab's default for one param, read from the catalogue (the lesson's burst)."""
    lab = get_lab(slug)
    assert lab is not None, slug
    return lab.param(name).default


@dataclass(frozen=True)
class Plan:
    """The demo assignment for one lab, and what two students hand in."""

    title: str
    instructions: str
    criteria: tuple[str, ...]
    presets: dict[str, Any] = field(default_factory=dict)
    locked: tuple[str, ...] = ()
    submitted: dict[str, dict[str, Any]] = field(default_factory=dict)  # username → params
    # "pair": each student hands in a before run (the lab's defaults, controls off) and an
    # after run with `submitted`'s params, one seed, and their analysis (`analyses`).
    handin: str = "run"
    rubric: tuple[tuple[str, int], ...] = ()
    analyses: dict[str, dict[str, str]] = field(default_factory=dict)  # username → answers


PLANS = {
    "trapped-service": Plan(
        # Seed data, not a msgid: a teacher writes one text for the class, so the demo's
        # is in both of the course's languages (a Marathi page shows its Marathi).
        title="Free the trapped service · अडकलेल्या सेवेला मोकळे करा",
        instructions=(
            "The spike is over but the service stays slow. Find the loop that keeps the "
            "queue full and switch on the controls (from second 150) until the service "
            "recovers, without losing a payment or leaving one with nobody in charge.\n\n"
            "लाट संपली तरी सेवा मंदच राहते. queue भरलेली ठेवणारे चक्र शोधा आणि सेवा "
            "सावरेपर्यंत controls (150 व्या सेकंदापासून) चालू करा; एकही पेमेंट हरवू देऊ नका, "
            "आणि कोणत्याही पेमेंटची जबाबदारी कोणाकडे नाही असे होऊ देऊ नका."
        ),
        criteria=(
            "before.recovered == false",
            "after.recovered == true",
            "after.obligations_lost == 0",
            "after.obligations_unknown == 0",
            "after.goodput_last_30s_rps >= 70",
        ),
        presets={"trigger_start_s": 60, "trigger_end_s": 90, "spike_rps": 200.0},
        locked=("trigger_start_s", "trigger_end_s", "spike_rps"),
        # Asha's after run has the controls on; Ravi hands in the trap twice.
        submitted={"asha": dict(RECOMMENDED_CONTROLS), "ravi": {}},
        handin="pair",
        rubric=(
            ("Tells the trigger apart from the loop", 4),
            ("Recovery steps backed by measured figures", 6),
            ("Explains the missed drain estimate", 4),
            ("Follow-up answers", 6),
        ),
        analyses={
            "asha": {
                "trigger": (
                    "Between second 60 and 90 the callers came at 200 a second, far more "
                    "than the workers can answer, so a backlog built up."
                ),
                "loop": (
                    "When the spike stopped the backlog was still there. Requests waited "
                    "longer than their callers were willing to wait, the callers gave up "
                    "and sent the same request again, and the workers spent their time on "
                    "answers nobody was waiting for. So the queue stayed full on its own."
                ),
                "steps": (
                    "Refuse new work at the door while the queue is too long\n"
                    "Throw away requests that are already older than their timeout\n"
                    "Slow the callers' retries down with backoff and a retry limit\n"
                    "Check every payment that was left pending and settle it"
                ),
                "drain_miss": (
                    "The estimate divided the backlog by spare capacity as if only new "
                    "callers arrived. The retries were extra arrivals, so the real spare "
                    "capacity was much smaller and the queue took longer to empty."
                ),
                "followup_cold_cache": (
                    "Right after a restart each answer is slower, so capacity is lower "
                    "just when the backlog is biggest; I would let traffic in gradually."
                ),
                "followup_job_cost": (
                    "If some jobs cost much more, counting jobs is not enough: the drain "
                    "time depends on the work in the queue, so I would measure that."
                ),
            },
            "ravi": {"trigger": "The spike from second 60."},
        },
    ),
    "drain": Plan(
        title="Catch the burst sooner · लाट लवकर आटोक्यात आणा",
        instructions=(
            "The lesson's burst and workers are fixed. Tune the backlog rule so the queue "
            "peaks lower and empties by second 5, using at most 35 worker-seconds.\n\n"
            "धड्यातील लाट आणि workers ठरलेले आहेत. backlog नियम असा जुळवा की queue कमी "
            "उंचीवर थांबेल आणि 5 व्या सेकंदापर्यंत रिकामी होईल, जास्तीत जास्त 35 "
            "worker-सेकंद वापरून."
        ),
        criteria=(
            "left_at_end == 0",
            "peak_backlog < 800",
            "worker_seconds <= 35",
            "cleared_at_s <= 5",
        ),
        presets={"arrivals": _default("drain", "arrivals"), "per_worker": 100, "rule": "backlog"},
        locked=("arrivals", "per_worker"),
        submitted={"asha": {"per_waiting": 50}, "ravi": {}},  # 4 of 4, then 2 of 4
    ),
}


# Challenges the demo assignment asks for, and the runs that meet some of them for Asha
# (the unit pages and her assignment page then show met ones; the gradebook counts them).
DEMO_CHALLENGES = ["trapped-no-admission-limit", "drain-math-fifteen"]
CHALLENGE_RUNS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "asha": [("drain-math", {"capacity_per_s": 60.0}), ("drain", {"max_workers": 4})],
    "ravi": [("drain-math", {"capacity_per_s": 55.0})],  # a near miss: 17.1 s, not 15
}
CHALLENGE_RUN_NAME = "Demo run: a challenge"
# What Asha and Ravi expected before their hand-ins' runs (the after run of a pair):
# Asha expects the service to recover and it does; Ravi, handing in the trap, expects
# the same and is wrong. On the drain lab (no capstone), peaks of 700 and 300.
DEMO_GUESSES: dict[str, dict[str, dict[str, Any]]] = {
    "trapped-service": {
        "asha": {"recovered": True, "peak_backlog": 1500},
        "ravi": {"recovered": True, "peak_backlog": 900},
    },
    "drain": {"asha": {"peak_backlog": 700}, "ravi": {"peak_backlog": 300}},
}
# Asha's drain run for the challenge: she expected the 4 workers to hold the peak to 800.
CHALLENGE_GUESSES = {("asha", "drain"): {"peak_backlog": 800}}


class Command(BaseCommand):
    help = "Create the demo teacher, students, class and assignment. Safe to run again."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        users = get_user_model()
        teachers, _ = Group.objects.get_or_create(name=TEACHERS_GROUP)
        people = {}
        for username, first, last in [TEACHER, *STUDENTS]:
            user, created = users.objects.get_or_create(
                username=username, defaults={"first_name": first, "last_name": last}
            )
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            if username == TEACHER[0]:
                user.groups.add(teachers)
            people[username] = user
        names = ", ".join(s[0] for s in STUDENTS)
        self.stdout.write(
            f"Demo accounts ready: teacher '{TEACHER[0]}', students {names}; "
            f"password '{DEMO_PASSWORD}'."
        )

        teacher = people[TEACHER[0]]
        Classroom.objects.filter(teacher=teacher, name=OLD_CLASS_NAME).update(name=CLASS_NAME)
        classroom, _ = Classroom.objects.get_or_create(teacher=teacher, name=CLASS_NAME)
        for username, _, _ in STUDENTS:
            Membership.objects.get_or_create(
                classroom=classroom,
                student=people[username],
                defaults={"origin": Membership.Origin.ROSTER},
            )

        lab = get_lab("trapped-service") or get_lab("drain")
        assert lab is not None, "the catalogue has neither the capstone nor the drain lab"
        plan = PLANS[lab.slug]
        assignment = Assignment.objects.filter(classroom=classroom, lab=lab.slug).first()
        if assignment is not None and assignment.title != plan.title:
            # A demo seeded before its texts were in both languages: bring them up to date.
            assignment.title, assignment.instructions = plan.title, plan.instructions
            assignment.save(update_fields=["title", "instructions"])
        if assignment is None:
            assignment = Assignment.objects.create(
                classroom=classroom,
                title=plan.title,
                lab=lab.slug,
                instructions=plan.instructions,
                presets=plan.presets,
                locked=list(plan.locked),
                criteria=self.criteria_for(lab, plan),
                handin=plan.handin,
                rubric=[{"item": item, "max": most} for item, most in plan.rubric],
                due_at=timezone.now() + DUE_IN,
            )
        if lab.slug == "trapped-service" and not assignment.challenges:
            assignment.challenges = DEMO_CHALLENGES
            assignment.save(update_fields=["challenges"])
        for username, params in plan.submitted.items():
            self.submit(assignment, lab, people[username], params, plan.analyses.get(username))
            handed_in = Submission.objects.filter(assignment=assignment, student=people[username])
            for submission in handed_in:
                predict(submission.run, DEMO_GUESSES.get(lab.slug, {}).get(username, {}))
        for username, tries in CHALLENGE_RUNS.items():
            self.challenge_runs(people[username], tries)
        if lab.slug == "trapped-service" and lab.kind == "sim":
            try:
                n = seed_class(assignment, lab, teacher, DEMO_PASSWORD)
            except ValueError as exc:  # a lab whose params are not the capstone's
                self.stderr.write(f"Left out the demo class: {exc}")
                return
            self.stdout.write(
                f"Demo class: {n} more students (password '{DEMO_PASSWORD}'), their runs "
                "handed in; the teacher's assignment page links to the class results."
            )
        self.stdout.write(
            f"Demo class '{classroom}' (join code {classroom.join_code}) with "
            f"{len(STUDENTS)} students and the assignment '{assignment}' on {lab.slug}."
        )

    def challenge_runs(self, student, tries: list[tuple[str, dict[str, Any]]]) -> None:
        """Runs of other labs that meet (or nearly meet) a challenge; made once."""
        if Run.objects.filter(owner=student, name=CHALLENGE_RUN_NAME).exists():
            return
        for slug, params in tries:
            lab = get_lab(slug)
            if lab is None:
                continue
            values = lab.defaults() | params
            result = run_lab(lab, values, lab.default_seed, SilentProgress())
            now = timezone.now()
            made = Run.objects.create(
                owner=student,
                lab=slug,
                name=CHALLENGE_RUN_NAME,
                params=values,
                seed=lab.default_seed if lab.uses_seed else 0,
                status=Run.Status.SUCCEEDED,
                own_result=result,
                started_at=now,
                finished_at=now,
            )
            predict(made, CHALLENGE_GUESSES.get((student.get_username(), slug), {}))

    def criteria_for(self, lab: Lab, plan: Plan) -> list[dict[str, Any]]:
        """The plan's checks that this lab can answer; the rest are reported and left out."""
        kept = []
        for line in plan.criteria:
            try:
                pair = plan.handin == HANDIN_PAIR
                kept += [c.to_json() for c in parse_criteria(line, lab.figures, pair=pair)]
            except CriteriaError as exc:
                self.stderr.write(f"Left out the demo check {line!r}: {exc}")
        return kept

    def submit(
        self,
        assignment: Assignment,
        lab: Lab,
        student,
        params: dict[str, Any],
        answers: dict[str, str] | None = None,
    ) -> None:
        """Run the lab here (simulations only: seconds) and submit it, once per student."""
        if (
            lab.kind != "sim"
            or Submission.objects.filter(assignment=assignment, student=student).exists()
        ):
            return
        before = None
        if assignment.is_pair:
            before = self.demo_run(assignment, lab, student, {}, "Demo run: before")
        run = self.demo_run(assignment, lab, student, params, "Demo run")
        if run is None or (assignment.is_pair and before is None):
            return
        if before is not None:
            Analysis.objects.create(owner=student, before=before, after=run, **(answers or {}))
        Submission.objects.create(
            assignment=assignment, student=student, run=run, before_run=before
        )

    def demo_run(
        self, assignment: Assignment, lab: Lab, student, params: dict[str, Any], name: str
    ) -> Run | None:
        values = lab.defaults() | assignment.presets | params
        values = {k: v for k, v in values.items() if k != "seed"}
        seed = assignment.presets.get("seed", lab.default_seed if lab.uses_seed else 0)
        try:
            result = run_lab(lab, values, seed, SilentProgress())
        except ValueError as exc:
            self.stderr.write(f"Left out {student}'s demo run: {exc}")
            return None
        now = timezone.now()
        return Run.objects.create(
            owner=student,
            lab=lab.slug,
            name=name,
            params=values,
            seed=seed,
            status=Run.Status.SUCCEEDED,
            own_result=result,  # not in the result store: no key
            started_at=now,
            finished_at=now,
        )
