"""What a student reads carries no Python: plain words, whole numbers asked for as such,
no True/None/[...], no "(s)" plurals, errors next to the field they are about."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import get_lab
from labs.web.forms import LabForm
from tests.base import finished_run
from tests.test_translations import visible_text


def form_errors(slug: str, **changes) -> dict[str, list[str]]:
    lab = get_lab(slug)
    data = {p.name: p.default for p in lab.params} | changes
    data = {k: ", ".join(map(str, v)) if isinstance(v, list) else v for k, v in data.items()}
    data = {k: v for k, v in data.items() if v is not False}  # an unticked box sends nothing
    form = LabForm(lab, data)
    assert not form.is_valid()
    return form.errors


def test_a_fraction_where_a_count_belongs_asks_for_a_whole_number():
    assert "Use a whole number" in form_errors("drain", per_worker="1.5")["per_worker"][0]
    assert "Use a whole number" in form_errors("drain", arrivals="50, 1.5")["arrivals"][0]


def test_help_names_no_python_values_for_choices_and_switches():
    form = LabForm(get_lab("fanout-live"))
    assert "(one of" not in str(form["crash_point"].help_text)
    assert "(yes or no)" not in str(form["idempotent"].help_text)
    assert "after sending, before the ack" in str(form["crash_point"])


def test_the_sms_lab_writes_sms_in_capitals():
    form = LabForm(get_lab("at-least-once"))
    assert form["messages"].label == "SMS put on the queue"


def test_the_capstone_intro_names_no_parameter():
    assert "recover_at_s" not in get_lab("trapped-service").intro


def test_cross_field_errors_are_plain_words_next_to_the_field():
    errors = form_errors("trapped-service", trigger_start_s=60, trigger_end_s=50)
    assert errors["trigger_end_s"] == ["The trigger must end at or after it starts (second 60)."]
    errors = form_errors("job-cost", incident_start_s=40, incident_end_s=30)
    assert "incident_start_s" not in errors["incident_end_s"][0]
    assert errors["incident_end_s"][0].startswith("The expensive mix must end")


@pytest.mark.parametrize(
    ("opened", "expected"),
    [(1, "The shared breaker opened 1 time."), (3, "The shared breaker opened 3 times.")],
)
def test_counts_take_their_own_plural(opened, expected):
    lab = get_lab("breaker-live")
    result = {
        "summary": {
            **{f.name: 0 for f in lab.figures},
            "down_from_s": 0.5,
            "down_until_s": 2.0,
            "opened": opened,
            "first_ok_after_recovery_s": None,
            "state_at_end": "closed",
            "stopped_early": False,
        }
    }
    text = " ".join(lab.headline(result))
    assert expected in text and "(s)" not in text


@pytest.mark.django_db
def test_a_run_page_shows_values_as_typed_and_no_seed_without_randomness(client, people):
    run = finished_run(people.alice, lab="drain")
    client.force_login(people.alice)
    html = client.get(run.get_absolute_url()).content.decode()
    text = visible_text(html)
    assert "arrivals=50, 800, 800, 800, 200, 50, 50, 50, 50, 50 · per_worker=100" in text
    assert "[50" not in text
    assert ">Seed<" not in html
    storm = finished_run(people.alice, lab="retry-storm", seed=7)
    assert ">Seed<" in client.get(storm.get_absolute_url()).content.decode()


@pytest.mark.django_db
def test_a_switch_reads_true_or_false_not_python(client, people):
    run = finished_run(people.alice, lab="degradation")  # has a switch: refuse_too_old
    client.force_login(people.alice)
    text = visible_text(client.get(run.get_absolute_url()).content.decode())
    assert "=true" in text or "=false" in text
    assert "=True" not in text and "=False" not in text and "None" not in text
