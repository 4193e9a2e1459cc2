"""A parked message's last error: said in the reader's words, the raw text kept beside."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.utils import translation

from labs.experiments.error_words import KNOWN, error_words
from labs.experiments.faults import PoisonMessage, ServiceError
from labs.experiments.isolation import Throttled
from labs.web.presenters import shown_tables

DEVANAGARI = re.compile("[\u0900-\u097f]")

RAISED = {
    "poison": repr(PoisonMessage("pdf-3: cannot be processed")),
    "down": repr(ServiceError("service unavailable (down window)")),
    "flaky": repr(ServiceError("service failed (sms-4)")),
    "throttled": repr(Throttled("429 Too Many Requests")),
    "fifo": "cannot apply this update",
}


@pytest.mark.parametrize("raw", RAISED.values(), ids=RAISED.keys())
def test_it_says_each_error_the_experiments_raise_in_marathi(raw):
    english = error_words(raw)
    assert english != raw
    with translation.override("mr"):
        words = error_words(raw)
    assert DEVANAGARI.search(words), words
    assert english not in words


def test_it_tells_the_errors_apart():
    assert len({error_words(raw) for raw in RAISED.values()}) == len(RAISED)
    assert len({english for _pattern, english in KNOWN}) == len(KNOWN)


def test_it_shows_an_error_it_does_not_know_as_saved():
    raw = "KeyError('student')"
    with translation.override("mr"):
        assert error_words(raw) == raw


def test_the_parked_table_says_its_errors_in_the_readers_words():
    saved = {
        "tables": {
            "parked": {
                "title": "Parked",
                "columns": ["message", "receives", "last error"],
                "rows": [["pdf-3", 5, RAISED["poison"]], ["pdf-9", 5, "KeyError('x')"]],
            }
        }
    }
    with translation.override("mr"):
        (table,) = shown_tables(saved)
    poison, unknown = table["rows"]
    assert poison[:2] == ["pdf-3", 5] and DEVANAGARI.search(poison[2])
    assert unknown == ["pdf-9", 5, "KeyError('x')"]


def test_the_result_page_of_poison_live_says_its_errors_in_marathi(client, people):
    from tests.base import stored_experiment_run
    from tests.test_translations import visible_text

    run = stored_experiment_run(people.alice, "poison-live")
    client.force_login(people.alice)
    with translation.override("en"):
        said_english = error_words(RAISED["poison"])
    english = visible_text(client.get(run.get_absolute_url()).content.decode())
    assert said_english in english  # guard: the table shows the words
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    marathi = visible_text(client.get(run.get_absolute_url()).content.decode())
    assert "cannot be processed" not in marathi
    assert said_english not in marathi
