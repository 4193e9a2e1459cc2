"""A signed-in person's pages and exports are `Cache-Control: private`: no shared cache
(a school's proxy, a CDN) may keep them for the next student; public pages are not."""

from __future__ import annotations

from django.urls import reverse

from labs.runs.models import Run
from tests.lab_helpers import run as run_lab
from tests.labs.capstone.test_views import finished_pair, report_url


def private(response) -> bool:
    return "private" in response.headers.get("Cache-Control", "")


def test_personal_pages_and_exports_are_private_and_public_pages_are_not(client, school):
    result = run_lab("drain")
    mine = Run.objects.create(
        owner=school.alice, lab="drain", params=result["params"], seed=0,
        status="succeeded", result=result,
    )  # fmt: skip
    public = client.get(reverse("home"))
    assert public.status_code == 200 and not private(public)

    client.force_login(school.alice)
    before, after = finished_pair(school.alice)
    for url in (
        reverse("home"),
        reverse("my-runs"),
        mine.get_absolute_url(),
        reverse("run-csv", args=[mine.pk]),
        report_url(before, after, "report-markdown"),
    ):
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert private(answer), url

    client.force_login(school.teacher)
    for name in ("gradebook", "gradebook-csv", "class-export"):
        answer = client.get(reverse(name, args=[school.class_a.pk]))
        assert answer.status_code == 200, name
        assert private(answer), name
