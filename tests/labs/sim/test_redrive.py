"""Lesson 13's poison messages and DLQ, reproduced by `labs.sim.redrive`."""

from __future__ import annotations

import pytest

from labs.sim import receive_log, redrive

PDFS = [f"pdf-{number}" for number in range(10)]


@pytest.mark.parametrize(("max_receives", "receives"), [(1, 10), (3, 14), (5, 18)])
def test_it_reproduces_the_lessons_max_receive_table(max_receives, receives):
    done, dlq, total = redrive(PDFS, {"pdf-3", "pdf-7"}, max_receives=max_receives)
    assert (len(done), dlq, total) == (8, ["pdf-3", "pdf-7"], receives)


def test_it_reproduces_the_demos_single_poison_pdf():
    done, dlq, total = redrive(PDFS, {"pdf-7"}, max_receives=3)
    assert (len(done), dlq, total) == (9, ["pdf-7"], 12)
    assert "pdf-7" not in done


def test_it_defaults_to_three_receives():
    assert redrive(PDFS, {"pdf-7"}) == redrive(PDFS, {"pdf-7"}, max_receives=3)


def test_it_sends_a_failed_message_to_the_back_of_the_queue():
    log = receive_log(["a", "bad", "c"], {"bad"}, max_receives=3)
    assert [(r.number, r.message, r.receive_count, r.outcome) for r in log] == [
        (1, "a", 1, "done"),
        (2, "bad", 1, "retry"),
        (3, "c", 1, "done"),
        (4, "bad", 2, "retry"),
        (5, "bad", 3, "dlq"),
    ]


def test_it_parks_poison_in_queue_order_whatever_order_it_is_named_in():
    assert redrive(PDFS, ["pdf-7", "pdf-3"])[1] == ["pdf-3", "pdf-7"]


def test_it_parks_poison_on_the_first_receive_with_a_count_of_one():
    log = receive_log(PDFS, {"pdf-3"}, max_receives=1)
    assert [r.outcome for r in log if r.message == "pdf-3"] == ["dlq"]


def test_it_makes_everything_when_nothing_is_poison():
    assert redrive(PDFS, set()) == (PDFS, [], 10)


def test_it_has_nothing_to_do_for_an_empty_queue():
    assert redrive([], set()) == ([], [], 0)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: redrive(PDFS, set(), max_receives=0), "max_receives must be >= 1"),
        (lambda: redrive(["a", "a"], set()), "messages must be distinct"),
        (lambda: redrive(PDFS, {"pdf-99"}), r"poison must name messages.*'pdf-99'"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()
