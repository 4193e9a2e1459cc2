"""A run that meets a challenge is credited once; a draft that met it is kept.

Drafts (the runs a moving slider makes) are read by no challenge and deleted after an hour,
so the first one to meet a challenge is kept and credited as the worker finishes it; later
passing drafts are not kept, and a second telling of the same run credits nothing more.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse

from labs.runs import ended
from labs.runs.models import Run
from labs.runs.tasks import execute_run
from labs.web import fragment_cache
from teaching.challenge_credits import credit_runs
from teaching.challenge_runs import challenges_met
from teaching.gradebook import cache as gradebook_cache
from teaching.models import ChallengeCredit
from teaching.unit_challenges import get_challenge
from tests.labs.runs.test_run_caps import defaults_form

HX = {"HTTP_HX_REQUEST": "true"}
KEPT = "Challenge met: kept in your runs."


def queued_draft(owner, **changes) -> Run:
    """A draft as a slider's move leaves it, waiting for a worker."""
    params = get_challenge("drain-by-five").start_params() | changes
    return Run.objects.create(
        owner=owner, lab="drain", params=params, seed=0, draft=True, queue=settings.LAB_QUEUE
    )


def finish(run: Run) -> Run:
    execute_run.apply(args=(str(run.pk),))
    return Run.objects.get(pk=run.pk)


def test_a_draft_that_meets_a_challenge_is_kept_and_credited_as_the_worker_ends_it(client, school):
    school.assignment_a.challenges = ["drain-by-five"]
    school.assignment_a.save()
    assert challenges_met([school.alice.pk], [school.assignment_a]) == {
        (school.alice.pk, school.assignment_a.pk): 0
    }
    version = gradebook_cache.version(school.class_a.pk)
    done = finish(queued_draft(school.alice, per_waiting=50))
    assert done.status == Run.Status.SUCCEEDED and not done.draft
    credit = ChallengeCredit.objects.get()
    assert (credit.student, credit.challenge, credit.met_by, credit.kept) == (
        school.alice,
        "drain-by-five",
        done.pk,
        True,
    )
    # The teacher's gradebook reads it as it reads any kept run, and its copy is renewed.
    assert challenges_met([school.alice.pk], [school.assignment_a]) == {
        (school.alice.pk, school.assignment_a.pk): 1
    }
    assert gradebook_cache.version(school.class_a.pk) > version
    client.force_login(school.alice)
    body = client.get(done.get_absolute_url(), **HX).content.decode()
    assert KEPT in body
    assert str(done.pk) in client.get(reverse("my-runs")).content.decode()
    fragment_cache.forget(done.pk)
    client.cookies["django_language"] = "mr"
    body = client.get(done.get_absolute_url(), **HX).content.decode()
    assert "आव्हान गाठले: हा रन तुमच्या रनमध्ये ठेवला आहे." in body


def test_telling_the_same_run_twice_credits_it_once(people):
    done = finish(queued_draft(people.alice, per_waiting=50))
    assert ChallengeCredit.objects.count() == 1
    assert credit_runs([done.pk]) == 0
    assert credit_runs([done.pk]) == 0
    assert ChallengeCredit.objects.count() == 1


def test_only_the_first_passing_draft_is_kept(people):
    first = finish(queued_draft(people.alice, per_waiting=50))
    second = finish(queued_draft(people.alice, per_waiting=40))
    assert not first.draft and second.draft
    assert list(ChallengeCredit.objects.values_list("met_by", flat=True)) == [first.pk]


def test_a_draft_that_misses_stays_a_draft_and_earns_nothing(client, people):
    done = finish(queued_draft(people.alice))  # the lesson's values: the queue empties late
    assert done.draft and not ChallengeCredit.objects.exists()
    client.force_login(people.alice)
    assert KEPT not in client.get(done.get_absolute_url(), **HX).content.decode()


def test_a_run_pressed_with_run_is_credited_but_needs_no_keeping(people):
    run = queued_draft(people.alice, per_waiting=50)
    Run.objects.filter(pk=run.pk).update(draft=False)
    finish(run)
    credit = ChallengeCredit.objects.get()
    assert credit.met_by == run.pk and not credit.kept


def test_the_database_holds_one_credit_per_student_and_challenge(people):
    """Two workers finishing two passing drafts at once: the second insert is refused."""
    first = finish(queued_draft(people.alice, per_waiting=50))
    other = Run.objects.create(owner=people.alice, lab="drain", params={}, seed=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        ChallengeCredit.objects.create(
            student=people.alice, challenge="drain-by-five", met_by=other.pk
        )
    assert list(ChallengeCredit.objects.values_list("met_by", flat=True)) == [first.pk]


@pytest.mark.redis
def test_the_press_waiting_on_a_draft_kept_for_a_challenge_shows_it_kept(people, settings):
    """The worker's announcement says the draft was kept (the press reads no row back)."""
    settings.LAB_PRESS_WAITERS, settings.LAB_PRESS_WAIT_S = 2, 30
    passing, missing = queued_draft(people.alice, per_waiting=50), queued_draft(people.alice)
    for draft in (passing, missing):
        execute_run.apply(args=(str(draft.pk),))
    assert not ended.as_it_ends(passing).draft
    assert ended.as_it_ends(missing).draft


def test_a_draft_the_store_answers_is_judged_as_its_post_holds_it(
    client, people, published, django_capture_on_commit_callbacks
):
    """A classmate's drag computed these values first: the student's own move to them is
    answered from the store, and credited and kept from the run the post holds, without
    reading it back."""
    data = defaults_form("drain") | {"per_waiting": "50"}
    client.force_login(people.bob)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("lab-draft", args=["drain"]), data, **HX)
    done = finish(Run.objects.get(owner=people.bob))
    client.force_login(people.alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(reverse("lab-draft", args=["drain"]), data, **HX)
    mine = Run.objects.get(owner=people.alice)
    assert mine.same_as_id == done.pk and not mine.draft  # kept: it met the challenge
    credit = ChallengeCredit.objects.get(student=people.alice)
    assert (credit.challenge, credit.met_by, credit.kept) == ("drain-by-five", mine.pk, True)
    assert "status-succeeded" in answer.content.decode()
    assert KEPT in client.get(mine.get_absolute_url(), **HX).content.decode()
