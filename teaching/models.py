"""Classes, their students, assignments on labs, due-date extensions and submissions."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from labs.catalogue.entries import get_lab
from labs.catalogue.lab import Lab
from labs.runs.models import Run
from labs.runs.references import Reference
from teaching.class_results.digest import digest_fields
from teaching.criteria import Criterion

# No 0/O or 1/I: a code read aloud in class or copied from a projector comes out right.
JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class Classroom(models.Model):
    """A class a teacher runs: its students join with the join code or are added by name."""

    name = models.CharField(max_length=120)
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="classrooms_taught"
    )
    join_code = models.CharField(max_length=16, unique=True, default=new_join_code)
    # Closed once the class is complete: the code then neither makes accounts nor joins.
    signup_open = models.BooleanField(default=True)
    # "Approve new sign-ups": an account made or joined with the code waits (PendingSignup)
    # until the teacher lets it in, so a script's junk accounts see and run nothing.
    approve_signups = models.BooleanField(default=False)
    students = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="classrooms", blank=True
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Set at the end of term: the class is read-only (no new runs, hand-ins or edits) and
    # everything in it stays viewable; the teacher can unarchive it.
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["teacher", "name"], name="one_class_name_per_teacher")
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("class-detail", args=[self.pk])

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None


class Membership(models.Model):
    """A student in a class, and how they came to be in it.

    How they came decides whether the class's teacher answers for the account (may give it
    a one-time password): only if the class made it (a roster import) or the student chose
    the class (its join code). An account added by an admin or by the student accepting an
    invitation stays the student's own.
    """

    class Origin(models.TextChoices):
        ROSTER = "roster", gettext_lazy("made by the class's roster import")
        CODE = "code", gettext_lazy("joined with the class's code")
        INVITED = "invited", gettext_lazy("accepted the teacher's invitation")
        ADDED = "added", gettext_lazy("added by an admin")

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="memberships")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    # The safe default: a membership made without saying how never lets a teacher reset.
    origin = models.CharField(max_length=8, choices=Origin.choices, default=Origin.ADDED)
    # A group within the class ("A", "Tuesday lab"): the class results page shows one or all.
    section = models.CharField(max_length=40, blank=True, default="")

    class Meta:
        ordering = ["classroom", "student__username"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "student"], name="one_membership")
        ]

    def __str__(self) -> str:
        return f"{self.student} in {self.classroom}"


class PendingSignup(models.Model):
    """Someone who used a class's code while it approves new sign-ups: not a member (so they
    see none of the class, its assignments or its labs) until its teacher approves them."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="pending")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pending_classes"
    )
    asked_at = models.DateTimeField(default=timezone.now)
    # The account was made by this sign-up: removing it deletes the account if it is in
    # no class (an existing account that asked to join is only refused).
    made_here = models.BooleanField(default=False)

    class Meta:
        ordering = ["asked_at"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "student"], name="one_pending_signup")
        ]

    def __str__(self) -> str:
        return f"{self.student} waiting for {self.classroom}"


class Invitation(models.Model):
    """A teacher asks an existing account to join a class; it joins only if its student accepts.

    Adding someone else's account straight into a class would let its teacher reset the
    account's password and take it over, so an existing account is only ever invited.
    """

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="invitations")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="class_invitations"
    )
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="invitations_sent"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["classroom", "student"], name="one_invitation")
        ]

    def __str__(self) -> str:
        return f"{self.student} invited to {self.classroom}"


HANDIN_RUN, HANDIN_PAIR = "run", "pair"
HANDIN_CHOICES = [
    (HANDIN_RUN, gettext_lazy("one run")),
    (HANDIN_PAIR, gettext_lazy("a before/after pair with the student's analysis")),
]


class Assignment(models.Model):
    """A lab set for a class: presets (some locked), a due date and grading criteria."""

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="assignments")
    title = models.CharField(max_length=120)
    lab = models.SlugField(max_length=64)
    instructions = models.TextField(blank=True)
    # {param name (or "seed"): value} the student starts from; `locked` names the
    # ones they cannot change.
    presets = models.JSONField(default=dict, blank=True)
    locked = models.JSONField(default=list, blank=True)
    criteria = models.JSONField(default=list, blank=True)  # [{"figure", "op", "value"}]
    # A unit's self-check set with the lab (its slug), or "" for none; the gradebook
    # shows each student's latest score on it.
    selfcheck = models.SlugField(max_length=32, blank=True, default="")
    # Challenges (teaching.unit_challenges) the students are asked to meet, by slug.
    challenges = models.JSONField(default=list, blank=True)
    # A run can be handed in only with a prediction made before it was started.
    require_prediction = models.BooleanField(default=False)
    # "run": one run is handed in; "pair": a before/after pair with the student's analysis,
    # and the criteria name a side (`before.recovered == false`).
    handin = models.CharField(max_length=8, choices=HANDIN_CHOICES, default=HANDIN_RUN)
    # The teacher's own rubric: [{"item": "Names the loop", "max": 5}], scored per submission.
    rubric = models.JSONField(default=list, blank=True)
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["due_at", "pk"]
        indexes = [models.Index(fields=["classroom", "due_at"])]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("assignment-detail", args=[self.pk])

    def get_lab(self) -> Lab | None:
        return get_lab(self.lab)

    @property
    def lab_title(self) -> str:
        lab = self.get_lab()
        return _(lab.title) if lab else self.lab

    def locked_presets(self) -> dict[str, Any]:
        return {k: v for k, v in self.presets.items() if k in self.locked}

    def open_presets(self) -> dict[str, Any]:
        return {k: v for k, v in self.presets.items() if k not in self.locked}

    @property
    def is_pair(self) -> bool:
        return self.handin == HANDIN_PAIR

    @property
    def rubric_max(self) -> int:
        return sum(item["max"] for item in self.rubric)

    def checks(self) -> list[Criterion]:
        return [Criterion.from_json(c) for c in self.criteria]

    def due_for(self, extension: datetime | None) -> datetime:
        """The due date for one student: their extension if it is later than the class's."""
        return max(extension, self.due_at) if extension else self.due_at

    def mismatch(self, run: Run) -> str:
        """Why `run` cannot be submitted here ('' if it can), apart from the due date."""
        if run.lab != self.lab:
            return _("It is a run of %(used)s, not of %(wanted)s.") % {
                "used": run.lab,
                "wanted": self.lab,
            }
        if run.status != Run.Status.SUCCEEDED:
            return _(
                "It did not finish successfully: only a finished, successful run can be submitted."
            )
        for name, value in self.locked_presets().items():
            used = run.seed if name == "seed" else run.params.get(name)
            if used != value:
                return _(
                    "It changed the locked %(name)s (set to %(value)s, this run used %(used)s)."
                ) % {
                    "name": name,
                    "value": value,
                    "used": used,
                }
        # `.all()`, not `.exists()`: a page listing runs prefetches their predictions.
        if self.require_prediction and not run.predictions.all():
            return _(
                "It has no prediction: this assignment asks you to say what you expect "
                "before you press Run. Answer “Predict first”, run again and submit that run."
            )
        return ""


class Extension(models.Model):
    """A later due date for one student on one assignment."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="extensions")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="extensions"
    )
    due_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["assignment", "student__username"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "student"], name="one_extension")
        ]

    def __str__(self) -> str:
        return f"{self.student} until {self.due_at:%Y-%m-%d %H:%M} on {self.assignment}"


class Feedback(models.Model):
    """What the teacher wrote on a hand-in and the score per rubric item (abstract)."""

    feedback = models.TextField(blank=True, max_length=4000)
    scores = models.JSONField(default=dict, blank=True)  # {rubric item: points}
    feedback_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def score(self) -> float | None:
        return sum(self.scores.values()) if self.scores else None

    @property
    def has_feedback(self) -> bool:
        return self.feedback_at is not None


class Submission(Feedback):
    """What a student hands in for an assignment: a run, or a before/after pair.

    A resubmission replaces it; the one it replaces is kept as a `SubmissionVersion`.
    """

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="submissions")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions"
    )
    # RESTRICT: a submitted run cannot be deleted on its own, only with its student.
    run = models.ForeignKey(Run, on_delete=models.RESTRICT, related_name="submissions")
    # The "before" half of a pair hand-in (`run` is then the "after" half).
    before_run = models.ForeignKey(
        Run, on_delete=models.RESTRICT, null=True, blank=True, related_name="pair_submissions"
    )
    version = models.PositiveIntegerField(default=1)
    submitted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["assignment", "student__username"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "student"], name="one_submission")
        ]

    def __str__(self) -> str:
        return f"{self.student} → {self.assignment}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save, then record the figures the class results page reads (its digest).

        Every write of the handed-in runs does it, wherever it comes from (a hand-in or a
        resubmission, `teaching.gradebook.hand_in`; the demo class; the admin); saving the
        feedback alone (`update_fields` naming neither run) does not. A `bulk_create` or a
        queryset `update()` skips it, so code that writes that way records the digest itself.
        """
        super().save(*args, **kwargs)
        written = kwargs.get("update_fields")
        if written is None or {"run", "before_run"} & set(written):
            self.record_digest()

    def get_absolute_url(self) -> str:
        return reverse("submission-detail", args=[self.pk])

    def record_digest(self) -> SubmissionDigest:
        """Work out and save this hand-in's digest as it now stands."""
        run, before = self.run, self.before_run
        fields = digest_fields(run.lab, run.result, before.result if before else None)
        if not fields["params"]:
            fields["params"], fields["seed"] = run.params, run.seed
        digest, _created = SubmissionDigest.objects.update_or_create(
            submission=self, defaults=fields
        )
        return digest

    def archive(self) -> SubmissionVersion:
        """Keep this hand-in, with its feedback, before a resubmission replaces it."""
        return SubmissionVersion.objects.create(
            submission=self,
            version=self.version,
            run_id=self.run_id,
            before_run_id=self.before_run_id,
            submitted_at=self.submitted_at,
            feedback=self.feedback,
            scores=self.scores,
            feedback_at=self.feedback_at,
        )


class SubmissionVersion(Feedback):
    """An earlier hand-in of a submission: the teacher can still open it and its feedback."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    run = models.ForeignKey(Run, on_delete=models.RESTRICT, related_name="archived_submissions")
    before_run = models.ForeignKey(
        Run,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="archived_pair_submissions",
    )
    submitted_at = models.DateTimeField()

    class Meta:
        ordering = ["submission", "-version"]

    def __str__(self) -> str:
        return f"{self.submission} (version {self.version})"


# Every key onto a run from teaching, as labs asks about them (`labs.runs.references`):
# who may open a handed-in run, which runs are half of a handed-in pair, and what holds a run.
_TEACHER = "assignment__classroom__teacher"
RUN_REFERENCES = (
    Reference(Submission, "run", _TEACHER, pair_before="before_run"),
    Reference(Submission, "before_run", _TEACHER, is_pair_before=True),
    Reference(SubmissionVersion, "run", f"submission__{_TEACHER}", pair_before="before_run"),
    Reference(SubmissionVersion, "before_run", f"submission__{_TEACHER}", is_pair_before=True),
)


class SubmissionDigest(models.Model):
    """What the class results page reads of one hand-in, worked out once when it is saved.

    The page shows a whole class at once: reading every run's result (tens of KB each) on
    every view would cost a class of 100 seconds. The figures, the run's settings and its
    main line thinned to a few points are kept here instead (`teaching.class_results.digest`).
    """

    submission = models.OneToOneField(
        Submission, on_delete=models.CASCADE, primary_key=True, related_name="digest"
    )
    figures = models.JSONField(default=dict)  # the handed-in run's summary
    before_figures = models.JSONField(null=True, blank=True)  # a pair's before run's summary
    params = models.JSONField(default=dict)
    seed = models.BigIntegerField(default=0)
    # {"x": [...], "y": [...], "x_key", "y_key"}: the lab's main series, at most 150 points.
    trace = models.JSONField(default=dict)
    made_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"figures of {self.submission_id}"


class Timing:
    """Where a student stands against a due date.

    The values stay English (CSS classes, the CSV); pages show them with
    `{% translate cell.timing %}`.
    """

    ON_TIME = gettext_noop("on time")
    LATE = gettext_noop("late")
    MISSING = gettext_noop("missing")
    OPEN = gettext_noop("not yet due")


def timing(submitted_at: datetime | None, due_at: datetime, now: datetime) -> str:
    if submitted_at is None:
        return Timing.MISSING if now > due_at else Timing.OPEN
    return Timing.LATE if submitted_at > due_at else Timing.ON_TIME


class ChallengeCredit(models.Model):
    """A challenge a student met, credited once: the run that met it first.

    One row per student and challenge, held by the database (two workers finishing two
    of the student's drafts at once make one row, not two). A draft that earned the credit
    was kept (`kept`): it is then an ordinary run, and the gradebook reads it like any
    other (`teaching.challenge_runs`). Written by `teaching.challenge_credits` as runs
    succeed, never by a page view.
    """

    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenge_credits"
    )
    challenge = models.SlugField(max_length=64)  # teaching.unit_challenges, by slug
    # The run that met it, by id only: a credit is no hand-in, and every key onto a run from
    # outside labs is one (`labs.runs.references`). A run pruned later leaves it standing.
    met_by = models.UUIDField()
    kept = models.BooleanField(default=False)  # the run was a draft, kept for the credit
    made_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["student", "challenge"], name="one_credit_per_student_challenge"
            )
        ]

    def __str__(self) -> str:
        return f"{self.student} met {self.challenge}"
