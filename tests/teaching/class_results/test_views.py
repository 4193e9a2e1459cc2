"""The class results page: who may see it, its figures against hand-computed ones, the
outlier rule, the exports, and a query count that does not grow with the class."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from labs.catalogue.entries import get_lab
from teaching.class_results.figures import class_results, key_figures, spread_of
from teaching.models import Membership, Submission, SubmissionDigest
from tests.base import DUE, finished_run, make_user

HX = {"HTTP_HX_REQUEST": "true"}
# Five students' peak backlogs and what is left at the end, chosen so the figures can be
# worked out by hand: quartiles 20 / 30 / 40 (linear interpolation), IQR 20, fences
# -10 and 70, so 400 is the one outlier; left_at_end == 0 passes for four of five.
PEAKS = [10, 20, 30, 40, 400]
LEFT = [0, 0, 0, 0, 5]
NAMES = ["alice", "carl", "dina", "emil", "fara"]


def url(name, *args):
    return reverse(name, args=args)


def hand_in(assignment, student, **params):
    run = finished_run(student, **params)
    return Submission.objects.create(
        assignment=assignment, student=student, run=run, submitted_at=DUE
    )


@pytest.fixture
def small_class(school):
    """Class A with five students who each handed in a drain run; figures then set by hand."""
    students = [school.alice] + [make_user(n) for n in NAMES[1:]]
    for student in students[1:]:
        Membership.objects.create(classroom=school.class_a, student=student)
    run = finished_run(school.alice, **school.assignment_a.presets)
    for n, (student, peak, left) in enumerate(zip(students, PEAKS, LEFT, strict=True)):
        params = {**school.assignment_a.presets, "per_waiting": 50 if n == 4 else 100}
        submission = hand_in(school.assignment_a, student, **params)
        figures = {**run.result["summary"], "peak_backlog": peak, "left_at_end": left}
        SubmissionDigest.objects.filter(submission=submission).update(figures=figures)
    return school


def results_for(school, **filters):
    assignment = school.assignment_a
    return class_results(assignment, get_lab("drain"), DUE, **filters)


# The digest ------------------------------------------------------------------------------


def test_a_hand_in_keeps_its_figures_settings_and_thinned_line(school):
    submission = hand_in(school.assignment_a, school.alice, **school.assignment_a.presets)
    digest = SubmissionDigest.objects.get(submission=submission)
    result = submission.run.result
    assert digest.figures == result["summary"]
    assert digest.params == result["params"] and digest.seed == submission.run.seed
    assert digest.trace["x_key"] == "second" and digest.trace["y_key"] == "backlog"
    assert digest.trace["y"] == result["series"]["backlog"]  # 10 points: none dropped


def test_a_resubmission_replaces_the_digest_and_feedback_leaves_it(school):
    from django.utils import timezone

    from teaching.gradebook.hand_in import hand_in as resubmit

    submission = hand_in(school.assignment_a, school.alice, **school.assignment_a.presets)
    later = finished_run(school.alice, **school.assignment_a.presets, per_waiting=50)
    resubmit(school.assignment_a, school.alice, later, None, timezone.now())
    digest = SubmissionDigest.objects.get(submission=submission)
    assert digest.params["per_waiting"] == 50
    made = digest.made_at
    submission.refresh_from_db()
    submission.feedback = "good"
    submission.save(update_fields=["feedback"])
    assert SubmissionDigest.objects.get(submission=submission).made_at == made


def test_thinning_keeps_at_most_150_points_and_the_last():
    from teaching.class_results.digest import thinned

    kept = thinned(list(range(301)))
    assert len(kept) <= 150 and kept[0] == 0 and kept[-1] == 300
    assert thinned([1, 2, 3]) == [1, 2, 3]


# Figures against hand-computed ones ------------------------------------------------------


def test_the_spread_of_a_figure_matches_the_hand_computed_quartiles(small_class):
    results = results_for(small_class)
    peak = next(s for s in results.spreads if s.figure.name == "peak_backlog")
    assert sorted(v for _label, v in peak.points) == PEAKS
    assert peak.quartiles == (20, 30, 40)
    assert peak.fences == (-10, 70)
    assert peak.outliers == ["fara"]
    assert [c.figure for c in peak.bounds] == ["peak_backlog"]  # the criterion < 800


def test_each_criteria_pass_rate_is_counted(small_class):
    rates = {str(r.criterion): (r.passed, r.total) for r in results_for(small_class).pass_rates}
    assert rates["left_at_end == 0"] == (4, 5)
    assert rates["peak_backlog < 800"] == (5, 5)


def test_changed_parameters_are_counted_against_where_the_assignment_started(small_class):
    changes = {c.name: c.count for c in results_for(small_class).changes}
    assert changes == {"per_waiting": 1}  # fara moved it from 100 to 50


def test_the_outlier_rule_says_why_a_run_stands_apart(small_class):
    results = results_for(small_class)
    flagged = {e.label: e.reasons for e in results.flagged}
    assert list(flagged) == ["fara"]
    said = "; ".join(flagged["fara"])
    assert "Peak backlog is 400, far above the class (its upper fence is 70)" in said
    # Everyone else left nothing: the IQR is 0, so any other value is beyond the fences.
    assert "Jobs still waiting at the end is 5" in said


def test_four_runs_are_too_few_for_an_outlier(small_class):
    spread = spread_of(
        get_lab("drain").figure("peak_backlog"),
        [e for e in results_for(small_class).handed_in if e.label != "alice"],
        None,
        [],
    )
    assert len(spread.points) == 4 and spread.fences is None and spread.outliers == []


@pytest.mark.parametrize(
    ("values", "flagged"),
    [
        ([2008, 2008, 2008, 2008, 2010], []),  # beyond the fences (IQR 0) but 0.1% off
        ([0, 0, 0, 0, 70], ["s4"]),  # a median of 0: any other value is far from it
        ([100, 101, 102, 103, 40], ["s4"]),  # low: fences 97 and 105, 60% off
    ],
)
def test_an_outlier_is_beyond_the_fences_and_10_percent_from_the_median(values, flagged):
    from teaching.class_results.figures import Entry

    entries = [
        Entry(student=None, section="", label=f"s{n}", timing="", figures={"peak_backlog": v})
        for n, v in enumerate(values)
    ]
    spread = spread_of(get_lab("drain").figure("peak_backlog"), entries, None, [])
    assert spread.outliers == flagged


def test_a_changed_preset_and_a_minority_seed_are_flagged(school):
    from tests.base import make_user

    assignment = school.assignment_a
    assignment.lab = "trapped-service"
    assignment.presets = {"workers": 8}
    assignment.locked = []
    assignment.criteria = []
    assignment.save()
    students = [school.alice] + [make_user(f"s{n}") for n in range(2)]
    for student in students[1:]:
        Membership.objects.create(classroom=school.class_a, student=student)
    for n, student in enumerate(students):
        run = finished_run(student, lab="trapped-service", seed=5 if n < 2 else 9, horizon_s=200)
        if n == 1:
            run = finished_run(student, lab="trapped-service", seed=5, horizon_s=200, workers=12)
        Submission.objects.create(assignment=assignment, student=student, run=run)
    results = class_results(assignment, get_lab("trapped-service"), DUE)
    reasons = {e.label: " ".join(e.reasons) for e in results.handed_in}
    assert "seed 9, while most of the class used 5" in reasons["s1"]
    assert "changed the preset workers from 8 to 12" in reasons["s0"]
    assert reasons["alice"] == ""


def test_key_figures_put_the_criteria_first():
    from teaching.criteria import Criterion

    lab = get_lab("drain")
    names = [f.name for f in key_figures(lab, [Criterion("worker_seconds", "<=", 35)])]
    assert names[0] == "worker_seconds" and "peak_backlog" in names


def test_filters_keep_the_status_and_section_asked_for(small_class):
    school = small_class
    Membership.objects.filter(student__username__in=["carl", "dina"]).update(section="B")
    loner = make_user("gita")
    Membership.objects.create(classroom=school.class_a, student=loner, section="B")
    assert [e.label for e in results_for(school, section="B").entries] == ["carl", "dina", "gita"]
    assert [e.label for e in results_for(school, status="missing").entries] == ["gita"]
    assert len(results_for(school, status="submitted").entries) == 5
    assert results_for(school, status="late").entries == []
    hidden = [e.label for e in results_for(school, names=False).entries]
    assert hidden[:2] == ["Student 1", "Student 2"]


# Access ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["assignment-results", "assignment-results-projector", "assignment-results-csv"]
)
def test_only_the_classs_teacher_and_admins_see_the_results(client, small_class, name):
    school = small_class
    where = url(name, school.assignment_a.pk)
    client.force_login(school.alice)
    assert client.get(where).status_code == 403  # a student of the class
    client.force_login(school.bob)
    assert client.get(where).status_code == 404  # a student of another class
    client.force_login(school.other_teacher)
    assert client.get(where).status_code == 404  # another class's teacher
    client.force_login(school.teacher)
    assert client.get(where).status_code == 200
    admin = make_user("root")
    admin.is_superuser = admin.is_staff = True
    admin.save()
    client.force_login(admin)
    assert client.get(where).status_code == 200


def test_a_filter_that_does_not_exist_is_a_400_with_a_reason(client, small_class):
    client.force_login(small_class.teacher)
    response = client.get(url("assignment-results", small_class.assignment_a.pk), {"status": "x"})
    assert response.status_code == 400
    assert "That filter is not one this page has" in response.content.decode()


# The page ---------------------------------------------------------------------------------


def test_the_page_shows_the_overlay_the_spreads_and_the_pass_rates(client, small_class):
    client.force_login(small_class.teacher)
    page = client.get(url("assignment-results", small_class.assignment_a.pk)).content.decode()
    assert 'id="overlay-plot"' in page
    assert page.count('"type": "box"') >= 4  # a spread per key figure
    assert "Share of the class passing each criterion" in page
    assert "Peak backlog is 400, far above the class" in page
    small = client.get(url("assignment-results", small_class.assignment_a.pk), {"tab": "small"})
    assert small.content.decode().count("<polyline") == 5


def test_the_page_reads_in_marathi(client, small_class):
    from accounts.models import Profile

    Profile.objects.update_or_create(user=small_class.teacher, defaults={"language": "mr"})
    client.force_login(small_class.teacher)
    where = url("assignment-results", small_class.assignment_a.pk)
    page = client.get(where, headers={"accept-language": "mr"}).content.decode()
    assert 'lang="mr"' in page
    for english in ("Key figures across the class", "Runs that stand apart", "Every student"):
        assert english not in page
    assert "वर्गाचे निकाल" in page and "वर्गभरातील मुख्य आकडे" in page
    assert "वर्गापेक्षा खूप जास्त" in page  # fara's outlier, said in Marathi


def test_the_projector_poll_answers_only_itself_when_nothing_changed(client, small_class):
    client.force_login(small_class.teacher)
    where = url("assignment-results-projector", small_class.assignment_a.pk)
    first = client.get(where)
    page = first.content.decode()
    assert "Student 1" in page and "fara" not in page  # names hidden by default
    since = page.split("since=")[1].split('"')[0]
    quiet = client.get(where, {"since": since}, **HX).content.decode()
    assert 'id="class-poll"' in quiet and "class-results" not in quiet
    Submission.objects.filter(student__username="fara").update(version=2)
    changed = client.get(where, {"since": since}, **HX).content.decode()
    assert 'hx-swap-oob="true"' in changed and "class-results" in changed


def test_the_projector_polls_within_the_site_poll_budget(db, settings):
    from teaching.class_results.views import PROJECTOR_POLL_MIN_MS, projector_poll_ms

    settings.LAB_POLLS_PER_S = 100
    assert projector_poll_ms() == PROJECTOR_POLL_MIN_MS
    settings.LAB_POLLS_PER_S = 0.1  # a budget so small that one page's share is 10 s
    assert projector_poll_ms() == 10000


# Exports ----------------------------------------------------------------------------------


def test_the_csv_has_a_row_per_student_and_a_column_per_figure_and_criterion(client, small_class):
    Membership.objects.create(classroom=small_class.class_a, student=make_user("=cmd|x"))
    client.force_login(small_class.teacher)
    response = client.get(url("assignment-results-csv", small_class.assignment_a.pk))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8"))))
    assert len(rows) == 6
    header = list(rows[0])
    lab = get_lab("drain")
    assert [f.name for f in lab.figures] == header[7 : 7 + len(lab.figures)]
    assert "criterion: left_at_end == 0" in header
    by_name = {r["username"]: r for r in rows}
    assert by_name["fara"]["peak_backlog"] == "400"
    assert by_name["fara"]["criterion: left_at_end == 0"] == "False"
    assert by_name["'=cmd|x"]["timing"] == "not yet due"  # the formula guard


def test_the_json_has_the_same_rows_as_typed(client, small_class):
    client.force_login(small_class.teacher)
    response = client.get(url("assignment-results-json", small_class.assignment_a.pk))
    data = json.loads(response.content)
    assert data["columns"][0] == "username" and len(data["rows"]) == 5
    fara = next(r for r in data["rows"] if r["username"] == "fara")
    assert fara["peak_backlog"] == 400 and fara["criterion: left_at_end == 0"] is False


# Cost -------------------------------------------------------------------------------------


def test_the_query_count_does_not_grow_with_the_class(client, small_class):
    school = small_class
    client.force_login(school.teacher)
    where = url("assignment-results", school.assignment_a.pk)

    from teaching.gradebook.cache import bump

    def queries(*, built: bool) -> int:
        if built:
            bump([school.class_a.pk])  # the next view builds the page afresh
        with CaptureQueriesContext(connection) as seen:
            assert client.get(where).status_code == 200
        return len(seen)

    client.get(where)  # the session's first request saves it: not the page's queries
    few, few_cached = queries(built=True), queries(built=False)
    assert few_cached < few
    for n in range(6):
        student = make_user(f"more{n}")
        Membership.objects.create(classroom=school.class_a, student=student, section="B")
        hand_in(school.assignment_a, student, **school.assignment_a.presets)
    assert queries(built=True) == few and queries(built=False) == few_cached


# The shared cache ---------------------------------------------------------------------------


def test_the_page_is_built_once_per_change_and_a_change_shows_at_once(
    client, small_class, monkeypatch
):
    from teaching.class_results import views as class_views

    built = []
    real = class_views.build
    monkeypatch.setattr(class_views, "build", lambda *a: built.append(1) or real(*a))
    client.force_login(small_class.teacher)
    where = url("assignment-results", small_class.assignment_a.pk)
    first = client.get(where).content.decode()
    again = client.get(where).content.decode()
    assert len(built) == 1 and "fara" in again  # the second view came from the cache
    assert 'name="csrfmiddlewaretoken"' in again  # the viewer's own form, outside the copy
    student = make_user("gus")
    Membership.objects.create(classroom=small_class.class_a, student=student)
    hand_in(small_class.assignment_a, student, **small_class.assignment_a.presets)
    changed = client.get(where).content.decode()
    assert len(built) == 2 and "gus" in changed and "gus" not in first
    client.get(where, {"names": "off"})  # other options, another language: other copies
    client.get(where, headers={"accept-language": "mr"})
    assert len(built) == 4


def test_a_panel_can_move_the_signature_so_the_page_is_rebuilt(client, small_class, monkeypatch):
    from teaching.class_results import views as class_views

    said = {"predictions": 0}
    monkeypatch.setattr(class_views, "predictions_signature", lambda a: said["predictions"])
    before = class_views.signature(small_class.assignment_a)
    assert class_views.signature(small_class.assignment_a) == before
    said["predictions"] = 1
    assert class_views.signature(small_class.assignment_a) != before


def test_the_cached_copy_holds_nothing_of_the_viewer(client, small_class, monkeypatch):
    from teaching.class_results import views as class_views

    kept = []
    real = class_views.render_to_string
    monkeypatch.setattr(
        class_views, "render_to_string", lambda *a, **k: kept.append(real(*a, **k)) or kept[-1]
    )
    client.force_login(small_class.teacher)
    client.get(url("assignment-results", small_class.assignment_a.pk))
    client.get(url("assignment-results-projector", small_class.assignment_a.pk))
    assert len(kept) == 2 and "fara" in kept[0] and "Student 5" in kept[1]
    for html in kept:
        assert "csrfmiddlewaretoken" not in html and small_class.teacher.username not in html


# Sections -----------------------------------------------------------------------------------


def test_the_teacher_sets_sections_that_the_results_page_filters_on(client, small_class):
    school = small_class
    ids = {m.student.username: m.student_id for m in school.class_a.memberships.all()}
    client.force_login(school.teacher)
    where = reverse("class-sections", args=[school.class_a.pk])
    page = client.get(school.class_a.get_absolute_url()).content.decode()
    assert f'name="section-{ids["fara"]}"' in page and 'form="sections"' in page
    response = client.post(where, {f"section-{ids['fara']}": "  B ", f"section-{ids['emil']}": "A"})
    assert response.status_code == 302
    sections = dict(school.class_a.memberships.values_list("student__username", "section"))
    assert sections["fara"] == "B" and sections["emil"] == "A" and sections["dina"] == ""
    results = url("assignment-results", school.assignment_a.pk)
    only_b = client.get(results, {"section": "B"}).content.decode()
    assert ">fara<" in only_b and ">emil<" not in only_b
    too_long = client.post(where, {f"section-{ids['fara']}": "x" * 41})
    assert too_long.status_code == 422
    assert "at most 40 characters" in too_long.content.decode()
    assert school.class_a.memberships.get(student__username="fara").section == "B"
    client.post(where, {f"section-{ids['fara']}": ""})  # empty: out of any section
    assert school.class_a.memberships.get(student__username="fara").section == ""


def test_a_new_prediction_on_a_hand_in_rebuilds_the_cached_page(client, small_class):
    """The predictions panel moves the signature (`predictions_signature`)."""
    from labs.runs.predictions import Prediction
    from teaching.class_results.views import signature

    assignment = small_class.assignment_a
    client.force_login(small_class.teacher)
    where = url("assignment-results", assignment.pk)
    before = signature(assignment)
    assert "Predictions against the runs" not in client.get(where).content.decode()
    run_id = Submission.objects.filter(assignment=assignment).values_list("run_id", flat=True)[0]
    Prediction.objects.create(run_id=run_id, figure="peak_backlog", value=300)
    assert signature(assignment) != before
    assert "Predictions against the runs" in client.get(where).content.decode()
