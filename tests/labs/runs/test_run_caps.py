"""The per-student run caps hold when many requests arrive at the same instant.

Real threads, each with its own test client and its own database connection, all released
by one barrier: the race is the one a student makes by pressing Run in twenty tabs. The
broker is replaced by a list (what is raced here is the database, not Redis).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.management.commands.lab import _as_form_value
from labs.models import Run
from tests.base import make_user

pytestmark = pytest.mark.django_db(transaction=True)
HX = {"HTTP_HX_REQUEST": "true"}


def defaults_form(slug: str) -> dict[str, str]:
    lab = get_lab(slug)
    data = {p.name: _as_form_value(p.default) for p in lab.params}
    if lab.uses_seed:
        data["seed"] = str(lab.default_seed)
    return data


def press_run_at_once(user, slug: str, presses: int, data: dict | None = None) -> list[int]:
    """`presses` POSTs of `slug`'s form by `user`, released together; their status codes."""
    data = data or defaults_form(slug)
    barrier = threading.Barrier(presses)
    codes: list[int] = []
    lock = threading.Lock()

    def press() -> None:
        client = Client()
        client.force_login(user)
        try:
            barrier.wait(timeout=30)
            code = client.post(reverse("lab-detail", args=[slug]), data, **HX).status_code
            with lock:
                codes.append(code)
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=press) for _ in range(presses)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return codes


@pytest.fixture
def quiet_broker(monkeypatch):
    """Publishing records the run instead of sending it; the broker always answers."""
    sent: list[dict] = []
    lock = threading.Lock()

    def record(**kwargs):
        with lock:
            sent.append(kwargs)

    monkeypatch.setattr("labs.runs.dispatch.execute_run.apply_async", record)
    monkeypatch.setattr("labs.runs.dispatch.check_broker", lambda: None)
    return sent


def test_twenty_parallel_presses_make_exactly_the_cap(settings, quiet_broker):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 4
    alice = make_user("alice")

    codes = press_run_at_once(alice, "drain", 20)

    assert len(codes) == 20
    assert Run.objects.filter(owner=alice).count() == 4
    assert sorted(codes) == [200] * 4 + [429] * 16
    # Twenty identical presses: one run computes, the other three wait on it (result store).
    assert len(quiet_broker) == 1
    assert Run.objects.filter(owner=alice, same_as__isnull=False).count() == 3


def test_parallel_experiments_stop_at_the_experiment_cap(settings, quiet_broker):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 10
    settings.LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER = 2
    bob = make_user("bob")

    codes = press_run_at_once(bob, "poison-live", 10)

    assert Run.objects.filter(owner=bob, lab="poison-live").count() == 2
    assert codes.count(200) == 2
    assert codes.count(429) == 8


def test_one_students_presses_do_not_use_up_anothers_cap(settings, quiet_broker):
    settings.LAB_MAX_ACTIVE_RUNS_PER_USER = 3
    alice, bob = make_user("alice"), make_user("bob")
    threads = [
        threading.Thread(target=press_run_at_once, args=(who, "drain", 8)) for who in (alice, bob)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert Run.objects.filter(owner=alice).count() == 3
    assert Run.objects.filter(owner=bob).count() == 3


def test_a_class_pressing_the_same_run_at_once_computes_it_once(quiet_broker):
    students = [make_user(f"s{i}") for i in range(10)]
    threads = [
        threading.Thread(target=press_run_at_once, args=(who, "trapped-service", 1))
        for who in students
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert Run.objects.filter(lab="trapped-service").count() == 10
    assert len(quiet_broker) == 1  # one leader; nine wait on it
    assert Run.objects.filter(same_as__isnull=False).count() == 9
