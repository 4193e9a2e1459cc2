"""A worker keeps its database connection between tasks, closing it by Django's rule only."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import task_postrun, task_prerun
from django.db import connection

from school.celery import app

pytestmark = pytest.mark.django_db(transaction=True)  # no test transaction to keep it open


class Task:
    """What the signals are sent by: a task and its request."""

    def __init__(self, *, eager: bool) -> None:
        self.request = SimpleNamespace(is_eager=eager)


A_TASK, AN_EAGER_TASK = Task(eager=False), Task(eager=True)


def open_connection():
    connection.ensure_connection()
    return connection.connection


def a_task_runs(task=A_TASK) -> None:
    """The signals a worker sends around one task, to Celery's Django fixup and to ours."""
    fixup = DjangoWorkerFixup(app)
    task_prerun.send(sender=task)
    fixup.on_task_prerun(sender=task)
    fixup.on_task_postrun(sender=task)
    task_postrun.send(sender=task)


def test_a_young_connection_is_kept_from_one_task_to_the_next():
    kept = open_connection()
    connection.close_at = time.monotonic() + 60  # as with CONN_MAX_AGE 60 (./dev serve)
    a_task_runs()
    a_task_runs()
    assert connection.connection is kept


def test_a_connection_past_its_age_is_closed_between_tasks():
    open_connection()
    connection.close_at = time.monotonic() - 1
    a_task_runs()
    assert connection.connection is None


def test_a_task_run_in_its_callers_process_leaves_the_callers_connection_alone():
    kept = open_connection()
    connection.close_at = time.monotonic() - 1
    task_prerun.send(sender=AN_EAGER_TASK)
    task_postrun.send(sender=AN_EAGER_TASK)
    assert connection.connection is kept
