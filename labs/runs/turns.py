"""Turns on the heavy pool: a student's real experiments run one at a time.

An experiment holds a heavy worker process for up to `LAB_EXPERIMENT_BUDGET_S` (110 s), and
the caps let a student have two going. Without turns, one student's two trapped-live runs
took both processes of the default heavy worker and every other student's experiment
waited behind them (3.0 s became 75.5 s). With turns, a student's experiment is only
kept by the worker that claimed it while none of their other experiments is running (with
a live lease); otherwise it is given back and its task sent to the heavy queue again, to
try in `TURN_WAIT_S`, and the processes go to other students' runs meanwhile. The bound
it gives: docs/run-lifecycle.md, "Fair use of the workers".

A turn is a person's, not an account's (the attack's D3: four accounts got four turns, and
a classmate's 3 s experiment waited 160.8 s). The site tells a person by the address the
run was pressed from (`Run.address`, recorded by `accounts.middleware.RunAddressMiddleware`
through `pressed_from`): experiments from one address, whatever the account, run one at a
time, as one account's do. Not by the `known_device` cookie: a script makes a new device
by dropping a cookie, while a new address on a school network takes a new machine. Not by
class, round-robin by member: the extra accounts are members too. A school whose whole
class reaches the site from one address (a NAT in front of it) sets
`LAB_TURNS_BY_ADDRESS=false`, and turns are then by account again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone

from labs.runs.admission import experiment_slugs
from labs.runs.models import Run

# How soon a run that waits for its owner's other experiment asks again: short against an
# experiment's seconds, long enough that a waiting task costs the broker next to nothing.
TURN_WAIT_S = 2

_address: ContextVar[str] = ContextVar("run_address", default="")


@contextmanager
def pressed_from(address: str) -> Iterator[None]:
    """Runs made inside are recorded as pressed from `address` (one request's)."""
    token = _address.set(address[:64])
    try:
        yield
    finally:
        _address.reset(token)


def current_address() -> str:
    """The address of the request making runs now ('' outside a request)."""
    return _address.get()


def _by_address() -> bool:
    return settings.LAB_TURNS_BY_ADDRESS


def same_person(owner_id, address: str) -> Q:
    """The runs of the person who pressed as `owner_id` from `address`."""
    if address and _by_address():
        return Q(owner_id=owner_id) | Q(address=address)
    return Q(owner_id=owner_id)


def other_experiment_running(run_id) -> bool:
    """Whether the run is an experiment whose person (its owner, or its address) has another
    experiment running now (always False with `LAB_EXPERIMENT_TURNS` off)."""
    return whose_turn_it_waits_for(run_id) is not None


def whose_turn_it_waits_for(run_id) -> str | None:
    """`"own"` when the run's owner has another experiment running, `"address"` when only
    another account from the run's address has, None when it waits for nobody's (always
    None with `LAB_EXPERIMENT_TURNS` off)."""
    if not settings.LAB_EXPERIMENT_TURNS:
        return None
    row = Run.objects.filter(pk=run_id).values("owner_id", "lab", "address").first()
    if row is None or row["owner_id"] is None or row["lab"] not in experiment_slugs():
        return None
    owners = set(
        Run.objects.filter(
            same_person(row["owner_id"], row["address"]),
            lab__in=experiment_slugs(),
            status=Run.Status.RUNNING,
            lease_expires_at__gt=timezone.now(),
        )
        .exclude(pk=run_id)
        .values_list("owner_id", flat=True)
    )
    if not owners:
        return None
    return "own" if row["owner_id"] in owners else "address"


def waiting_for_their_turn() -> Q:
    """Queued experiments whose person has another experiment running: they wait for that
    person, not for a worker, so the site's backlog figures (and the admission that reads
    them) leave them out: one student's second experiment must not make the heavy queue
    look old to everyone else."""
    if not settings.LAB_EXPERIMENT_TURNS:
        return Q(pk__in=[])
    person = Q(owner_id=OuterRef("owner_id"))
    if _by_address():
        person |= Q(address=OuterRef("address")) & ~Q(address="")
    running = Run.objects.filter(
        person,
        lab__in=experiment_slugs(),
        status=Run.Status.RUNNING,
        lease_expires_at__gt=timezone.now(),
    ).exclude(pk=OuterRef("pk"))
    return Q(status=Run.Status.QUEUED, lab__in=experiment_slugs()) & Q(Exists(running))


def wait_for_turn(run: Run, send_again: Callable[[], object]) -> bool:
    """After `run` was claimed: give it back when its person (owner or address) has another
    experiment running.

    True when it was given back: `send_again` has published its task anew (with a delay)
    and the run is queued again, its attempt not counted. The owner's row is locked while
    their experiments are counted, so of two of one student's experiments claimed at the
    same moment by two worker processes exactly one is given back (the same lock the caps
    take when runs are made); so are the running experiments from its address, so of two
    accounts' experiments from one address exactly one goes on. Quick runs never come here
    (one query for them: the claim).
    """
    if not settings.LAB_EXPERIMENT_TURNS:
        return False
    if run.owner_id is None or run.lab not in experiment_slugs():
        return False
    with transaction.atomic():
        list(get_user_model().objects.select_for_update().filter(pk=run.owner_id).values_list("pk"))
        if run.address and _by_address():
            running_here = Run.objects.select_for_update().filter(
                address=run.address, lab__in=experiment_slugs(), status=Run.Status.RUNNING
            )
            list(running_here.order_by("pk").values_list("pk"))
        if not other_experiment_running(run.pk):
            return False
        # Published before the run is queued again, so the sweeper never finds it queued
        # with no message (labs.runs.lost); the message waits TURN_WAIT_S anyway.
        send_again()
        Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(
            status=Run.Status.QUEUED,
            started_at=None,
            lease_expires_at=None,
            attempts=F("attempts") - 1,
        )
    return True
