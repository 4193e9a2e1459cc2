"""Who gets what: every role × every page and action, and the answer each must get.

Roles: anonymous; alice, a student of class A; bob, a student of class B; the teacher
of class A; the teacher of class B. Everything private belongs to class A or alice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.test import Client
from django.urls import resolve, reverse

from labs.catalogue.entries import get_lab
from labs.management.commands.lab import _as_form_value
from labs.runs.models import Run
from labs.sim.capstone.trapped import RECOMMENDED_CONTROLS
from teaching.models import Assignment, Submission
from tests.base import DUE, finished_run, make_user

ROLES = ("anonymous", "alice", "bob", "teacher", "other_teacher")
LOGIN = 302  # what an anonymous visitor gets for anything but a lesson


@dataclass
class World:
    school: object
    run: object  # alice's, submitted to assignment A
    other_run: object  # alice's, submitted to a second assignment of class A
    submission: object
    before: object  # alice's trapped-service runs, both submitted to class A
    after: object
    experiment: object  # alice's real-queue run, submitted to class A; its queue has expired
    live: object = None  # alice's trapped-live run, still running, its experiment not started
    # The class experiments, made when a row first asks (class_experiments): Redis work.
    class_experiments: dict = field(default_factory=dict)


@pytest.fixture
def world(school, published, frozen):
    frozen(DUE - timedelta(days=1))
    make_user("carol")
    run, other_run = finished_run(school.alice), finished_run(school.alice, per_waiting=50)
    second = Assignment.objects.create(
        classroom=school.class_a, title="Second", lab="drain", due_at=DUE
    )
    submission = Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=run
    )
    Submission.objects.create(assignment=second, student=school.alice, run=other_run)
    before = finished_run(
        school.alice, lab="trapped-service", seed=5, horizon_s=120, recover_at_s=100
    )
    after = finished_run(
        school.alice,
        lab="trapped-service",
        seed=5,
        horizon_s=120,
        recover_at_s=100,
        **RECOMMENDED_CONTROLS,
    )
    for title, capstone_run in (("Before", before), ("After", after)):
        capstone = Assignment.objects.create(
            classroom=school.class_a, title=title, lab="trapped-service", due_at=DUE
        )
        Submission.objects.create(assignment=capstone, student=school.alice, run=capstone_run)
    experiment = Run.objects.create(
        owner=school.alice, lab="poison-live", params={}, seed=0, status="succeeded"
    )
    poison = Assignment.objects.create(
        classroom=school.class_a, title="Poison", lab="poison-live", due_at=DUE
    )
    Submission.objects.create(assignment=poison, student=school.alice, run=experiment)
    live = Run.objects.create(
        owner=school.alice, lab="trapped-live", params={}, seed=5, status="running"
    )
    yield World(school, run, other_run, submission, before, after, experiment, live)
    from classlab import live as classlab_live
    from classlab.models import Experiment
    from labs.experiments.namespace import connect

    for exp in Experiment.objects.all():  # the World's, and any a row started
        classlab_live.namespace(exp.run_key).cleanup(connect())


def class_experiments(w: World) -> dict:
    """Class A's experiments, made as a teacher and a phone make them (tests/classlab/).

    "saved": ended, alice took part (her guess and record are in it): its run page and
    downloads. "live": waiting to start, no guests, alice joined: its projector and
    controls, and the phone's calls. "open": teacher A's from a unit page (no class),
    guests allowed.
    """
    if w.class_experiments:
        return w.class_experiments
    from classlab.models import Experiment
    from classlab.tasks import finish

    s = w.school
    teacher, phone = Client(), Client()
    teacher.force_login(s.teacher)
    phone.force_login(s.alice)

    def start(url: str, **form: str) -> Experiment:
        answer = teacher.post(url, {"scenario": "storm", "minutes": "10", **form})
        return Experiment.objects.get(pk=resolve(answer["Location"]).kwargs["exp_id"])

    def join(exp: Experiment) -> None:
        assert phone.post(r("classlab-join", exp.code)).status_code == 302
        phone.post(r("classlab-predict", exp.code), {"prediction": "trapped"})

    saved = start(r("classlab-start", s.class_a.pk))
    join(saved)
    finish(saved.pk)
    live = start(r("classlab-start", s.class_a.pk))
    join(live)
    opened = start(r("classlab-start-unit"), scenario="workers", allow_guests="on")
    w.class_experiments.update(saved=saved, live=live, open=opened)
    return w.class_experiments


def shared_link() -> str:
    """The short link of a setup shared from the drain lab's lesson values."""
    from labs.runs.shares import share

    return r("shared-setup", share("drain", {"arrivals": "50"}, "en").code)


def cx(w: World, which: str = "live"):
    return class_experiments(w)[which]


def r(name, *args):
    return reverse(name, args=args)


LAB_POST = {
    "arrivals": "50",
    "per_worker": "100",
    "rule": "backlog",
    "fixed_workers": "3",
    "per_waiting": "100",
    "min_workers": "1",
    "max_workers": "10",
}

#            anonymous, alice (A), bob (B), teacher of A, teacher of B
EVERYONE = (200, 200, 200, 200, 200)
MEMBERS = (LOGIN, 200, 404, 200, 404)  # alice and her teacher; others as if it did not exist
TEACHER_ONLY = (LOGIN, 403, 404, 200, 404)  # alice knows the class, so she is told no
TEACHER_ACTION = (LOGIN, 403, 404, 302, 404)
ANY_USER = (LOGIN, 200, 200, 200, 200)
MEMBERS_REDIRECT = (LOGIN, 302, 404, 302, 404)


class To(int):
    """A redirect (302) to the named page, for anyone: the phone's pages need no account."""

    url_name: str

    def __new__(cls, url_name: str) -> To:
        answer = super().__new__(cls, 302)
        answer.url_name = url_name
        return answer


PHONE, JOIN = To("classlab-phone"), To("classlab-join")
# A class experiment's phone calls: alice, who joined it, gets through; nobody else has a
# phone in it (403, "Join the experiment first"), signed in or not.
PARTICIPANT = (403, 200, 403, 403, 403)
START = {"scenario": "storm", "minutes": "10"}

MATRIX = [
    # (name, method, url, data, expected answers by role)
    ("home", "get", lambda w: r("home"), None, EVERYONE),
    ("lesson", "get", lambda w: r("unit-detail", "lesson-12"), None, EVERYONE),
    ("lab page", "get", lambda w: r("lab-detail", "drain"), None, EVERYONE),
    # Lessons are open: anyone may check their answers; only a signed-in score is kept.
    (
        "self-check",
        "post",
        lambda w: r("unit-selfcheck", "lesson-07"),
        {"rush-clear": "10"},
        EVERYONE,
    ),
    (
        "run a lab",
        "post",
        lambda w: r("lab-detail", "drain"),
        LAB_POST,
        (LOGIN, 302, 302, 302, 302),
    ),
    # A draft: the form posted as a control moves (labs.web.views.drafts).
    ("move a control", "post", lambda w: r("lab-draft", "drain"), LAB_POST, ANY_USER),
    # Sharing a setup keeps a row: an account is asked for. Opening the short link needs
    # none: anyone is sent to the lab with the values (tests/labs/web/test_share.py).
    ("share a setup", "post", lambda w: r("lab-share", "drain"), LAB_POST, ANY_USER),
    ("open a shared setup", "get", lambda w: shared_link(), None, (To("lab-detail"),) * 5),
    ("keep a draft", "post", lambda w: r("run-keep", w.run.pk), {}, (LOGIN, 302, 404, 404, 404)),
    ("my runs", "get", lambda w: r("my-runs"), None, ANY_USER),
    ("run page", "get", lambda w: r("run-detail", w.run.pk), None, MEMBERS),
    ("run json", "get", lambda w: r("run-json", w.run.pk), None, MEMBERS),
    ("run csv", "get", lambda w: r("run-csv", w.run.pk), None, MEMBERS),
    ("run numbers", "get", lambda w: r("run-numbers", w.run.pk), None, MEMBERS),
    (
        "name a run",
        "post",
        lambda w: r("run-label", w.run.pk),
        {"name": "n", "note": ""},
        (LOGIN, 302, 404, 403, 404),
    ),
    ("re-run", "post", lambda w: r("run-rerun", w.run.pk), {}, (LOGIN, 302, 404, 302, 404)),
    (
        "compare",
        "get",
        lambda w: f"{r('run-compare')}?run={w.run.pk}&run={w.other_run.pk}",
        None,
        MEMBERS,
    ),
    # Only the owner acts on a run's queue; here it has expired, which she is told (410).
    ("queue panel", "get", lambda w: r("run-queue", w.experiment.pk), None, MEMBERS_REDIRECT),
    (
        "redrive",
        "post",
        lambda w: r("run-queue-redrive", w.experiment.pk),
        {"message": "pdf-3"},
        (LOGIN, 410, 404, 403, 404),
    ),
    (
        "purge",
        "post",
        lambda w: r("run-queue-purge", w.experiment.pk),
        {"what": "dlq"},
        (LOGIN, 410, 404, 403, 404),
    ),
    ("my classes", "get", lambda w: r("class-list"), None, ANY_USER),
    (
        "create a class",
        "post",
        lambda w: r("class-new"),
        {"name": "New"},
        (LOGIN, 403, 403, 302, 302),
    ),
    (
        "join class A",
        "post",
        lambda w: r("class-join"),
        {"code": "AAAA2222"},
        (LOGIN, 302, 302, 422, 302),  # its own teacher is told why not
    ),
    ("class page", "get", lambda w: r("class-detail", w.school.class_a.pk), None, MEMBERS),
    (
        "add a student",
        "post",
        lambda w: r("student-add", w.school.class_a.pk),
        {"username": "carol"},
        TEACHER_ACTION,
    ),
    (
        "remove a student",
        "post",
        lambda w: r("student-remove", w.school.class_a.pk, w.school.alice.pk),
        {},
        TEACHER_ACTION,
    ),
    (
        "set sections",
        "post",
        lambda w: r("class-sections", w.school.class_a.pk),
        lambda w: {f"section-{w.school.alice.pk}": "A"},
        TEACHER_ACTION,
    ),
    (
        "new assignment",
        "get",
        lambda w: r("assignment-new", w.school.class_a.pk) + "?lab=drain",
        None,
        TEACHER_ONLY,
    ),
    (
        "edit assignment",
        "get",
        lambda w: r("assignment-edit", w.school.assignment_a.pk),
        None,
        TEACHER_ONLY,
    ),
    (
        "assignment page",
        "get",
        lambda w: r("assignment-detail", w.school.assignment_a.pk),
        None,
        MEMBERS,
    ),
    (
        "run an assignment",
        "post",
        lambda w: r("assignment-run", w.school.assignment_a.pk),
        LAB_POST,
        (LOGIN, 302, 404, 302, 404),
    ),
    (
        "submit",
        "post",
        lambda w: r("assignment-submit", w.school.assignment_a.pk),
        lambda w: {"run": w.run.pk},
        (LOGIN, 302, 404, 403, 404),
    ),
    (
        "give an extension",
        "post",
        lambda w: r("extension-set", w.school.assignment_a.pk),
        lambda w: {"student": w.school.alice.pk, "due_at": "2031-04-01T10:00"},
        TEACHER_ACTION,
    ),
    ("gradebook", "get", lambda w: r("gradebook", w.school.class_a.pk), None, TEACHER_ONLY),
    ("gradebook csv", "get", lambda w: r("gradebook-csv", w.school.class_a.pk), None, TEACHER_ONLY),
    ("class zip", "get", lambda w: r("class-export", w.school.class_a.pk), None, TEACHER_ONLY),
    # Archiving and unarchiving: tests/teaching/test_term_end.py (what an archived class refuses).
    (
        "archive a class",
        "post",
        lambda w: r("class-archive", w.school.class_a.pk),
        {"archived": "0"},
        TEACHER_ACTION,
    ),
    ("submission", "get", lambda w: r("submission-detail", w.submission.pk), None, MEMBERS),
    *[
        (name, "get", lambda w, name=name: r(name, w.school.assignment_a.pk), None, TEACHER_ONLY)
        for name in (
            "assignment-results",
            "assignment-results-projector",
            "assignment-results-csv",
            "assignment-results-json",
        )
    ],
    (
        "run the lesson's case",
        "post",
        lambda w: r("assignment-results-reference", w.school.assignment_a.pk),
        {},
        TEACHER_ACTION,
    ),
    ("operator view", "get", lambda w: r("run-obligations", w.before.pk), None, MEMBERS),
    (
        # Only the owner may switch a live run's controls (409: its experiment is not live).
        "switch a live control",
        "post",
        lambda w: r("run-control", w.live.pk),
        {"control": "drop_expired", "state": "on"},
        (LOGIN, 409, 404, 404, 404),
    ),
    ("pick a report", "get", lambda w: r("report-pick"), None, ANY_USER),
    ("report", "get", lambda w: r("report", w.before.pk, w.after.pk), None, MEMBERS),
    ("report md", "get", lambda w: r("report-markdown", w.before.pk, w.after.pk), None, MEMBERS),
    ("report json", "get", lambda w: r("report-json", w.before.pk, w.after.pk), None, MEMBERS),
    (
        "save an analysis",
        "post",
        lambda w: r("report-analysis", w.before.pk, w.after.pk),
        {"trigger": "A spike at second 60."},
        (LOGIN, 302, 404, 403, 404),
    ),
    (
        "give feedback",
        "post",
        lambda w: r("submission-feedback", w.submission.pk),
        {"feedback": "Good."},
        TEACHER_ACTION,
    ),
    (
        "run a before/after pair",
        "post",
        lambda w: r("report-pair"),
        lambda w: capstone_form(),
        (LOGIN, 302, 302, 302, 302),
    ),
    # Accounts: sign-up is for visitors; a class's accounts are its teacher's alone.
    ("sign up", "get", lambda w: r("signup"), None, (200, 302, 302, 302, 302)),
    (
        "student accounts",
        "get",
        lambda w: r("class-accounts", w.school.class_a.pk),
        None,
        TEACHER_ONLY,
    ),
    (
        "import a roster",
        "post",
        lambda w: r("roster-import", w.school.class_a.pk),
        {"text": "Carol Singh"},
        (LOGIN, 403, 404, 200, 404),
    ),
    (
        "reset a password",
        "post",
        lambda w: r("student-password-reset", w.school.class_a.pk, w.school.alice.pk),
        {},
        (LOGIN, 403, 404, 200, 404),
    ),
    (
        "close sign-up",
        "post",
        lambda w: r("class-signup", w.school.class_a.pk),
        {"open": "0"},
        TEACHER_ACTION,
    ),
    (
        "lift login pauses",
        "post",
        lambda w: r("class-unpause", w.school.class_a.pk),
        {},
        TEACHER_ACTION,
    ),
    (
        "turn on approval of new sign-ups",
        "post",
        lambda w: r("class-approvals", w.school.class_a.pk),
        {"approve": "1"},
        TEACHER_ACTION,
    ),
    (
        "approve the ticked sign-ups",
        "post",
        lambda w: r("class-pending", w.school.class_a.pk),
        {"action": "approve", "student": ["1"]},
        TEACHER_ACTION,
    ),
    ("shallow health", "get", lambda w: r("healthz"), None, EVERYONE),
    # An invitation is its student's alone (bob, of class B, invited into class A).
    (
        "accept an invitation",
        "post",
        lambda w: r("invitation-accept", invitation_for_bob(w).pk),
        None,
        (LOGIN, 404, 302, 404, 404),
    ),
    (
        "decline an invitation",
        "post",
        lambda w: r("invitation-decline", invitation_for_bob(w).pk),
        None,
        (LOGIN, 404, 302, 404, 404),
    ),
    # The capstone assignment's own pair: its class may run it (an empty form is refused
    # with 422), nobody else learns it exists.
    (
        "run an assignment's pair",
        "post",
        lambda w: r("assignment-pair", capstone_assignment(w).pk),
        None,
        (LOGIN, 422, 404, 422, 404),
    ),
    # The site's own queues: teachers (any class) and admins; a student gets 404.
    ("operations page", "get", lambda w: r("ops-queues"), None, (LOGIN, 404, 404, 200, 200)),
    # Prometheus scrapes with a token; without METRICS_TOKEN there is no such page.
    ("metrics", "get", lambda w: r("metrics"), None, (404, 404, 404, 404, 404)),
    # Offline: the service worker's script and the page it shows for a page never seen are
    # the same for everyone and hold no one's data (tests/ops/test_offline.py).
    ("service worker", "get", lambda w: r("service-worker"), None, EVERYONE),
    ("offline page", "get", lambda w: r("offline"), None, EVERYONE),
    # The class experiment (classlab). Starting one from class A is its teacher's; from a
    # unit page (no class), any teacher's.
    (
        "class experiment start page",
        "get",
        lambda w: r("classlab-start-class", w.school.class_a.pk),
        None,
        TEACHER_ONLY,
    ),
    (
        # Class A's experiment is live: its teacher is sent back to it (one at a time).
        "start a class experiment",
        "post",
        lambda w: r("classlab-start", cx(w).classroom_id),
        START,
        (LOGIN, 403, 404, To("classlab-projector"), 404),
    ),
    (
        "unit experiment start page",
        "get",
        lambda w: r("classlab-start-unit-page"),
        None,
        (LOGIN, 403, 403, 200, 200),
    ),
    (
        "start a unit experiment",
        "post",
        lambda w: r("classlab-start-unit"),
        START,
        (LOGIN, 403, 403, To("classlab-projector"), To("classlab-projector")),
    ),
    # The projector, the controls and the saved run are the teacher's (the run page and the
    # downloads name each phone): a student of the class is told no, others find nothing.
    ("projector", "get", lambda w: r("classlab-projector", cx(w).pk), None, TEACHER_ONLY),
    ("start the service", "post", lambda w: r("classlab-go", cx(w).pk), {}, TEACHER_ACTION),
    (
        "a teacher's move",
        "post",
        lambda w: r("classlab-control", cx(w).pk),
        {"action": "spike_on"},
        TEACHER_ACTION,
    ),
    (
        "class experiment run",
        "get",
        lambda w: r("classlab-run", cx(w, "saved").pk),
        None,
        TEACHER_ONLY,
    ),
    ("replay", "get", lambda w: r("classlab-replay", cx(w, "saved").pk), None, TEACHER_ONLY),
    *[
        (
            f"class experiment {fmt}",
            "get",
            lambda w, fmt=fmt: r("classlab-export", cx(w, "saved").pk, fmt),
            None,
            TEACHER_ONLY,
        )
        for fmt in ("csv", "json")
    ],
    # Joining by the code: the page opens for anyone (it says to log in; alice, in already,
    # goes on to her phone's page); class A's experiment takes its students only, as
    # guests are not allowed in it...
    (
        "join page",
        "get",
        lambda w: r("classlab-join", cx(w).code),
        None,
        (200, PHONE, 200, 200, 200),
    ),
    (
        "join",
        "post",
        lambda w: r("classlab-join", cx(w).code),
        {"nickname": "Meera"},
        (403, PHONE, 403, 403, 403),
    ),
    # ... and one its teacher let guests into takes anyone (signed in: as themselves).
    (
        "join where guests may",
        "post",
        lambda w: r("classlab-join", cx(w, "open").code),
        {"nickname": "Meera"},
        (PHONE, PHONE, PHONE, PHONE, PHONE),
    ),
    (
        "phone",
        "get",
        lambda w: r("classlab-phone", cx(w).code),
        None,
        (JOIN, 200, JOIN, JOIN, JOIN),
    ),
    (
        "predict",
        "post",
        lambda w: r("classlab-predict", cx(w).code),
        {"prediction": "recovers"},
        (403, PHONE, 403, 403, 403),
    ),
    ("tick", "post", lambda w: r("classlab-tick", cx(w).code), {"taps": "1"}, PARTICIPANT),
    ("take a job", "post", lambda w: r("classlab-take", cx(w).code), {}, PARTICIPANT),
    # The storm has no jobs: alice, through the check, is told so (409).
    (
        "finish a job",
        "post",
        lambda w: r("classlab-done", cx(w).code),
        {"job": "j1"},
        (403, 409, 403, 403, 403),
    ),
    # The live state is the projector's figures (no names), for every phone and the
    # projector, guests too: read by the code, no account needed. The stream is the same
    # state; under a WSGI server (the test client) it answers 204 and the page polls.
    ("live state", "get", lambda w: r("classlab-state", cx(w).code), None, EVERYONE),
    (
        "live stream",
        "get",
        lambda w: r("classlab-stream", cx(w).code),
        None,
        (204, 204, 204, 204, 204),
    ),
]


def invitation_for_bob(world: World):
    from teaching.models import Invitation

    s = world.school
    return Invitation.objects.create(classroom=s.class_a, student=s.bob, invited_by=s.teacher)


def capstone_assignment(world: World):
    return Assignment.objects.filter(classroom=world.school.class_a, title="Before").get()


def capstone_form() -> dict[str, str]:
    lab = get_lab("trapped-service")
    return {p.name: _as_form_value(p.default) for p in lab.params} | {"seed": "5"}


CASES = [
    pytest.param(name, method, url, data, role, expected[i], id=f"{name}-{role}")
    for name, method, url, data, expected in MATRIX
    for i, role in enumerate(ROLES)
]


def user_for(world: World, role: str):
    s = world.school
    return {"alice": s.alice, "bob": s.bob, "teacher": s.teacher, "other_teacher": s.other_teacher}[
        role
    ]


@pytest.mark.parametrize(("name", "method", "url", "data", "role", "expected"), CASES)
def test_it_gives_each_role_the_right_answer(
    client, world, name, method, url, data, role, expected
):
    if role != "anonymous":
        client.force_login(user_for(world, role))
    if callable(data):
        data = data(world)
    response = getattr(client, method)(url(world), data or {})
    assert response.status_code == expected, response.content.decode()[:500]
    if isinstance(expected, To):
        assert resolve(urlsplit(response["Location"]).path).url_name == expected.url_name
    elif expected == 302:
        went_to_login = response["Location"].startswith(resolve_url(settings.LOGIN_URL))
        assert went_to_login == (role == "anonymous")


def test_it_covers_every_url_of_the_site():
    """A new page must be added to the matrix: list the names it has to cover."""
    from django.urls import get_resolver

    covered = {
        "home", "unit-detail", "unit-selfcheck", "lab-detail", "my-runs", "run-detail",
        "run-json", "run-csv", "run-numbers",
        "run-label", "run-rerun", "run-compare", "lab-draft", "run-keep",
        "class-list", "class-new", "class-join",
        "class-detail", "student-add", "student-remove", "class-sections", "assignment-new",
        "assignment-edit",
        "assignment-detail", "assignment-run", "assignment-submit", "extension-set",
        "gradebook", "gradebook-csv", "class-export", "class-archive", "submission-detail",
        "assignment-results", "assignment-results-projector", "assignment-results-csv",
        "assignment-results-json", "assignment-results-reference",
        "run-obligations", "report-pick",
        "report", "report-markdown", "report-json", "report-pair", "run-queue",
        "report-analysis", "submission-feedback",
        "run-queue-redrive", "run-queue-purge", "run-control", "signup", "class-accounts",
        "roster-import", "student-password-reset", "class-signup", "class-unpause", "healthz",
        "class-approvals", "class-pending",  # issue 39 item 3: approving new sign-ups
        "invitation-accept", "invitation-decline", "assignment-pair", "ops-queues", "metrics",
        "healthz-deep",  # public, answers on its dependencies: tests/ops/test_health.py
        "join-short",  # a redirect for everyone: tests/teaching/test_join_link.py
        # The LMS link, each checked by its own signed token or role: tests/lti/
        "lti-setup", "lti-jwks", "lti-login", "lti-launch", "lti-continue", "lti-deep-link",
        "lti-register", "lti-roster-fill",
        "lab-share", "shared-setup",  # share this setup: tests/labs/web/test_share.py
        "set-language",  # open to everyone, visitors too: tests/accounts/test_language.py
        "service-worker", "offline",  # public, no one's data: tests/ops/test_offline.py
        "classlab-start-class", "classlab-start", "classlab-start-unit-page",
        "classlab-start-unit", "classlab-projector", "classlab-go", "classlab-control",
        "classlab-run", "classlab-replay", "classlab-export", "classlab-join",
        "classlab-phone", "classlab-predict", "classlab-tick", "classlab-take",
        "classlab-done", "classlab-state", "classlab-stream",
    }  # fmt: skip
    ours = {name for name in get_resolver().reverse_dict if isinstance(name, str)}
    django_own = {n for n in ours if n.startswith(("login", "logout", "password"))}
    assert ours - django_own - covered == set()
