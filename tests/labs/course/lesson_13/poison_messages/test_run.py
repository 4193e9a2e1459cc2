"""Lesson 13's poison messages and maxReceiveCount, as the `poison-messages` lab."""

from __future__ import annotations

from labs.charts.base import FAILED, OK
from tests.lab_helpers import headline, lab, refusal, run


def test_it_reproduces_the_lessons_table_for_1_3_and_5():
    assert run("poison-messages")["tables"]["compare"]["rows"] == [
        [1, 8, "pdf-3, pdf-7", 10],
        [3, 8, "pdf-3, pdf-7", 14],
        [5, 8, "pdf-3, pdf-7", 18],
    ]


def test_it_reports_the_charted_count_and_says_it_in_words():
    result = run("poison-messages")
    s = result["summary"]
    assert (s["made"], s["dlq"], s["receives"], s["receives_on_poison"]) == (8, 2, 14, 6)
    assert s["dlq_messages"] == "pdf-3, pdf-7"
    text = headline("poison-messages", result)
    assert "8 PDFs made, 2 moved to the DLQ (pdf-3, pdf-7), 14 receives in all" in text
    assert "8 made and 2 in the DLQ every time, with 10, 14 and 18 receives" in text


def test_it_reproduces_the_demos_single_poison_pdf():
    s = run("poison-messages", poison=[7])["summary"]
    assert (s["made"], s["dlq_messages"], s["receives"]) == (9, "pdf-7", 12)


def test_it_logs_every_receive_for_the_chart():
    result = run("poison-messages")
    series = result["series"]
    assert len(series["receive"]) == 14
    assert [
        o for m, o in zip(series["message"], series["outcome"], strict=True) if m == "pdf-7"
    ] == [
        "retry",
        "retry",
        "dlq",
    ]
    chart = lab("poison-messages").charts(result)[0]
    assert [t["marker"]["color"] for t in chart["data"][:2]] == [OK, FAILED]


def test_it_lists_each_count_once_even_if_given_twice():
    rows = run("poison-messages", other_max_receives=[3, 1])["tables"]["compare"]["rows"]
    assert [row[0] for row in rows] == [1, 3]


def test_it_refuses_a_poison_message_that_is_not_in_the_queue():
    assert refusal("poison-messages", poison=[3, 12]) == {
        "poison": ["There is no pdf-12: the 10 PDFs are pdf-0 to pdf-9."]
    }
