"""A computed result is written out as JSON once: the text `run_lab` checked is what is saved."""

from __future__ import annotations

import json

from django.db import connection

from labs.catalogue.entries import get_lab
from labs.runs.models import Run, StoredResult
from labs.runs.result_json import ReadFromJSON, SavedAsRead
from labs.runs.result_store import result_key
from labs.runs.tasks import execute_run
from tests.labs.runs.test_tasks import DRAIN_PARAMS


def drain_run(owner) -> Run:
    """A queued drain run with the lesson's values, as Run makes it."""
    key = result_key(get_lab("drain"), DRAIN_PARAMS, 0)
    return Run.objects.create(owner=owner, lab="drain", params=DRAIN_PARAMS, seed=0, result_key=key)


def test_a_computed_run_is_written_out_as_json_once(people, monkeypatch):
    written = []
    real = json.JSONEncoder.iterencode

    def counted(self, o, _one_shot=False):
        if isinstance(o, dict) and "series" in o:  # a result, not a message or a lookup
            written.append(o)
        return real(self, o, _one_shot)

    monkeypatch.setattr(json.JSONEncoder, "iterencode", counted)
    run = drain_run(people.alice)
    assert execute_run.run(str(run.pk)) == "succeeded"
    assert len(written) == 1  # checked by run_lab; saved as that text (it was written twice)


def test_the_saved_text_is_what_django_would_have_written(people):
    run = drain_run(people.alice)
    execute_run.run(str(run.pk))
    stored = StoredResult.objects.get(runs=run)
    with connection.cursor() as cursor:  # the column as the database holds it
        cursor.execute("SELECT data FROM labs_storedresult WHERE id = %s", [stored.pk])
        (saved,) = cursor.fetchone()
    if isinstance(saved, str):  # SQLite keeps the text (PostgreSQL's jsonb its own form)
        assert saved == json.dumps(stored.data)
    assert stored.data["summary"]["peak_backlog"] == 1500


def test_anything_else_is_written_out_as_usual():
    read = ReadFromJSON('{"a": [1, 2.5, null]}')
    assert read == {"a": [1, 2.5, None]}
    assert json.dumps(read, cls=SavedAsRead) == read.text
    assert json.dumps({"b": (1, 2)}, cls=SavedAsRead) == '{"b": [1, 2]}'
