"""Turns on the heavy pool are a person's, not an account's (issue 39 item 3, the attack's D3:
with one experiment each from 4 accounts a classmate's 3 s experiment took 160.8 s).

Judged by the order of turns, never by time: a pool of two heavy processes takes the
queue's messages oldest first; a run given back for its turn goes to the back."""

from __future__ import annotations

from collections import deque
from itertools import count

import pytest
from django.test import RequestFactory
from django.urls import reverse

from accounts.middleware import RunAddressMiddleware
from labs.catalogue.entries import get_lab
from labs.runs.dispatch import _make
from labs.runs.models import Run
from labs.runs.turns import current_address, pressed_from, wait_for_turn
from tests.base import make_user

HEAVY_PROCESSES = 2
SEEDS = count(1)


def press(user, address: str) -> Run:
    """An experiment pressed by `user` from `address`, as a run view makes it."""
    lab = get_lab("fanout-live")
    params = lab.defaults() | {"jobs": 20, "crashes": 0}
    seed = next(SEEDS)  # every press its own run, never a twin of another
    with pressed_from(address):
        return _make(user, lab, params, seed, f"key-{seed}", None, None, False)


def sent_in_order(queue: deque[Run]) -> list[Run]:
    """The runs the heavy processes go on with, in order, until every process is busy (no
    run ends meanwhile: each holds its process, as a trapped-live one does for 110 s)."""
    started: list[Run] = []
    while queue and len(started) < HEAVY_PROCESSES:
        message = queue.popleft()
        run = Run.objects.claim(message.pk, lease_s=60)
        assert run is not None
        if not wait_for_turn(run, lambda message=message: queue.append(message)):
            started.append(run)
    return started


@pytest.fixture
def turns_on(settings):
    settings.LAB_EXPERIMENT_TURNS = True
    settings.LAB_TURNS_BY_ADDRESS = True


@pytest.mark.django_db
def test_extra_accounts_from_one_address_buy_no_extra_turns(turns_on, published, settings):
    """4 accounts from one address each press an experiment, then a classmate from another
    address: the classmate's run is the second sent to a heavy process, not the fifth."""
    script = [make_user(f"junk{i}") for i in range(4)]
    classmate = make_user("classmate")
    queue = deque(press(user, "10.0.0.66") for user in script)
    queue.append(press(classmate, "10.0.0.7"))
    assert {run.queue for run in queue} == {settings.LAB_HEAVY_QUEUE}  # the heavy pool

    started = sent_in_order(queue)

    assert [run.owner.username for run in started] == ["junk0", "classmate"]
    # The script's other three wait for their person, queued, attempt not counted.
    waiting = Run.objects.filter(owner__in=script[1:])
    assert {(run.status, run.attempts) for run in waiting} == {("queued", 0)}


@pytest.mark.django_db
def test_one_account_from_two_addresses_still_takes_one_turn(turns_on, published):
    alice = make_user("alice")
    classmate = make_user("classmate")
    queue = deque([press(alice, "10.0.0.5"), press(alice, "10.0.0.6")])
    theirs = press(classmate, "10.0.0.7")
    queue.append(theirs)
    assert [run.owner for run in sent_in_order(queue)] == [alice, classmate]


@pytest.mark.django_db
def test_turns_by_address_can_be_turned_off_for_a_class_behind_one_nat(settings, published):
    """Off, a class that reaches the site from one address is not one person."""
    settings.LAB_EXPERIMENT_TURNS = True
    settings.LAB_TURNS_BY_ADDRESS = False
    asha, ravi = make_user("asha"), make_user("ravi")
    queue = deque([press(asha, "10.0.0.1"), press(ravi, "10.0.0.1")])
    assert [run.owner for run in sent_in_order(queue)] == [asha, ravi]


@pytest.mark.django_db
def test_a_run_made_answering_a_request_carries_its_address(settings):
    settings.BEHIND_PROXY = False
    seen = []

    def view(request):
        seen.append(current_address())
        return None

    request = RequestFactory().post("/labs/drain/run/", REMOTE_ADDR="192.168.4.20")
    RunAddressMiddleware(view)(request)
    assert seen == ["192.168.4.20"]
    assert current_address() == ""  # and not after it


@pytest.mark.django_db
def test_a_run_waiting_for_another_accounts_turn_says_so(turns_on, published):
    from labs.runs.waiting import waiting_text

    first, second = make_user("junk1"), make_user("junk2")
    running = press(first, "10.0.0.66")
    assert Run.objects.claim(running.pk, lease_s=60) is not None
    own = press(first, "10.0.0.66")
    theirs = press(second, "10.0.0.66")
    elsewhere = press(make_user("classmate"), "10.0.0.7")
    assert "Your other experiment is running" in waiting_text(own)
    assert "one address counts as one person" in waiting_text(theirs)
    assert "experiment" not in waiting_text(elsewhere).lower()


def test_an_experiment_pressed_through_the_site_records_its_address(
    client, school, published, settings
):
    """The whole way: an assignment's Run pressed from an address (the class's assignment lab
    is drain, a simulation, so any run will do: the address is on every run)."""
    settings.BEHIND_PROXY = False
    client.force_login(school.alice)
    response = client.post(
        reverse("assignment-run", args=[school.assignment_a.pk]),
        {
            "arrivals": "50",
            "per_worker": "100",
            "rule": "backlog",
            "fixed_workers": "3",
            "per_waiting": "100",
            "min_workers": "1",
            "max_workers": "10",
        },
        REMOTE_ADDR="10.0.0.66",
    )
    assert response.status_code == 302
    assert list(Run.objects.filter(owner=school.alice).values_list("address", flat=True)) == [
        "10.0.0.66"
    ]
