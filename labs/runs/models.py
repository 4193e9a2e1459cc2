"""A saved lab run: who ran which lab with which parameters, and what came out."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import OuterRef, Subquery
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import pgettext_lazy

from labs.runs import failures, references
from labs.runs.result_json import SavedAsRead

# What a run that has not failed holds in its error fields.
NO_ERROR: dict[str, Any] = {"error": "", "error_code": "", "error_args": {}}


class RunQuerySet(models.QuerySet):
    def active(self) -> RunQuerySet:
        return self.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING])

    def visible_to(self, user) -> RunQuerySet:
        """The runs a user may open: their own, and those handed in to a class they teach.

        Handed in by any key another app declares (`labs.runs.references`: a submission's
        run and before run, and its earlier versions'), each an EXISTS on that key's
        indexed column: no join, so a run handed in twice is still listed once, and the cost
        follows the runs asked about rather than the whole table.
        """
        if not user.is_authenticated:
            return self.none()
        return self.filter(models.Q(owner=user) | references.seen_by(user))

    def handed_in(self) -> RunQuerySet:
        """Runs another app holds on to (`labs.runs.references`): handed in, now or before."""
        return self.filter(references.handed_in())

    def stored_for(self, key) -> RunQuerySet:
        """The runs whose result the store keeps under `key` (a key, or `OuterRef`), the
        earliest first: succeeded, and computed by themselves (not following another)."""
        return self.filter(
            result_key=key, status=Run.Status.SUCCEEDED, same_as__isnull=True
        ).order_by("finished_at")

    def in_handed_in_pairs(self) -> RunQuerySet:
        """Runs handed in as half of a before/after pair (now or in an earlier version).

        Frozen: they may no longer be renamed.
        """
        return self.filter(references.in_pairs())


# Named before it is subclassed, so django-stubs' plugin can type the queryset's methods.
_RunManagerBase = models.Manager.from_queryset(RunQuerySet)


class RunManager(_RunManagerBase["Run"]):
    def claim(self, run_id, *, lease_s: int, max_attempts: int = 3) -> Run | None:
        """Take a run for this worker, or None if another worker has it or it is done.

        The conditional UPDATE is the lock: of two workers handed the same task (a
        redelivery after a lost ack), exactly one sees a row count of 1. A run left
        'running' by a dead worker can be taken again once its lease has expired.
        """
        now = timezone.now()
        claimable = models.Q(status=Run.Status.QUEUED) | models.Q(
            status=Run.Status.RUNNING, lease_expires_at__lt=now
        )
        taken = self.filter(claimable, pk=run_id, attempts__lt=max_attempts).update(
            status=Run.Status.RUNNING,
            started_at=now,
            lease_expires_at=now + timedelta(seconds=lease_s),
            attempts=models.F("attempts") + 1,
            **NO_ERROR,
        )
        if taken != 1:
            return None
        stored = self.stored_for(OuterRef("result_key")).exclude(result_key="")
        run = self.annotate(stored_of_key=Subquery(stored.values("pk")[:1])).get(pk=run_id)
        run.stored_pk = run.stored_of_key
        return run


class StoredResult(models.Model):
    """A simulation's result, kept once under its result-store key however many runs show it.

    A class pressing Run on a lab's defaults makes one result and a hundred runs that point
    at it (`Run.stored_result`), not a hundred copies of tens to hundreds of KB of JSON. A
    result no run points at any more is deleted by the hourly prune (`sweeps.prune`).
    """

    key = models.CharField(max_length=64, unique=True)  # labs.runs.result_store.result_key
    data = models.JSONField(encoder=SavedAsRead)  # a computed result: saved as it was read
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"result {self.key[:12]}"

    @classmethod
    def keep(cls, key: str, data: dict[str, Any]) -> StoredResult:
        """The stored result for `key`, saving `data` under it if there is none yet.

        One statement (`INSERT … ON CONFLICT (key) DO UPDATE … RETURNING id`), where
        `get_or_create` took four round trips in a transaction of its own (the look, BEGIN,
        the INSERT, COMMIT) for each computed run. A key already stored keeps the data it
        has (the conflict rewrites only the key, with itself): a key names one result.
        """
        stored = StoredResult(key=key, data=data)
        StoredResult.objects.bulk_create(
            [stored], update_conflicts=True, unique_fields=["key"], update_fields=["key"]
        )
        return stored


class Run(models.Model):
    """One press of Run: parameters in, result out, with its lifecycle and timings."""

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("run status", "queued")
        RUNNING = "running", pgettext_lazy("run status", "running")
        SUCCEEDED = "succeeded", pgettext_lazy("run status", "succeeded")
        FAILED = "failed", pgettext_lazy("run status", "failed")

    FINISHED = (Status.SUCCEEDED, Status.FAILED)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="runs"
    )
    lab = models.SlugField(max_length=64, db_index=True)
    name = models.CharField(max_length=80, blank=True)  # the owner's label, e.g. "8 workers"
    note = models.TextField(max_length=2000, blank=True)
    params = models.JSONField()
    seed = models.BigIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    # The result: a simulation's in the result store (`stored_result`, shared by every
    # identical run), anything else's here (an experiment's). Read both as `run.result`.
    own_result = models.JSONField(null=True, blank=True, encoder=SavedAsRead)
    stored_result = models.ForeignKey(
        StoredResult, null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )
    # Why it failed: a code and its values (`labs.runs.failures`), said in the reader's
    # language when shown (`error_text`); `error` holds the English, and is all that runs
    # saved before codes existed have.
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=32, blank=True, default="")
    error_args = models.JSONField(default=dict, blank=True)
    progress = models.JSONField(null=True, blank=True)  # {"done", "total", "live"} while running
    attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    # When the sweeper sent the run's task again because its message was gone from the
    # broker (`labs.runs.lost`): once only; a second loss fails the run.
    resent_at = models.DateTimeField(null=True, blank=True)
    # The Celery queue the run was sent to (quick or heavy), so its page can say what is
    # ahead of it; empty for a run answered from the result store.
    queue = models.CharField(max_length=64, blank=True, default="")
    # (lab, params, seed, model version) hashed: the result store's key; "" if not stored.
    result_key = models.CharField(max_length=64, blank=True, default="")
    # The earlier identical run this one's result comes (or will come) from.
    same_as = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="copies"
    )
    # A redrive of the retained queue is draining until then: it counts as a running experiment.
    drain_until = models.DateTimeField(null=True, blank=True)
    # Which cap dropped the retained DLQ before its hour (`labs.runs.retained_caps`), for the panel.
    dlq_note = models.CharField(max_length=300, blank=True, default="")
    # Started by moving a control, not by Run (`labs.runs.drafts`): out of the history and
    # deleted by the sweeper after `LAB_DRAFT_KEEP_MIN`, unless kept (named, handed in...).
    draft = models.BooleanField(default=False)
    # The address the run was pressed from (`labs.runs.turns`): experiments take turns by
    # person, and one address is one person however many accounts it signs in as.
    address = models.CharField(max_length=64, blank=True, default="")
    # Asked for a guess before this run, the student pressed "Skip this time" (predict.js):
    # a teacher counts these apart from runs made where nobody asked (`labs.runs.predictions`).
    prediction_skipped = models.BooleanField(default=False)
    # Whose share of the quick queue the run takes (`labs.runs.fair_share`): its class
    # ("class:12"), or its owner for a student in none ("user:7"); "" for a run that takes
    # no worker (answered from the result store, or waiting on an identical run).
    lane = models.CharField(max_length=32, blank=True, default="")
    # The broker priority its message is sent with (0 is taken first, 9 last): how many of
    # its lane's runs were already waiting when it was pressed, so one class's flood waits
    # behind the runs of classes with none waiting (`labs.runs.fair_share`).
    priority = models.PositiveSmallIntegerField(default=0)

    objects = RunManager()
    # Set on a run `RunManager.claim` returns: the pk of the run whose stored result is this
    # one's (`RunQuerySet.stored_for` its key), or None.
    stored_pk: Any = None

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["owner", "lab", "-created_at"]),
            # The history page: one student's runs, newest first, a page at a time.
            models.Index(fields=["owner", "-created_at"], name="run_owner_created"),
            # What polls, sweeps and the queue position filter on.
            models.Index(fields=["status", "created_at"], name="run_status_created"),
            models.Index(fields=["result_key", "status"], name="run_result_key"),
            # A lane's waiting runs, counted at each press (`labs.runs.fair_share.backlog`).
            models.Index(fields=["lane", "status", "queue"], name="run_lane_status"),
            # The sweeper's look for old drafts, which are few: a partial index stays small.
            models.Index(
                fields=["created_at"], condition=models.Q(draft=True), name="run_draft_created"
            ),
        ]

    def __str__(self) -> str:
        label = f" “{self.name}”" if self.name else ""
        return f"{self.lab}{label} by {self.owner} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("run-detail", args=[self.id])

    @property
    def result(self) -> Any:
        """What the run computed (None until it succeeds), wherever it is kept.

        A run read without its own result (`defer("own_result")`, as a poll reads it) that
        points at a stored one is not asked for it again: a stored result's runs keep
        none of their own (`result_fields`).
        """
        stored_only = "own_result" in self.get_deferred_fields()
        if not (stored_only and self.stored_result_id) and self.own_result is not None:
            return self.own_result
        stored = self.stored_result if self.stored_result_id is not None else None
        return stored.data if stored is not None else None

    @result.setter
    def result(self, value: Any) -> None:
        # Lets `Run(result=...)` and `Run.objects.create(result=...)` keep working.
        self.own_result = value

    def result_fields(self) -> dict[str, Any]:
        """The fields that give another run this run's result (a reference, not a copy)."""
        if self.stored_result_id is not None:
            return {"stored_result_id": self.stored_result_id, "own_result": None}
        return {"stored_result_id": None, "own_result": self.own_result}

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def duration(self) -> timedelta | None:
        if self.started_at and self.finished_at:
            return self.finished_at - self.started_at
        return None

    def mark_succeeded(self, result: dict | None = None, *, same_as: Run | None = None) -> bool:
        """Save the result, unless the run was already ended by someone else (then False).

        A run with a result-store key keeps it in the store (once per key); `same_as` an
        earlier identical run takes that run's result as it is kept. On success this object
        holds the saved result's reference too (`result_fields()` gives it to followers).
        """
        if same_as is not None:
            fields = {"same_as": same_as, **same_as.result_fields()}
        elif self.result_key and result is not None:
            fields = {"stored_result": StoredResult.keep(self.result_key, result)}
        else:
            fields = {"own_result": result}
        if not self._finish(status=Run.Status.SUCCEEDED, **fields, **NO_ERROR):
            return False
        self.status = Run.Status.SUCCEEDED
        if "stored_result_id" in fields:  # same_as: the earlier run's reference
            self.same_as = same_as
            self.stored_result_id = fields["stored_result_id"]
            self.own_result = fields["own_result"]
        elif "stored_result" in fields:
            self.stored_result = fields["stored_result"]
        else:
            self.own_result = fields["own_result"]
        return True

    def mark_failed(self, code: str, **args) -> None:
        """End the run as failed, for the reason `code` (`labs.runs.failures.MESSAGES`)."""
        self._finish(status=Run.Status.FAILED, **failures.failure(code, **args))

    @property
    def error_text(self) -> str:
        """Why the run failed, in the reader's language ("" if it did not)."""
        args = self.error_args
        if self.error_code == "refused":
            # The worker wrote its reasons in English: work them out again for this reader.
            args = {**args, "reasons": self._refusal_reasons() or args.get("reasons", "")}
        return failures.said(self.error_code, args, self.error)

    def _refusal_reasons(self) -> str:
        """Why the lab refuses this run's params, in the reader's language ("" if it no
        longer does, or the lab is gone: the saved English is shown then)."""
        from labs.catalogue.entries import get_lab
        from labs.runs.execution import ParamsRefused, refusals

        lab = get_lab(self.lab)
        errors = refusals(lab, self.params) if lab is not None else {}
        return str(ParamsRefused(errors)) if errors else ""

    def _finish(self, **fields) -> bool:
        """End the run with `fields` if it is still running; whether it was (then this
        object has its end's time, as saved: `labs.runs.ended.announce_succeeded`)."""
        fields["finished_at"] = timezone.now()
        fields["progress"] = None  # live samples are for the live view only: drop them
        if Run.objects.filter(pk=self.pk, status=Run.Status.RUNNING).update(**fields) != 1:
            return False
        self.finished_at, self.progress = fields["finished_at"], None
        return True
        self.refresh_from_db()
