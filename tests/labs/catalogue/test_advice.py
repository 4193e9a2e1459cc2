"""'Try next' links fill the lab's form; 'in production' writes the run's values as real
systems spell them."""

from __future__ import annotations

import html
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from labs.catalogue.advice import TryNext
from labs.catalogue.entries import LABS, get_lab
from labs.web.try_next import initial_from_query, try_next_links
from tests.base import finished_run
from tests.lab_helpers import form


def _links(slug, values):
    lab = get_lab(slug)
    return try_next_links(lab.slug, lab.params, lab.try_next, values)


def test_a_link_carries_the_runs_values_with_the_change():
    lab = get_lab("breaker")
    values = lab.defaults() | {"open_s": 25}
    question, url = _links("breaker", values)[0]
    query = {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
    assert query["threshold"] == "1"  # the suggested change
    assert query["open_s"] == "25"  # the run's own value, kept
    assert initial_from_query(lab.params, query)["threshold"] == 1


def test_a_suggestion_the_run_already_made_is_not_offered():
    values = get_lab("breaker").defaults() | {"threshold": 1}
    questions = [q for q, _ in _links("breaker", values)]
    assert len(questions) == 1 and "60 s" in questions[0]


def test_a_suggestion_outside_the_bounds_is_left_out():
    lab = get_lab("breaker")
    bad = (TryNext("too many", {"threshold": 10_000}), TryNext("unknown", {"nope": 1}))
    assert try_next_links(lab.slug, lab.params, bad, lab.defaults()) == []


def test_bad_values_in_a_link_fall_back_to_the_defaults():
    lab = get_lab("drain")
    initial = initial_from_query(
        lab.params, {"max_workers": "lots", "per_waiting": "-5", "rule": "fixed", "x": "1"}
    )
    assert initial == {"rule": "fixed"}


# Labs with no change worth suggesting, each with the reason. Empty: every lab has one.
NO_TRY_NEXT: dict[str, str] = {}


def test_every_lab_suggests_what_to_try_next():
    missing = [lab.slug for lab in LABS if not lab.try_next and lab.slug not in NO_TRY_NEXT]
    assert missing == [], "add a TryNext to these labs' entries (or say why not in NO_TRY_NEXT)"
    assert [slug for slug in NO_TRY_NEXT if get_lab(slug) is None or get_lab(slug).try_next] == []


@pytest.mark.parametrize("lab", [lab for lab in LABS if lab.try_next], ids=lambda lab: lab.slug)
def test_every_suggestion_fills_a_form_the_lab_accepts(lab):
    for suggestion in lab.try_next:
        filled = form(lab.slug, **suggestion.changes)
        assert filled.is_valid(), (str(suggestion.question), dict(filled.errors))


@pytest.mark.parametrize("lab", [lab for lab in LABS if lab.try_next], ids=lambda lab: lab.slug)
def test_every_declared_suggestion_is_offered_from_the_defaults_or_a_sibling(lab):
    """A suggestion the defaults already follow ("only one layer retries") is offered once
    the student has followed another of the lab's suggestions (three layers retry)."""
    from_defaults = {q for q, _ in _links(lab.slug, lab.defaults())}
    reachable = set(from_defaults)
    for sibling in lab.try_next:
        reachable |= {q for q, _ in _links(lab.slug, lab.defaults() | dict(sibling.changes))}
    assert {str(s.question) for s in lab.try_next} == reachable
    assert from_defaults, "at least one suggestion must show after a run of the defaults"


def test_the_run_page_shows_try_next_and_the_form_opens_filled(client, people):
    run = finished_run(people.alice, lab="breaker")
    client.force_login(people.alice)
    page = client.get(run.get_absolute_url()).content.decode()
    assert "Try next" in page
    url = html.unescape(page.split('class="try-next')[1].split('href="')[1].split('"')[0])
    form = client.get(url).content.decode()
    assert 'name="threshold" value="1"' in form
    assert "fail_max=1," in form  # the in-production panel follows the filled values


def test_the_snippets_spell_the_students_values():
    drain = get_lab("drain").in_production(get_lab("drain").defaults() | {"per_waiting": 40})
    keda = drain[0].text.splitlines()
    assert "kind: ScaledObject" in keda
    assert '        queueLength: "40"  # messages per worker' in keda
    assert "  maxReplicaCount: 10" in keda
    fixed = get_lab("drain").in_production(get_lab("drain").defaults() | {"rule": "fixed"})
    assert "  replicas: 3" in fixed[0].text.splitlines()

    redrive = get_lab("poison-messages").in_production(
        get_lab("poison-messages").defaults() | {"max_receives": 5}
    )
    policy = redrive[0].text.split("'")[1]
    assert json.loads(policy)["maxReceiveCount"] == 5
    assert "ReportBatchItemFailures" in redrive[1].text

    retries = get_lab("backoff").in_production(get_lab("backoff").defaults() | {"attempts": 4})
    assert '"total_max_attempts": 5' in retries[0].text  # 1 call + 4 retries
    assert "stop_after_attempt(5)" in retries[1].text
    compile(retries[0].text, "botocore", "exec")
    compile(retries[1].text, "tenacity", "exec")

    breaker = get_lab("breaker").in_production(get_lab("breaker").defaults() | {"threshold": 3})
    assert "fail_max=3," in breaker[0].text and "reset_timeout=10," in breaker[0].text
    compile(breaker[0].text, "pybreaker", "exec")
    assert "      waitDurationInOpenState: 10s" in breaker[1].text.splitlines()
