"""Challenges: each is met by a known setting, missed at the defaults, and says why it missed."""

from __future__ import annotations

import pytest
from django.utils import translation

from labs.interface.progress import SilentProgress
from teaching.challenges import attempt, near_miss_words, statuses
from teaching.unit_challenges import CHALLENGES, for_unit, get_challenge

MEETS = {
    "answer-while-down": {"send": "queue"},
    "busy-minute-by-65": {"capacity_per_s": 2770},
    "batching-ten-minutes": {"batch": 10},
    "drain-fewest-workers": {"max_workers": 4},
    "drain-by-five": {"per_waiting": 50},
    "retention-five-days": {"source_retention_h": 144},
    "cascade-timeout-only": {"use_timeout": True, "dependency_timeout_ms": 500},
    "cascade-every-caller": {
        "use_timeout": True,
        "backoff": True,
        "breaker": True,
        "fallback": True,
    },
    "breaker-notice-at-once": {"threshold": 3, "open_s": 2},
    "storm-less-work": {"jitter": "full", "base_ms": 200.0, "cap_ms": 400.0},
    "trapped-no-admission-limit": {
        "limit_retries": True,
        "drop_expired": True,
        "reconcile_payments": True,
    },
    "drain-math-fifteen": {"capacity_per_s": 60.0},
    "pool-trap-by-30": {"control": "bulkhead", "switch_at_s": 0},
}


def _try(challenge, changes):
    lab = challenge.lab_entry
    params = {**challenge.start_params(), **changes}
    summary = lab.run(params, lab.default_seed, SilentProgress())["summary"]
    return attempt(challenge, 1, params, summary)


def test_every_unit_has_three_to_five_and_every_one_a_known_answer():
    for unit in ("lesson-07", "lesson-12", "lesson-13", "assignment-05"):
        assert 3 <= len(for_unit(unit)) <= 5
    assert set(MEETS) == {c.slug for c in CHALLENGES}


@pytest.mark.parametrize("slug", sorted(MEETS))
def test_it_is_met_by_its_known_setting_and_missed_at_the_start(slug):
    challenge = get_challenge(slug)
    for change in MEETS[slug]:
        assert change in challenge.may_change  # the answer changes only what it may
    assert _try(challenge, MEETS[slug]).met
    start = _try(challenge, {})
    assert not start.met
    assert near_miss_words(challenge, start)  # and the miss is explained


def test_a_run_that_changes_a_fixed_parameter_does_not_count():
    challenge = get_challenge("drain-fewest-workers")
    cheat = _try(challenge, {"max_workers": 4, "arrivals": [10, 10]})
    assert not cheat.met
    with translation.override("en"):
        (line, *_) = near_miss_words(challenge, cheat)
    assert "keeps" in line


def test_the_near_miss_names_the_figure_and_the_run_value():
    challenge = get_challenge("drain-fewest-workers")
    with translation.override("en"):
        lines = near_miss_words(challenge, _try(challenge, {}))
    assert lines == ["Most workers at once: at most 4 workers — your run: 8 workers."]


def test_a_met_run_wins_over_newer_misses():
    challenge = get_challenge("drain-math-fifteen")
    lab = challenge.lab_entry
    good = {**lab.defaults(), "capacity_per_s": 60.0}
    runs = [
        {"id": "new", "lab": "drain-math", "params": lab.defaults(), "summary": {"drain_s": 20}},
        {"id": "old", "lab": "drain-math", "params": good, "summary": {"drain_s": 15.0}},
    ]
    (status,) = statuses([challenge], runs)
    assert status.met and status.attempt.run_id == "old"
    (status,) = statuses([challenge], runs[:1])
    assert not status.met and status.near_miss()
    (status,) = statuses([challenge], [])
    assert status.attempt is None and not status.met


def test_the_unit_page_marks_a_challenge_met_by_the_students_own_run(client, people):
    from django.urls import reverse

    from tests.base import finished_run

    good = finished_run(people.alice, lab="drain", max_workers=4)
    finished_run(people.bob, lab="drain", per_waiting=50)  # another student's run counts not
    client.force_login(people.alice)
    html = client.get(reverse("unit-detail", args=["lesson-12"])).content.decode()
    mine = html.split('id="challenge-drain-fewest-workers"')[1].split("</li>")[0]
    assert "met" in mine and str(good.id) in mine
    other = html.split('id="challenge-drain-by-five"')[1].split("</li>")[0]
    assert "Your closest run" in other and "Second the queue was empty" in other


def test_a_visitor_sees_the_goals_and_is_asked_to_log_in(client, db):
    from django.urls import reverse

    html = client.get(reverse("unit-detail", args=["lesson-13"])).content.decode()
    assert "2,000 clients fail together and retry until they are served" in html
    assert "Log in to have your runs checked." in html


def test_the_assignment_form_offers_the_units_challenges_and_saves_the_chosen():
    from labs.catalogue.entries import get_lab
    from teaching.forms import challenges_field

    field = challenges_field(get_lab("drain"))
    offered = [slug for slug, _ in field.choices]
    assert offered == [c.slug for c in for_unit("lesson-12")]


def test_the_gradebook_counts_the_challenges_each_student_met(client, school):
    from django.urls import reverse

    from tests.base import finished_run

    school.assignment_a.challenges = ["drain-fewest-workers", "drain-by-five"]
    school.assignment_a.save()
    finished_run(school.alice, lab="drain", max_workers=4)  # meets the first only
    client.force_login(school.teacher)
    html = client.get(reverse("gradebook", args=[school.class_a.pk])).content.decode()
    assert "challenges 1/2" in html
    client.force_login(school.alice)
    page = client.get(reverse("assignment-detail", args=[school.assignment_a.pk]))
    text = page.content.decode()
    assert 'id="challenge-drain-fewest-workers"' in text and "Your closest run" in text
