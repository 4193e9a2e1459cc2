"""The challenges on a lab's own page, and each run's distance to them in its body.

The page names each challenge of the lab in words (never its criteria code), the settings
it lets change and the others it keeps fixed, with the lab's own labels; a run's body (a
draft's too: drafts.js lands the same body) says from the run's own figures whether it met
each one, how far each check was, and which fixed setting it changed.
"""

from __future__ import annotations

from django.urls import reverse

from labs.text import num
from labs.web import fragment_cache
from teaching.lab_challenges import distances
from tests.base import finished_run

HX = {"HTTP_HX_REQUEST": "true"}
FEWEST = "Empty the queue within the 10 seconds with at most 4 workers at any moment."
BY_FIVE = "Empty the queue by second 5 with at most 10 workers at any moment."


def card(html: str) -> str:
    start = html.index('<details class="lab-challenges"')
    return html[start : html.index("</ol>\n</details>", start)]


def body_challenges(html: str) -> str:
    start = html.index('<section class="run-challenges"')
    return html[start : html.index("</section>", start)]


def test_the_lab_page_names_each_goal_what_may_change_and_what_stays(client, school):
    school.assignment_a.challenges = ["drain-by-five"]
    school.assignment_a.save()
    client.force_login(school.alice)
    shown = card(client.get(reverse("lab-detail", args=["drain"])).content.decode())
    assert FEWEST in shown and BY_FIVE in shown
    # The assignment's challenge comes first, marked as asked by it.
    assert shown.index(BY_FIVE) < shown.index(FEWEST)
    assert "Asked by your assignment “Drain the burst (Class A)”" in shown
    # In the lab's own words: the form's labels, never the criteria's code.
    assert "You may change:</strong> Most workers (backlog rule), Fewest workers" in shown
    assert "Kept fixed: 4 settings" in shown
    assert "Jobs one worker finishes per second: 100 jobs/s" in shown
    assert "Scaling rule: Scale on the backlog" in shown
    assert "cleared_at_s" not in shown and "most_workers" not in shown and "<=" not in shown
    assert 'href="/labs/drain/?challenge=drain-by-five">Set up this challenge</a>' in shown


def test_a_challenge_with_a_scenario_is_set_up_by_its_link(client, people):
    """“Lose no message while the workers are stopped for 5 days” starts at 120 h."""
    client.force_login(people.alice)
    html = client.get(reverse("lab-detail", args=["retention"])).content.decode()
    assert 'href="/labs/retention/?outage_h=120&amp;challenge=retention-five-days"' in card(html)
    opened = client.get("/labs/retention/?outage_h=120&challenge=retention-five-days")
    shown = card(opened.content.decode())
    assert shown.startswith('<details class="lab-challenges" id="challenges-retention" open>')
    assert 'class="challenge picked"' in shown


def test_a_lab_without_challenges_shows_no_card(client, people):
    client.force_login(people.alice)
    html = client.get(reverse("lab-detail", args=["drain-compare"])).content.decode()
    assert "lab-challenges" not in html


def test_a_run_body_says_how_far_each_check_was_from_the_runs_own_figures(client, people):
    run = finished_run(people.alice)  # the lesson's values: up to 10 workers
    summary = run.result["summary"]
    client.force_login(people.alice)
    shown = body_challenges(client.get(run.get_absolute_url(), **HX).content.decode())
    most = num(summary["most_workers"])
    assert f"Most workers at once: at most 4 workers — your run: {most} workers." in shown
    assert FEWEST in shown and "not yet" in shown
    assert "drain_s" not in shown and "most_workers" not in shown


def test_a_run_body_says_which_fixed_setting_keeps_it_from_counting(client, people):
    run = finished_run(people.alice, per_waiting=50, per_worker=150)
    client.force_login(people.alice)
    shown = body_challenges(client.get(run.get_absolute_url(), **HX).content.decode())
    assert (
        "This challenge keeps “Jobs one worker finishes per second” at 100; your run changed it."
        in shown
    )
    assert "badge succeeded" not in shown


def test_a_run_that_meets_a_challenge_says_met(client, people):
    run = finished_run(people.alice, per_waiting=50)
    client.force_login(people.alice)
    shown = body_challenges(client.get(run.get_absolute_url(), **HX).content.decode())
    met = shown[shown.index('data-challenge="drain-by-five"') :]
    assert met.startswith('data-challenge="drain-by-five"')
    assert '<span class="badge succeeded">met</span>' in met.split("</li>")[0]


def test_only_a_run_that_meets_a_challenge_asks_whether_it_was_credited(
    people, django_assert_num_queries
):
    """A drag's drafts mostly meet no challenge (a moved value the challenge keeps fixed):
    their bodies say how far each was from the run's own figures and ask nothing about
    credits; a run that meets one asks once (was it this run that earned it?)."""
    missed = finished_run(people.alice, per_waiting=50, per_worker=150)
    with django_assert_num_queries(0):
        assert not any(d.met for d in distances(missed))
    met = finished_run(people.alice, per_waiting=50)
    with django_assert_num_queries(1):
        assert any(d.met for d in distances(met))


def test_the_card_and_the_distance_read_in_marathi(client, people):
    run = finished_run(people.alice)
    client.force_login(people.alice)
    client.cookies["django_language"] = "mr"
    page = card(client.get(reverse("lab-detail", args=["drain"])).content.decode())
    assert "हे आव्हान सुरू करा" in page and "तुम्ही बदलू शकता:" in page
    fragment_cache.forget(run.pk)
    shown = body_challenges(client.get(run.get_absolute_url(), **HX).content.decode())
    assert "— तुमच्या रनमध्ये:" in shown and "अजून नाही" in shown
