"""The whole flow in the browser: class, join, assignment, run, submit, gradebook, CSV."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from labs.runs.models import Run
from teaching.models import Assignment, Classroom, Extension, Membership, Submission
from tests.base import DUE, finished_run, make_user

HX = {"HTTP_HX_REQUEST": "true"}
HOUR = timedelta(hours=1)
BEFORE = DUE - 24 * HOUR
STUDENT_POST = {
    "arrivals": "1, 2, 3",  # locked: must be ignored
    "per_worker": "5",  # locked: must be ignored
    "rule": "backlog",
    "fixed_workers": "3",
    "per_waiting": "50",
    "min_workers": "1",
    "max_workers": "10",
}


def url(name, *args):
    return reverse(name, args=args)


# Classes ---------------------------------------------------------------------------------


def test_it_lets_a_teacher_create_a_class_and_shows_the_join_code(client, school):
    client.force_login(school.teacher)
    response = client.post(url("class-new"), {"name": "Evening batch"})
    classroom = Classroom.objects.get(name="Evening batch")
    assert response.status_code == 302 and response["Location"] == classroom.get_absolute_url()
    assert classroom.teacher == school.teacher
    page = client.get(classroom.get_absolute_url()).content.decode()
    assert classroom.join_code in page


def test_it_refuses_a_duplicate_class_name_with_a_message(client, school):
    client.force_login(school.teacher)
    response = client.post(url("class-new"), {"name": "class a"})
    assert response.status_code == 422
    assert "You already have a class called" in response.content.decode()


def test_it_refuses_class_creation_to_a_student(client, school):
    client.force_login(school.alice)
    response = client.post(url("class-new"), {"name": "Mine"})
    assert response.status_code == 403
    assert "Only teachers can create classes" in response.content.decode()
    assert not Classroom.objects.filter(name="Mine").exists()


def test_it_shows_a_teacher_only_their_own_classes(client, school):
    client.force_login(school.teacher)
    html = client.get(url("class-list")).content.decode()
    assert "Class A" in html and "Class B" not in html


def test_it_lets_a_student_join_with_the_code(client, school):
    client.force_login(school.bob)
    response = client.post(url("class-join"), {"code": "aaaa 2222"})
    assert response.status_code == 302
    assert Membership.objects.filter(classroom=school.class_a, student=school.bob).exists()
    again = client.post(url("class-join"), {"code": "AAAA2222"}, follow=True)
    assert "You are already in Class A." in again.content.decode()
    assert Membership.objects.filter(classroom=school.class_a, student=school.bob).count() == 1


def test_it_explains_a_wrong_code(client, school):
    client.force_login(school.bob)
    response = client.post(url("class-join"), {"code": "NOPE"})
    assert response.status_code == 422
    assert "No class has this code" in response.content.decode()


def test_it_lets_the_teacher_invite_and_remove_a_student_by_username(client, school):
    carol = make_user("carol")
    client.force_login(school.teacher)
    response = client.post(url("student-add", school.class_a.pk), {"username": "carol"})
    assert response.status_code == 302
    assert not school.class_a.students.filter(pk=carol.pk).exists()  # until she accepts
    client.force_login(carol)
    invitation = carol.class_invitations.get()
    client.post(url("invitation-accept", invitation.pk))
    assert school.class_a.students.filter(pk=carol.pk).exists()
    client.force_login(school.teacher)
    bad = client.post(url("student-add", school.class_a.pk), {"username": "nobody"})
    assert bad.status_code == 422 and "No one has the username" in bad.content.decode()
    client.post(url("student-remove", school.class_a.pk, carol.pk))
    assert not school.class_a.students.filter(pk=carol.pk).exists()


def test_it_lists_a_students_assignments_with_their_due_dates(client, school):
    Extension.objects.create(
        assignment=school.assignment_a, student=school.alice, due_at=DUE + 48 * HOUR
    )
    client.force_login(school.alice)
    html = client.get(school.class_a.get_absolute_url()).content.decode()
    assert school.assignment_a.title in html
    assert "16 Mar 2031" in html and "extended" in html  # 17:00 UTC + 2 days, shown in IST
    assert school.assignment_b.title not in html


# Assignments -----------------------------------------------------------------------------


def test_it_offers_a_lab_choice_then_the_lab_s_parameters(client, school):
    client.force_login(school.teacher)
    choose = client.get(url("assignment-new", school.class_a.pk)).content.decode()
    assert "?lab=drain" in choose
    form = client.get(url("assignment-new", school.class_a.pk) + "?lab=drain").content.decode()
    assert 'name="mode__per_worker"' in form and "peak_backlog" in form
    assert client.get(url("assignment-new", school.class_a.pk) + "?lab=nope").status_code == 404


def test_it_creates_an_assignment_from_the_browser_form(client, school, frozen):
    frozen(BEFORE)
    client.force_login(school.teacher)
    data = {
        "title": "Catch it sooner",
        "instructions": "",
        "due_at": "2031-03-20T09:00",
        "criteria_text": "left_at_end == 0\nworker_seconds <= 35",
        "mode__per_worker": "locked",
        "value__per_worker": "100",
    }
    response = client.post(url("assignment-new", school.class_a.pk) + "?lab=drain", data)
    assignment = Assignment.objects.get(title="Catch it sooner")
    assert response.status_code == 302 and response["Location"] == assignment.get_absolute_url()
    assert (assignment.lab, assignment.locked) == ("drain", ["per_worker"])


def test_it_shows_criteria_mistakes_and_saves_nothing(client, school, frozen):
    frozen(BEFORE)
    client.force_login(school.teacher)
    data = {"title": "X", "due_at": "2031-03-20T09:00", "criteria_text": "peak >> 3"}
    response = client.post(url("assignment-new", school.class_a.pk) + "?lab=drain", data)
    assert response.status_code == 422
    html = response.content.decode()
    assert "this lab has no figure called" in html
    assert not Assignment.objects.filter(title="X").exists()


def test_it_regrades_submissions_when_the_criteria_change(client, school, frozen):
    frozen(BEFORE)
    run = finished_run(school.alice)  # defaults: peak 800, cleared at 6
    Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=run)
    client.force_login(school.teacher)
    edit = url("assignment-edit", school.assignment_a.pk)
    form = client.get(edit).content.decode()
    assert "peak_backlog &lt; 800" in form
    data = {
        "title": school.assignment_a.title,
        "due_at": "2031-03-14T22:30",
        "criteria_text": "peak_backlog <= 800",
        "mode__per_worker": "locked",
        "value__per_worker": "100",
    }
    assert client.post(edit, data).status_code == 302
    html = client.get(url("gradebook", school.class_a.pk)).content.decode()
    assert "1 of 1 criteria" in html


# Running and submitting --------------------------------------------------------------------


def test_it_runs_the_assignment_with_locked_presets_whatever_is_posted(
    client, school, published, django_capture_on_commit_callbacks
):
    client.force_login(school.alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("assignment-run", school.assignment_a.pk), STUDENT_POST, **HX)
    assert response.status_code == 200
    run = Run.objects.get(owner=school.alice)
    assert run.params["arrivals"] == [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]
    assert run.params["per_worker"] == 100
    assert run.params["per_waiting"] == 50  # open: the student's choice is kept
    assert [call["args"] for call in published] == [(str(run.id),)]
    html = response.content.decode()
    assert "Submit this run" in html and f'value="{run.id}"' in html
    assert "HX-Request" in response["Vary"]


def test_it_redirects_a_plain_run_back_to_the_assignment(client, school, published):
    client.force_login(school.alice)
    response = client.post(url("assignment-run", school.assignment_a.pk), STUDENT_POST)
    assert response.status_code == 302
    assert response["Location"] == school.assignment_a.get_absolute_url() + "#your-runs"


def test_it_shows_locked_presets_disabled_on_the_assignment_page(client, school):
    client.force_login(school.alice)
    html = client.get(school.assignment_a.get_absolute_url()).content.decode()
    assert "locked by your teacher" in html
    assert 'name="per_worker" value="100"' in html and "disabled" in html


def test_it_refuses_bad_input_for_an_assignment_run(client, school, published):
    client.force_login(school.alice)
    response = client.post(
        url("assignment-run", school.assignment_a.pk), {**STUDENT_POST, "per_waiting": "x"}, **HX
    )
    assert (
        response.status_code == 422
        and "Use a whole number written with the digits 0-9" in response.content.decode()
    )
    assert not Run.objects.exists()


def test_it_submits_then_resubmits_until_the_due_date(client, school, frozen):
    frozen(BEFORE)
    first, second = finished_run(school.alice), finished_run(school.alice, per_waiting=50)
    client.force_login(school.alice)
    submit = url("assignment-submit", school.assignment_a.pk)
    assert client.post(submit, {"run": first.pk}).status_code == 302
    assert client.post(submit, {"run": second.pk}).status_code == 302
    submission = Submission.objects.get()
    assert submission.run == second and submission.submitted_at == BEFORE

    frozen(DUE + HOUR)
    client.force_login(school.alice)  # days later: a session lasts hours (SESSION_HOURS)
    late = client.post(submit, {"run": first.pk})
    assert late.status_code == 422
    assert "has passed, so submissions are closed" in late.content.decode()
    assert Submission.objects.get().run == second


def test_it_takes_a_late_submission_within_an_extension(client, school, frozen):
    Extension.objects.create(
        assignment=school.assignment_a, student=school.alice, due_at=DUE + 2 * HOUR
    )
    frozen(DUE + HOUR)
    run = finished_run(school.alice)
    client.force_login(school.alice)
    response = client.post(url("assignment-submit", school.assignment_a.pk), {"run": run.pk})
    assert response.status_code == 302
    assert Submission.objects.get().run == run


def test_it_refuses_a_crafted_submission_of_a_run_with_other_locked_values(client, school, frozen):
    frozen(BEFORE)
    crafted = finished_run(school.alice, per_worker=1000)
    client.force_login(school.alice)
    response = client.post(url("assignment-submit", school.assignment_a.pk), {"run": crafted.pk})
    assert response.status_code == 422
    assert "changed the locked per_worker" in response.content.decode()
    assert not Submission.objects.exists()


def test_it_refuses_to_submit_another_students_run(client, school, frozen):
    frozen(BEFORE)
    Membership.objects.create(classroom=school.class_a, student=school.bob)
    bobs = finished_run(school.bob)
    client.force_login(school.alice)
    response = client.post(url("assignment-submit", school.assignment_a.pk), {"run": bobs.pk})
    assert response.status_code == 422
    assert not Submission.objects.exists()


def test_it_shows_the_student_each_criterion_with_its_figure(client, school, frozen):
    frozen(BEFORE)
    run = finished_run(school.alice)  # peak 800, worker-seconds 31, cleared at 6, none left
    Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=run)
    client.force_login(school.alice)
    html = client.get(school.assignment_a.get_absolute_url()).content.decode()
    assert "<strong>2 of 4</strong> criteria passed" in html
    # In words, each with what the run had; the code is the teacher's.
    assert "Peak backlog: below 800 jobs</td>" in html and "<strong>800 jobs</strong>" in html
    assert "Second the queue was empty again: at most 5 s</td>" in html
    assert "<strong>6 s</strong>" in html
    mine = html.split('id="submission"')[1].split("</section>")[0]
    assert "peak_backlog" not in mine
    assert html.count("✓ passed") == 2 and html.count("✗ failed") == 2


def test_it_lets_the_teacher_set_and_remove_an_extension(client, school):
    client.force_login(school.teacher)
    endpoint = url("extension-set", school.assignment_a.pk)
    response = client.post(endpoint, {"student": school.alice.pk, "due_at": "2031-03-16T10:00"})
    assert response.status_code == 302
    assert Extension.objects.get().student == school.alice
    client.post(endpoint, {"student": school.alice.pk, "due_at": ""})
    assert not Extension.objects.exists()
    outsider = client.post(endpoint, {"student": school.bob.pk, "due_at": "2031-03-16T10:00"})
    assert outsider.status_code == 422 and "not in this class" in outsider.content.decode()


# Gradebook ---------------------------------------------------------------------------------


def graded_class(school):
    """alice: on time, 4 of 4; carol: late (her extension was taken back); dan: nothing."""
    carol, dan = make_user("carol"), make_user("dan")
    for student in (carol, dan):
        Membership.objects.create(classroom=school.class_a, student=student)
    a = school.assignment_a
    Submission.objects.create(
        assignment=a,
        student=school.alice,
        run=finished_run(school.alice, per_waiting=50),
        submitted_at=DUE - HOUR,
    )
    Submission.objects.create(
        assignment=a, student=carol, run=finished_run(carol), submitted_at=DUE + HOUR
    )
    return carol, dan


def test_it_shows_the_gradebook_with_status_criteria_and_timing(client, school, frozen):
    frozen(DUE + 2 * HOUR)
    graded_class(school)
    client.force_login(school.teacher)
    response = client.get(url("gradebook", school.class_a.pk))
    html = response.content.decode()
    alice_row = html.split(">alice<")[1].split("</tr>")[0]
    carol_row = html.split(">carol<")[1].split("</tr>")[0]
    dan_row = html.split(">dan<")[1].split("</tr>")[0]
    met = '<span class="badge criteria succeeded">4 of 4 criteria</span>'
    assert met in alice_row and "on time" in alice_row
    assert Submission.objects.get(student=school.alice).run.get_absolute_url() in alice_row
    # A run that succeeded but meets 2 of 4 criteria shows no green badge: it is no pass.
    assert '<span class="badge criteria failed">2 of 4 criteria</span>' in carol_row
    assert "late" in carol_row and "succeeded" not in carol_row
    assert "missing" in dan_row
    assert ">bob<" not in html


PREDICTED = ("guess", "outcome", "right")


def test_it_exports_the_gradebook_as_csv(client, school, frozen):
    frozen(DUE + 2 * HOUR)
    graded_class(school)
    client.force_login(school.teacher)
    response = client.get(url("gradebook-csv", school.class_a.pk))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert 'filename="gradebook-class-a.csv"' in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    title = school.assignment_a.title
    # eleven columns an assignment, then its evidence (tests/teaching/test_evidence.py)
    assert rows[0][13:] == [
        *(f"{title}: prediction: peak_backlog: {p}" for p in PREDICTED),
        f"{title}: prediction skipped",
        f"{title}: prediction: peak_backlog: after a result",
    ]
    assert rows[0][:13] == [
        "username",
        "name",
        f"{title}: status",
        f"{title}: criteria passed",
        f"{title}: criteria",
        f"{title}: timing",
        f"{title}: submitted at",
        f"{title}: run",
        f"{title}: self-check right",
        f"{title}: self-check questions",
        f"{title}: score",
        f"{title}: score out of",
        f"{title}: feedback",
    ]
    by_name = {row[0]: row for row in rows[1:]}
    assert set(by_name) == {"alice", "carol", "dan"}
    assert by_name["alice"][2:6] == ["succeeded", "4", "4", "on time"]
    assert by_name["alice"][6] == "2031-03-14T21:30:00+05:30"
    assert by_name["alice"][7].startswith("http://testserver/runs/")
    assert by_name["carol"][2:6] == ["succeeded", "2", "4", "late"]
    assert by_name["dan"][2:13] == ["", "", "4", "missing", "", "", "", "", "", "", ""]
    assert by_name["alice"][12] == "no feedback yet"


def test_it_quotes_csv_cells_that_a_spreadsheet_would_run(client, school):
    school.assignment_a.title = "=HYPERLINK(1)"
    school.assignment_a.save()
    client.force_login(school.teacher)
    header = client.get(url("gradebook-csv", school.class_a.pk)).content.decode().splitlines()[0]
    assert "'=HYPERLINK(1): status" in header


def test_it_builds_the_gradebook_in_the_same_queries_for_more_students(
    client, school, django_assert_max_num_queries, frozen
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    frozen(DUE + 2 * HOUR)
    graded_class(school)
    client.force_login(school.teacher)
    with CaptureQueriesContext(connection) as few:
        client.get(url("gradebook", school.class_a.pk))
    for name in ("erin", "finn", "gita"):
        student = make_user(name)
        Membership.objects.create(classroom=school.class_a, student=student)
        Submission.objects.create(
            assignment=school.assignment_a, student=student, run=finished_run(student)
        )
    with django_assert_max_num_queries(len(few)):
        response = client.get(url("gradebook", school.class_a.pk))
    assert ">gita<" in response.content.decode()


# Submissions and re-runs -------------------------------------------------------------------


def test_it_shows_the_teacher_a_submission_with_its_checks(client, school, frozen):
    frozen(BEFORE)
    run = finished_run(school.alice)
    submission = Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=run, submitted_at=BEFORE
    )
    client.force_login(school.teacher)
    html = client.get(submission.get_absolute_url()).content.decode()
    assert "on time" in html and "<strong>800 jobs</strong>" in html
    code = '<code class="criterion-code">peak_backlog &lt; 800</code>'
    assert f"Peak backlog: below 800 jobs<br>{code}" in html  # the teacher sees the code too
    assert url("run-rerun", run.pk) in html
    assert client.get(run.get_absolute_url()).status_code == 200  # visible through the class


def test_a_submission_shows_the_seed_only_for_a_lab_that_uses_one(client, school):
    seedless = finished_run(school.alice, seed=4321)  # the drain lab draws nothing at random
    seeded = finished_run(school.alice, lab="backoff", seed=4321)
    client.force_login(school.teacher)
    for run, shown in ((seedless, False), (seeded, True)):
        submission = Submission.objects.create(
            assignment=school.assignment_a, student=school.alice, run=run
        )
        html = client.get(submission.get_absolute_url()).content.decode()
        assert ("<dd>4321</dd>" in html) is shown, run.lab
        submission.delete()


def test_it_reruns_a_submitted_run_and_gets_the_same_summary(
    client, school, published, django_capture_on_commit_callbacks
):
    from labs.runs.tasks import execute_run

    original = finished_run(school.alice, per_waiting=50)
    Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=original)
    client.force_login(school.teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url("run-rerun", original.pk))
    again = Run.objects.get(owner=school.teacher)
    assert (again.lab, again.params, again.seed) == (original.lab, original.params, original.seed)
    assert response.status_code == 302
    assert response["Location"] == f"{url('run-compare')}?run={original.pk}&run={again.pk}"
    assert [call["args"] for call in published] == [(str(again.pk),)]

    waiting = client.get(response["Location"], **HX)
    assert waiting.status_code == 200 and 'hx-trigger="every 1s"' in waiting.content.decode()

    execute_run(str(again.pk))  # what the worker would do
    again.refresh_from_db()
    assert again.result["summary"] == original.result["summary"]
    done = client.get(response["Location"], **HX)
    assert done.status_code == 286
    assert "Same result:" in done.content.decode()


def test_the_home_page_lists_a_students_assignments_with_due_date_and_hand_in(
    client, school, frozen
):
    frozen(BEFORE)
    second = Assignment.objects.create(
        classroom=school.class_a, title="Second one", lab="drain", due_at=DUE + 48 * HOUR
    )
    Extension.objects.create(assignment=second, student=school.alice, due_at=DUE + 72 * HOUR)
    Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=finished_run(school.alice)
    )
    client.force_login(school.alice)
    html = client.get(reverse("home")).content.decode()
    mine = html.split('id="my-assignments-title"')[1].split("</section>")[0]
    # Not handed in first, each linked, with its due date (her extension counts).
    assert mine.index("Second one") < mine.index(school.assignment_a.title)
    assert f'href="{second.get_absolute_url()}"' in mine
    assert f'href="{school.assignment_a.get_absolute_url()}"' in mine
    assert "not handed in yet" in mine and "handed in</span>" in mine
    extended = (DUE + 72 * HOUR).astimezone(timezone.get_current_timezone())
    assert f"due {extended:%-d %b, %H:%M}" in mine
    assert school.assignment_b.title not in html  # another class's
    school.class_a.archived_at = BEFORE
    school.class_a.save()
    assert "my-assignments" not in client.get(reverse("home")).content.decode()


def test_a_teacher_compares_two_students_runs_picked_from_the_hand_ins(client, school, frozen):
    frozen(BEFORE)
    carol = make_user("carol")
    Membership.objects.create(classroom=school.class_a, student=carol)
    runs = {}
    for student in (school.alice, carol):
        runs[student] = finished_run(student)
        Submission.objects.create(
            assignment=school.assignment_a, student=student, run=runs[student]
        )
    client.force_login(school.teacher)
    html = client.get(school.assignment_a.get_absolute_url()).content.decode()
    picker = html.split('class="compare-pick')[1].split("</form>")[0]
    assert f'action="{reverse("run-compare")}"' in html and 'method="get"' in html
    first, second = picker.split('id="compare-b"')
    assert f'<option value="{runs[school.alice].id}" selected>alice' in first
    assert f'<option value="{runs[carol].id}" selected>carol' in second
    query = f"?run={runs[school.alice].id}&run={runs[carol].id}"
    assert client.get(reverse("run-compare") + query).status_code == 200
