"""The gradebook's table is rendered once and kept until one of its cells changes."""

from __future__ import annotations

import redis
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from lessons.models import Attempt
from teaching.gradebook import cache as gradebook_cache
from teaching.gradebook.hand_in import hand_in
from teaching.models import Extension, Submission
from tests.base import DUE, PASSWORD, finished_run


def table_of(html: str) -> str:
    return html[html.index('<table class="list gradebook">') : html.index("</table>")]


def test_a_change_to_any_cell_shows_at_once_and_an_unchanged_table_is_not_rebuilt(
    client, school, frozen
):
    frozen(DUE.replace(year=DUE.year - 1))
    client.force_login(school.teacher)
    url = reverse("gradebook", args=[school.class_a.pk])
    first = client.get(url).content.decode()
    assert "not yet due" in first and "checks and feedback" not in first
    with CaptureQueriesContext(connection) as captured:
        again = client.get(url).content.decode()
    assert table_of(again) == table_of(first)
    assert not any("teaching_submission" in q["sql"] for q in captured)  # from the cache

    hand_in(school.assignment_a, school.alice, finished_run(school.alice), None, DUE)
    handed = client.get(url).content.decode()
    assert "checks and feedback" in handed
    sub = Submission.objects.get()
    sub.feedback, sub.scores, sub.feedback_at = "Good.", {}, DUE
    sub.save()
    assert "feedback given" in client.get(url).content.decode()
    later = DUE.replace(day=DUE.day + 1)
    Extension.objects.create(assignment=school.assignment_a, student=school.alice, due_at=later)
    assert "extended to" in client.get(url).content.decode()
    school.alice.username = "alice-renamed"
    school.alice.save()
    assert "alice-renamed" in client.get(url).content.decode()
    school.assignment_a.title = "Drain, retitled"
    school.assignment_a.save()
    assert "Drain, retitled" in client.get(url).content.decode()
    # Another class's table is its own: a change in class B leaves A's copy in place.
    hand_in(school.assignment_b, school.bob, finished_run(school.bob), None, DUE)
    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    assert not any("teaching_submission" in q["sql"] for q in captured)
    Attempt.objects.create(student=school.alice, unit="lesson-07", right=3, total=5)
    assert client.get(url).status_code == 200


def test_a_cell_carries_its_links_version_score_and_words_in_the_readers_language(client, school):
    from django.utils import translation

    from accounts.models import Profile

    before, after = finished_run(school.alice), finished_run(school.alice)
    sub = Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=after, before_run=before,
        submitted_at=DUE, version=2, scores={"analysis": 3}, feedback_at=DUE, feedback="Ok",
    )  # fmt: skip
    client.force_login(school.teacher)
    url = reverse("gradebook", args=[school.class_a.pk])
    table = table_of(client.get(url).content.decode())
    report = reverse("report", args=[before.id, after.id])
    assert f'<a href="{report}">report</a>' in table
    assert f'<a href="{sub.get_absolute_url()}">checks and feedback</a>' in table
    assert "version 2" in table and "score 3/" in table and "feedback given" in table
    # The runs succeeded, but the badge says the criteria: none met is no green pass.
    assert '<span class="badge criteria failed">0 of 4 criteria</span>' in table
    assert "badge succeeded" not in table
    Profile.objects.update_or_create(user=school.teacher, defaults={"language": "mr"})
    marathi = table_of(client.get(url, headers={"accept-language": "mr"}).content.decode())
    with translation.override("mr"):
        words = [
            translation.gettext("checks and feedback"),
            translation.gettext("version %(n)s") % {"n": 2},
            translation.gettext("feedback given"),
            translation.gettext("%(passed)s of %(total)s criteria") % {"passed": 0, "total": 4},
        ]
    assert all(w in marathi for w in words) and "checks and feedback" not in marathi


def test_the_csv_is_kept_until_a_cell_changes(client, school, frozen):
    frozen(DUE.replace(year=DUE.year - 1))
    client.force_login(school.teacher)
    url = reverse("gradebook-csv", args=[school.class_a.pk])
    first = client.get(url).content.decode()
    with CaptureQueriesContext(connection) as captured:
        again = client.get(url)
    assert again.content.decode() == first and again["Content-Type"].startswith("text/csv")
    assert not any("teaching_submission" in q["sql"] for q in captured)  # from the cache
    hand_in(school.assignment_a, school.alice, finished_run(school.alice), None, DUE)
    handed = client.get(url).content.decode()
    assert handed != first and "/runs/" in handed  # the hand-in's run link, at once


def test_a_hand_in_is_graded_from_its_digest_or_without_one_from_its_run(school):
    from django.utils import timezone

    from teaching.gradebook.book import build_gradebook
    from teaching.models import SubmissionDigest

    sub = Submission.objects.create(
        assignment=school.assignment_a, student=school.alice, run=finished_run(school.alice)
    )
    cell = lambda: next(  # noqa: E731
        c for row in build_gradebook(school.class_a, timezone.now()).rows for c in row.cells
        if c.submission is not None
    )  # fmt: skip
    from_digest = cell()
    assert from_digest.figures == sub.run.result["summary"] and from_digest.passed > 0
    SubmissionDigest.objects.filter(submission=sub).update(figures={"peak_backlog": -1})
    assert cell().figures == {"peak_backlog": -1}  # the digest is what is read
    SubmissionDigest.objects.filter(submission=sub).delete()
    without = cell()
    assert without.figures == sub.run.result["summary"] and without.passed == from_digest.passed


def test_a_redis_that_does_not_answer_refuses_neither_a_hand_in_nor_a_sign_in(
    client, school, frozen, monkeypatch
):
    """The fault bench's finding: with Redis stopped (or full), every hand-in and every
    student's sign-in was a 500, as their save bumps the class's gradebook version."""
    frozen(DUE.replace(year=DUE.year - 1))

    def down(*args, **kwargs):
        raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    for method in ("add", "incr", "set"):
        monkeypatch.setattr(gradebook_cache.cache, method, down)
    login = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert login.status_code == 302 and "_auth_user_id" in client.session
    run = finished_run(school.alice)
    submit = reverse("assignment-submit", args=[school.assignment_a.pk])
    assert client.post(submit, {"run": run.pk}).status_code == 302
    assert Submission.objects.get().run == run
