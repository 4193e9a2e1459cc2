"""End of term: a class archived (read-only, still readable), downloaded whole, and one
student's personal data removed with the class's figures kept."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from labs.capstone.analysis import Analysis
from labs.runs.models import Run
from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS
from teaching.gradebook.book import build_gradebook
from teaching.gradebook.hand_in import hand_in
from teaching.models import Assignment, Submission
from tests.base import DUE, PASSWORD, finished_run

SHORT = {"horizon_s": 120, "recover_at_s": 100}


def url(name, *args):
    return reverse(name, args=args)


@pytest.fixture
def term(school, frozen):
    """Class A at the end of term: alice's run hand-in, and her pair handed in twice."""
    frozen(DUE - timedelta(days=1))
    hand_in(school.assignment_a, school.alice, finished_run(school.alice), None, DUE)
    pair = Assignment.objects.create(
        classroom=school.class_a,
        title="Free the trapped service",
        lab="trapped-service",
        handin="pair",
        criteria=[{"figure": "before.recovered", "op": "==", "value": False}],
        due_at=DUE,
    )
    before = finished_run(school.alice, lab="trapped-service", seed=5, **SHORT)
    first = finished_run(school.alice, lab="trapped-service", seed=5, **SHORT, base_rps=90.0)
    after = finished_run(
        school.alice, lab="trapped-service", seed=5, **SHORT, **RECOMMENDED_CONTROLS
    )
    Analysis.objects.create(owner=school.alice, before=before, after=after, loop="Retries.")
    hand_in(pair, school.alice, first, before, DUE - timedelta(hours=2))
    Submission.objects.filter(assignment=pair).update(feedback="Try the controls.")
    hand_in(pair, school.alice, after, before, DUE - timedelta(hours=1))
    Submission.objects.filter(assignment=pair).update(
        feedback="The loop is named well.", scores={"loop": 4}, feedback_at=DUE
    )
    Run.objects.filter(pk=after.pk).update(name="alice's best", note="my own words")
    school.pair = pair
    return school


def archive(client, school, archived="1"):
    client.force_login(school.teacher)
    return client.post(url("class-archive", school.class_a.pk), {"archived": archived})


def test_an_archived_class_is_read_only_and_still_readable(client, term):
    assert archive(client, term).status_code == 302
    term.class_a.refresh_from_db()
    assert term.class_a.is_archived
    sub = Submission.objects.get(assignment=term.assignment_a)
    a = term.assignment_a
    # The teacher reads everything, and changes nothing.
    for page in (
        url("class-detail", term.class_a.pk),
        url("assignment-detail", a.pk),
        url("gradebook", term.class_a.pk),
        url("submission-detail", sub.pk),
        url("gradebook-csv", term.class_a.pk),
    ):
        assert client.get(page).status_code == 200, page
    class_page = client.get(url("class-detail", term.class_a.pk)).content.decode()
    assert "Unarchive the class" in class_page and "Add to the class" not in class_page
    refused = [
        client.post(url("student-add", term.class_a.pk), {"username": "bob"}),
        client.post(url("student-remove", term.class_a.pk, term.alice.pk)),
        client.post(url("assignment-edit", a.pk), {"title": "x"}),
        client.get(url("assignment-new", term.class_a.pk)),
        client.post(url("extension-set", a.pk), {"student": "alice", "due_at": ""}),
        client.post(url("submission-feedback", sub.pk), {"feedback": "late words"}),
        client.post(url("assignment-run", a.pk), {}),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert "archived" in refused[0].content.decode()
    # The student reads, and can neither run nor hand in.
    client.force_login(term.alice)
    page = client.get(url("assignment-detail", a.pk))
    assert page.status_code == 200 and "Archived on" in page.content.decode()
    assert 'action="' + url("assignment-run", a.pk) not in page.content.decode()
    runs_before = Run.objects.count()
    assert client.post(url("assignment-run", a.pk), {}).status_code == 403
    run = finished_run(term.alice)
    assert client.post(url("assignment-submit", a.pk), {"run": run.pk}).status_code == 403
    assert Run.objects.count() == runs_before + 1  # only the one made here, by hand
    assert Submission.objects.get(assignment=a).run_id == sub.run_id
    assert Submission.objects.get(pk=sub.pk).feedback == ""
    # Nobody joins an archived class with its code.
    client.force_login(term.bob)
    joined = client.post(url("class-join"), {"code": term.class_a.join_code})
    assert joined.status_code == 422
    assert not term.class_a.memberships.filter(student=term.bob).exists()


def test_only_its_teacher_archives_a_class_and_it_unarchives(client, term):
    client.force_login(term.alice)
    assert client.post(url("class-archive", term.class_a.pk)).status_code == 403
    client.force_login(term.other_teacher)
    assert client.post(url("class-archive", term.class_a.pk)).status_code == 404
    term.class_a.refresh_from_db()
    assert not term.class_a.is_archived
    archive(client, term)
    assert archive(client, term, archived="0").status_code == 302
    term.class_a.refresh_from_db()
    assert not term.class_a.is_archived
    assert client.get(url("assignment-new", term.class_a.pk)).status_code == 200
    added = client.post(url("student-add", term.class_a.pk), {"username": "bob"})
    assert added.status_code == 302


def test_download_everything_holds_the_gradebook_hand_ins_analyses_and_feedback(client, term):
    client.force_login(term.alice)
    assert client.get(url("class-export", term.class_a.pk)).status_code == 403
    client.force_login(term.other_teacher)
    assert client.get(url("class-export", term.class_a.pk)).status_code == 404
    archive(client, term)  # an archived class downloads as well
    response = client.get(url("class-export", term.class_a.pk))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    archive_zip = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = set(archive_zip.namelist())
    folder = "class-a/"
    run_dir = f"{folder}handins/{term.assignment_a.pk}-drain-the-burst-class-a/alice/"
    pair_dir = f"{folder}handins/{term.pair.pk}-free-the-trapped-service/alice/"
    assert {
        f"{folder}gradebook.csv",
        f"{folder}figures.csv",
        run_dir + "report.md",
        run_dir + "report.json",
        pair_dir + "report.md",
        pair_dir + "report.json",
    } <= names
    gradebook = list(csv.reader(io.StringIO(archive_zip.read(f"{folder}gradebook.csv").decode())))
    assert gradebook[1][0] == "alice"
    pair = json.loads(archive_zip.read(pair_dir + "report.json"))
    assert pair["version"] == 2
    assert pair["analysis"]["loop"] == "Retries."
    assert pair["feedback"]["text"] == "The loop is named well."
    assert pair["feedback"]["scores"] == {"loop": 4}
    assert pair["earlier_versions"][0]["feedback"]["text"] == "Try the controls."
    assert pair["criteria"] == [
        {"criterion": "before.recovered == false", "value": False, "passed": True}
    ]
    assert "procedure" in pair["report"]  # the capstone's own before/after report
    markdown = archive_zip.read(pair_dir + "report.md").decode()
    assert "Retries." in markdown and "The loop is named well." in markdown
    figures = list(csv.DictReader(io.StringIO(archive_zip.read(f"{folder}figures.csv").decode())))
    assert {(f["side"], f["figure"]) for f in figures if f["lab"] == "drain"} >= {
        ("run", "peak_backlog")
    }
    run_json = json.loads(archive_zip.read(run_dir + "report.json"))
    assert run_json["run"]["summary"]["peak_backlog"] == next(
        int(f["value"]) for f in figures if f["figure"] == "peak_backlog"
    )


def test_a_removed_student_leaves_the_class_figures_and_nothing_personal(client, term):
    alice = term.alice
    alice.first_name, alice.last_name, alice.email = "Alice", "Apte", "alice@example.org"
    alice.save()
    runs = Run.objects.filter(owner=alice).count()
    book = build_gradebook(term.class_a, DUE)
    passed = [cell.passed for cell in book.rows[0].cells]
    with pytest.raises(CommandError, match="only a student"):
        call_command("remove_student", "tara", "--yes")
    call_command("remove_student", "alice", "--yes")

    shell = get_user_model().objects.get(pk=alice.pk)
    assert shell.username.startswith("~removed-")
    assert (shell.first_name, shell.last_name, shell.email) == ("", "", "")
    assert not shell.has_usable_password() and not shell.is_active
    login = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert login.status_code == 200 and "_auth_user_id" not in client.session
    assert not Analysis.objects.filter(owner=shell).exists()
    assert Run.objects.filter(owner=shell).count() == runs
    assert not Run.objects.filter(owner=shell).exclude(name="", note="").exists()
    assert not Submission.objects.filter(student=shell).exclude(feedback="").exists()
    # The class's statistics still count her hand-ins, under "removed student".
    book = build_gradebook(term.class_a, DUE)
    assert [cell.passed for cell in book.rows[0].cells] == passed
    client.force_login(term.teacher)
    page = client.get(url("gradebook", term.class_a.pk)).content.decode()
    assert "removed student" in page and "alice" not in page.lower().replace("class a", "")
    gradebook = client.get(url("gradebook-csv", term.class_a.pk)).content.decode()
    assert gradebook.splitlines()[1].startswith("removed student,")
    with pytest.raises(CommandError, match="no account called alice"):
        call_command("remove_student", "alice", "--yes")
