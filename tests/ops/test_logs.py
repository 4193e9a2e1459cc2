"""A refused request (403) and a request during a database outage log one line with the
reason, never a full traceback: ~270 tracebacks per 30 s outage buried the log (D12)."""

from __future__ import annotations

import logging

import pytest
from django.db import OperationalError
from django.test import Client
from django.urls import reverse


def request_records(caplog):
    return [r for r in caplog.records if r.name == "django.request"]


def test_a_403_logs_one_line_with_its_reason(client, school, caplog):
    client.force_login(school.alice)
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get(reverse("class-accounts", args=[school.class_a.pk]))
    assert response.status_code == 403
    (record,) = request_records(caplog)
    assert record.exc_info is None and record.exc_text is None
    assert "Forbidden" in record.getMessage() and "manage its students" in record.getMessage()


def test_a_database_outage_logs_no_traceback(people, caplog, monkeypatch):
    def down(*args, **kwargs):
        raise OperationalError("connection to server at 127.0.0.1 port 5432 failed")

    client = Client(raise_request_exception=False)
    client.force_login(people.alice)
    from importlib import import_module

    from django.conf import settings

    # The session's load is the request's first read (school/sessions.py: cache, then rows).
    monkeypatch.setattr(import_module(settings.SESSION_ENGINE).SessionStore, "load", down)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = client.get(reverse("home"))
    assert response.status_code == 500
    records = request_records(caplog)
    assert records
    for record in records:
        assert record.exc_info is None and record.exc_text is None
        assert "database" in record.getMessage() and "OperationalError" in record.getMessage()


@pytest.mark.nodb
def test_a_real_bug_still_logs_its_traceback():
    from ops.logs import OneLineForExpected

    try:
        raise KeyError("a bug")
    except KeyError:
        import sys

        record = logging.LogRecord(
            "django.request", 40, "", 0, "Internal Server Error: /", (), sys.exc_info()
        )
    assert OneLineForExpected().filter(record) is True
    assert record.exc_info is not None
