"""A backup restores every row: made while the site writes, damaged, put back, compared.

On both databases (the PostgreSQL pass of ./dev test runs it against pg_dump/pg_restore).
"""

from __future__ import annotations

import hashlib
import json
import threading

import pytest
from django.core.management import CommandError, call_command
from django.db import close_old_connections, connection

from labs.capstone.analysis import Analysis
from labs.runs.models import Run
from ops.backup import BackupError, restore
from teaching.gradebook.hand_in import hand_in
from teaching.models import Assignment, Classroom, Submission, SubmissionVersion
from tests.base import DUE, finished_run, make_user

pytestmark = pytest.mark.django_db(transaction=True)


def row_counts() -> dict[str, int]:
    """Every table's row count."""
    with connection.cursor() as cursor:
        counts = {}
        for table in sorted(connection.introspection.table_names(cursor)):
            cursor.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
            counts[table] = cursor.fetchone()[0]
    return counts


def checksum(model) -> str:
    """A digest of every row of `model`, every field, in primary-key order."""
    rows = [
        {key: str(value) for key, value in row.items()}
        for row in model.objects.order_by("pk").values()
    ]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def checksums() -> dict[str, str]:
    return {m.__name__: checksum(m) for m in (Submission, SubmissionVersion, Analysis, Run)}


@pytest.fixture
def year(school):
    """A class with a pair hand-in (its analysis, feedback and an archived first version)."""
    pair = Assignment.objects.create(
        classroom=school.class_a, title="Pair", lab="drain", handin="pair", due_at=DUE
    )
    before, after = finished_run(school.alice), finished_run(school.alice, per_worker=90)
    Analysis.objects.create(owner=school.alice, before=before, after=after, trigger="A spike.")
    hand_in(pair, school.alice, after, before, DUE)
    again = finished_run(school.alice, per_worker=80)
    hand_in(pair, school.alice, again, before, DUE)  # the first becomes a SubmissionVersion
    Submission.objects.filter(assignment=pair).update(
        feedback="Good loop, name the trigger.", scores={"loop": 4}, feedback_at=DUE
    )
    hand_in(school.assignment_b, school.bob, finished_run(school.bob), None, DUE)
    assert SubmissionVersion.objects.count() == 1
    return school


def test_a_backup_taken_while_runs_are_written_restores_every_row(year, tmp_path):
    writer_user = make_user("writer")
    expected_counts, expected_sums = row_counts(), checksums()
    stop, written = threading.Event(), []

    def keep_writing():
        # Another process of the site, saving runs all through the backup.
        try:
            while not stop.is_set():
                written.append(
                    Run.objects.create(owner=writer_user, lab="drain", params={}, seed=1).pk
                )
        finally:
            close_old_connections()
            connection.close()

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        while len(written) < 3:
            pass
        path = tmp_path / "site.backup"
        call_command("backup", str(path))
    finally:
        stop.set()
        writer.join()
    assert path.stat().st_size > 0
    assert not path.with_name(path.name + ".partial").exists()

    Classroom.objects.filter(pk=year.class_a.pk).delete()  # the damage: a class is gone
    Run.objects.filter(owner=writer_user).delete()
    assert Submission.objects.filter(assignment__classroom=year.class_a.pk).count() == 0

    call_command("restore", str(path), "--yes")

    counts = row_counts()
    kept = Run.objects.filter(owner=writer_user).count()
    assert 1 <= kept <= len(written)  # a snapshot from the middle of the writing, whole
    assert counts["labs_run"] == expected_counts["labs_run"] + kept
    assert {t: n for t, n in counts.items() if t != "labs_run"} == {
        t: n for t, n in expected_counts.items() if t != "labs_run"
    }
    sums = checksums()
    assert {k: v for k, v in sums.items() if k != "Run"} == {
        k: v for k, v in expected_sums.items() if k != "Run"
    }
    Run.objects.filter(owner=writer_user).delete()
    assert checksums()["Run"] == expected_sums["Run"]


def test_a_restore_refuses_a_file_that_is_not_a_backup(school, tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("not a database")
    with pytest.raises(BackupError, match="is not a"):
        restore(bogus)
    with pytest.raises(CommandError, match="no backup at"):
        call_command("restore", str(tmp_path / "missing.dump"), "--yes")
    assert Classroom.objects.count() == 2  # nothing touched


def test_without_a_file_it_writes_into_the_backup_folder(school, tmp_path, settings):
    settings.BACKUP_DIR = tmp_path / "backups"
    call_command("backup")
    (made,) = list((tmp_path / "backups").iterdir())
    assert made.name.startswith(f"site-{connection.vendor}-")
    assert oct(made.stat().st_mode & 0o777) == "0o600"
