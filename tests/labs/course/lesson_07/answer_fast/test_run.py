"""The answer-fast lab: the switch, both ways side by side, and its limits."""

from __future__ import annotations

from labs.catalogue.entries import get_lab
from labs.course.lesson_07.answer_fast import run as answer_fast
from labs.interface.progress import SilentProgress


def _run(**changes):
    lab = get_lab("answer-fast")
    params = {**lab.defaults(), **changes}
    return {**lab.run(params, 1, SilentProgress()), "params": params}


def test_the_switch_picks_which_way_the_headline_figures_follow():
    inside, queued = _run(send="request"), _run(send="queue")
    assert inside["summary"]["failed_posts"] == inside["summary"]["request_failed_posts"] == 60
    assert queued["summary"]["failed_posts"] == queued["summary"]["queue_failed_posts"] == 0
    assert queued["summary"]["p99_ms"] == 50  # save + enqueue, whatever the provider does
    # Both ways are played either way, so the page can show them side by side.
    assert inside["series"] == queued["series"]


def test_its_headline_says_both_ways():
    lines = answer_fast.headline(_run())
    assert any("60 of 120" in line for line in lines)
    assert any("50 ms" in line for line in lines)


def test_a_slow_provider_fills_the_web_threads_and_says_so():
    result = _run(trouble="slow")
    assert result["summary"]["busiest_web_threads"] == 8
    assert any("8" in line and "web" in line for line in answer_fast.headline(result))


def test_it_refuses_a_run_with_too_many_posts_and_trouble_outside_the_run():
    params = {**get_lab("answer-fast").defaults(), "posts_per_s": 20, "duration_s": 1_800}
    assert "posts_per_s" in answer_fast.check(params)
    params = {**get_lab("answer-fast").defaults(), "down_from_s": 500}
    assert "down_from_s" in answer_fast.check(params)
    # With nothing wrong with the provider, its trouble window does not matter.
    assert answer_fast.check({**params, "trouble": "none"}) == {}
