"""A fair share of the quick queue per class: a class's runs are sent at a priority set by
how many of its runs already wait, so another class's first runs go ahead of its flood, and
admission refuses the flooding class alone (`labs.runs.fair_share`).

The broker is replaced by a list here (what is sent, at which priority); the real worker
taking the levels in order is tests/e2e/test_fair_share.py, and admission read from the real
sampler is tests/labs/runs/test_admission.py.
"""

from __future__ import annotations

import re
import threading
from datetime import timedelta
from itertools import count
from unittest import mock

import pytest
from django.utils import timezone

from labs.catalogue.entries import get_lab
from labs.runs import fair_share, telemetry_store
from labs.runs.dispatch import RunRefused, start_run, start_runs
from labs.runs.models import Run
from teaching.models import Membership
from tests.base import make_user

pytestmark = pytest.mark.django_db
SEEDS = count(100)


def phase_map(user) -> Run:
    """A phase map with a seed of its own (about 0.3 s of a quick worker; never a twin)."""
    lab = get_lab("phase-map")
    return start_run(user, lab, lab.defaults(), next(SEEDS))


def students_of(classroom, n: int, prefix: str) -> list:
    users = [make_user(f"{prefix}{i}") for i in range(n)]
    for user in users:
        Membership.objects.create(classroom=classroom, student=user)
    return users


def test_a_lanes_level_is_the_bit_length_of_what_it_already_has_waiting():
    levels = {n: fair_share.level_for(n) for n in (0, 1, 2, 3, 4, 7, 8, 255, 256, 10_000)}
    assert levels == {0: 0, 1: 1, 2: 2, 3: 2, 4: 3, 7: 3, 8: 4, 255: 8, 256: 9, 10_000: 9}
    with pytest.raises(ValueError, match="waiting must be at least 0, got -1"):
        fair_share.level_for(-1)


def test_a_class_is_sent_lower_as_its_backlog_grows_and_another_classs_first_run_goes_first(
    school, published, django_capture_on_commit_callbacks
):
    flooders = students_of(school.class_a, 4, "a")
    with django_capture_on_commit_callbacks(execute=True):
        maps = [phase_map(student) for student in flooders for _ in range(2)]
        other = phase_map(school.bob)  # class B, nothing of theirs waiting

    assert [run.priority for run in maps] == [0, 1, 2, 2, 3, 3, 3, 3]
    assert {run.lane for run in maps} == {f"class:{school.class_a.pk}"}
    assert (other.lane, other.priority) == (f"class:{school.class_b.pk}", 0)
    # The broker is told the same priorities, in the order the runs were pressed.
    assert [message["priority"] for message in published] == [0, 1, 2, 2, 3, 3, 3, 3, 0]


def test_runs_that_take_no_worker_take_no_place_in_the_share(school, published):
    lab = get_lab("phase-map")
    first = start_run(school.alice, lab, lab.defaults(), 7)
    twin = start_run(make_user("carol"), lab, lab.defaults(), 7)  # waits on `first`
    Membership.objects.create(classroom=school.class_a, student=twin.owner)
    mine = phase_map(make_user("dan"))  # in no class: a lane of his own

    assert (first.priority, twin.same_as_id, twin.priority) == (0, first.pk, 0)
    assert (mine.lane, mine.priority) == (f"user:{mine.owner_id}", 0)
    # Only the leader counts as waiting in class A: the next press is the lane's second.
    assert phase_map(school.alice).priority == 1


def test_a_heavy_run_and_a_run_with_the_share_off_are_sent_at_the_first_level(
    school, published, settings
):
    lab = get_lab("phase-map")
    ten = lab.defaults() | {"ten_seeds": True}  # ten maps: over LAB_HEAVY_FROM_S
    students = students_of(school.class_a, 2, "a")
    phase_map(students[0])
    heavy = start_run(students[0], lab, ten, 5)
    assert (heavy.queue, heavy.priority) == (settings.LAB_HEAVY_QUEUE, 0)

    settings.LAB_FAIR_SHARE = False
    assert phase_map(students[1]).priority == 0


def test_a_before_after_pair_takes_two_places(school, published):
    lab = get_lab("phase-map")
    before, after = start_runs(
        school.alice, lab, [(lab.defaults(), 1), (lab.defaults() | {"workers": 9}, 1)]
    )
    assert (before.priority, after.priority) == (0, 1)


def old_backlog(classroom, runs: int, waited_s: float) -> None:
    """`runs` phase maps of `classroom`'s students, queued `waited_s` ago."""
    students = students_of(classroom, (runs + 3) // 4, f"c{classroom.pk}-")
    made = [phase_map(students[i // 4]) for i in range(runs)]
    Run.objects.filter(pk__in=[run.pk for run in made]).update(
        created_at=timezone.now() - timedelta(seconds=waited_s)
    )


def test_a_class_whose_own_runs_wait_too_long_is_refused_and_another_class_is_not(
    school, published, settings
):
    old_backlog(school.class_a, 8, settings.LAB_ADMIT_OLDEST_S + 5)

    with pytest.raises(RunRefused) as refused:
        phase_map(school.alice)  # class A
    assert refused.value.status == 503
    assert re.match(  # 15 s when pressed, and a moment more on a busy machine
        r"Your class already has 8 runs waiting for a lab runner, the oldest for 1[5-9] s",
        str(refused.value),
    )
    assert "each class waits its own turn" in str(refused.value)
    assert phase_map(school.bob).priority == 0  # class B


def test_someone_in_no_class_is_told_of_their_own_runs(people, published, settings):
    lab = get_lab("trapped-service")
    mine = start_run(people.alice, lab, lab.defaults(), 1)
    Run.objects.filter(pk=mine.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.LAB_ADMIT_OLDEST_S + 1)
    )
    with pytest.raises(RunRefused, match="You already have 1 run waiting for a lab runner"):
        start_run(people.alice, lab, lab.defaults(), 2)
    assert start_run(people.bob, lab, lab.defaults(), 3).priority == 0


def test_with_the_share_off_a_class_is_not_judged_by_its_own_runs(school, published, settings):
    old_backlog(school.class_a, 4, settings.LAB_ADMIT_OLDEST_S + 5)
    settings.LAB_FAIR_SHARE = False
    assert phase_map(school.alice).priority == 0  # no sampler: nothing else is known


@pytest.mark.redis
def test_a_press_counts_as_under_way_only_until_its_transaction_ends(school, published, settings):
    """Another press of the class made meanwhile counts this one (it is not saved yet); once
    it is saved, or refused, only the database counts it."""
    lane = f"class:{school.class_a.pk}"
    under_way = telemetry_store.client()
    seen: list[int] = []
    take = fair_share.Share.take

    def taking(share):  # as the run is saved, inside the press's transaction
        seen.append(int(under_way.get(fair_share.pressing_key(lane)) or 0))
        return take(share)

    with mock.patch.object(fair_share.Share, "take", taking):
        phase_map(school.alice)
    assert seen == [1]
    assert under_way.get(fair_share.pressing_key(lane)) is None  # none under way

    old_backlog(school.class_a, 4, settings.LAB_ADMIT_OLDEST_S + 5)
    with pytest.raises(RunRefused):
        phase_map(school.alice)
    assert under_way.get(fair_share.pressing_key(lane)) is None


@pytest.mark.redis
def test_a_counter_that_redis_lost_mid_press_does_not_go_below_zero():
    lane = "class:lost"
    fair_share.enter(lane)
    telemetry_store.client().delete(fair_share.pressing_key(lane))  # Redis restarted
    fair_share.leave(lane)
    assert telemetry_store.client().get(fair_share.pressing_key(lane)) is None
    assert fair_share.enter(lane) == 0
    fair_share.leave(lane)


@pytest.mark.redis
def test_a_class_pressing_while_another_press_is_under_way_takes_the_next_place(school, published):
    """Alice's press is counted while a classmate's, on another web process, is between its
    count and its commit (its run not yet visible here)."""
    lane = f"class:{school.class_a.pk}"
    assert fair_share.enter(lane) == 0  # the classmate's press, under way
    try:
        assert phase_map(school.alice).priority == 1
    finally:
        fair_share.leave(lane)


@pytest.mark.django_db(transaction=True)
def test_a_class_pressing_at_the_same_instant_takes_one_place_each(monkeypatch):
    """Eight students of one class press at once, each on a database connection of their
    own (PostgreSQL: truly at once). Counted from the database alone, several would see none
    of the others' runs (not committed yet) and all be sent first; counting the presses
    under way too, one is sent first and the others below it."""
    from django.db import connection

    from teaching.models import Classroom

    monkeypatch.setattr("labs.runs.dispatch.execute_run.apply_async", lambda **kwargs: None)
    monkeypatch.setattr("labs.runs.dispatch.check_broker", lambda: None)
    classroom = Classroom.objects.create(name="Flood", teacher=make_user("tara", teacher=True))
    students = students_of(classroom, 8, "a")
    barrier = threading.Barrier(len(students))
    levels: list[int] = []
    lock = threading.Lock()

    def press(student, seed: int) -> None:
        lab = get_lab("phase-map")
        try:
            barrier.wait(timeout=30)
            run = start_run(student, lab, lab.defaults(), seed)
            with lock:
                levels.append(run.priority)
        finally:
            connection.close()  # this thread's own

    threads = [threading.Thread(target=press, args=(s, i)) for i, s in enumerate(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    # Eight presses one after another take 0, 1, 2, 2, 3, 3, 3, 3. At once, a press that
    # has committed but not yet stopped counting as under way may be counted twice (one
    # level lower for a classmate), never not at all.
    assert len(levels) == 8
    assert levels.count(0) == 1 and levels.count(1) <= 1
    assert max(levels) >= 3


def test_one_queue_for_quick_and_heavy_work_stays_first_come_first_served(
    school, published, settings
):
    """Experiments there take turns, and a run given back for its turn is sent again at the
    top (`labs.runs.turns`): priorities by class would not hold, so there are none."""
    settings.LAB_HEAVY_QUEUE = settings.LAB_QUEUE
    students = students_of(school.class_a, 2, "a")
    assert [phase_map(student).priority for student in students] == [0, 0]
