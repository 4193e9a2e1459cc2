"""The deadline lab: 3 tries in 5 s instead of 8.7 s, and 25.3 s of work for nobody."""

from __future__ import annotations

from tests.lab_helpers import headline, refusal, run


def test_the_deadline_cuts_the_wait_and_shows_the_wasted_work():
    result = run("deadline")
    assert result["summary"] == {
        "tries": 3,
        "answered": False,
        "caller_waited_s": 5.0,
        "wasted_s": 25.3,
        "no_deadline_waited_s": 8.7,
    }
    text = headline("deadline", result)
    assert "3 tries in 5 s" in text and "8.7 s" in text and "25.3 s" in text


def test_a_short_callee_timeout_wastes_little():
    assert run("deadline", callee_timeout_s=1.5)["summary"]["wasted_s"] == 0.8


def test_it_refuses_a_negative_read_timeout():
    assert "read_s" in refusal("deadline", read_s=-1)
