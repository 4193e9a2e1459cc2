"""A double-clicked form: two identical POSTs at once end like one, never in a 500."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from teaching.forms import ClassroomForm
from teaching.models import Classroom
from tests.base import make_user

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_double_clicked_create_class_makes_one_class_and_no_error(monkeypatch):
    teacher = make_user("tara", teacher=True)
    both_checked = threading.Barrier(2)
    original = ClassroomForm.clean_name

    def clean_then_wait(self):
        # Both requests pass the "no class by that name yet" check before either saves:
        # the interleaving a double-click makes on a busy server.
        name = original(self)
        both_checked.wait(timeout=30)
        return name

    monkeypatch.setattr(ClassroomForm, "clean_name", clean_then_wait)
    answers: list[tuple[int, str]] = []

    def press() -> None:
        client = Client(raise_request_exception=False)
        client.force_login(teacher)
        try:
            response = client.post(reverse("class-new"), {"name": "7B"})
            answers.append((response.status_code, response.get("Location", "")))
        finally:
            connection.close()

    threads = [threading.Thread(target=press) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    classroom = Classroom.objects.get(teacher=teacher)
    assert classroom.name == "7B"
    assert answers == [(302, classroom.get_absolute_url())] * 2
