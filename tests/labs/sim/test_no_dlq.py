"""The no-DLQ queue model: exact readings for cases small enough to play by hand."""

from __future__ import annotations

import pytest

from labs.sim.no_dlq import play

# One worker, one good message a second (0.5 s each), one poison message at second 2 that
# fails after 2 s and is visible again 3 s after each receive; read for 8 seconds.
SMALL = {
    "workers": 1,
    "work_s": 0.5,
    "arrive_per_s": 1,
    "poison": 1,
    "poison_at_s": 2,
    "fail_after_s": 2.0,
    "visibility_s": 3.0,
    "duration_s": 8,
}


def test_with_no_dlq_the_poison_message_comes_back_after_every_visibility_timeout():
    # g0, g1, g2 (sent before the poison) at 0, 1, 2; the poison received at 2.5 (fails at
    # 4.5, visible at 5.5); g3 at 4.5, g4 at 5.0; the poison again at 5.5, ahead of g5
    # (it is older), failing at 7.5; g5 at 7.5, done on the last stroke, 8.0.
    run = play(**SMALL, max_receives=0)
    assert run.second == [1, 2, 3, 4, 5, 6, 7, 8]
    assert run.good_done == [1, 2, 3, 3, 4, 5, 5, 6]
    assert run.backlog == [0, 0, 0, 1, 1, 1, 2, 2]
    assert run.oldest_age_s == [0, 0, 0, 1, 1, 1, 2, 2]
    assert run.poison_receives == [0, 0, 1, 1, 1, 2, 2, 2]
    assert run.poison_worker_s == [0, 0, 0.5, 1, 0.5, 0.5, 1, 0.5]
    assert run.in_dlq == [0] * 8


def test_max_receives_1_parks_it_when_it_would_be_visible_again():
    # Its one receive fails at 4.5; at 5.5, when it would be visible, it moves to the DLQ
    # and the worker takes g5 (done 6.0), g6 at 6, g7 at 7: the backlog is empty again.
    run = play(**SMALL, max_receives=1)
    assert run.in_dlq == [0, 0, 0, 0, 0, 1, 1, 1]
    assert run.poison_receives[-1] == 1
    assert run.good_done == [1, 2, 3, 3, 4, 6, 7, 8]
    assert run.backlog == [0, 0, 0, 1, 1, 0, 0, 0]


def test_a_fifo_group_waits_behind_the_poison_message_for_ever():
    # One group: g3 may not pass the poison message, which is in flight from 2.5 to 4.5 and
    # invisible until 5.5, then received again. Nothing after it is ever done.
    run = play(**SMALL, max_receives=0, fifo=True)
    assert run.good_done == [1, 2, 3, 3, 3, 3, 3, 3]
    assert run.backlog == [0, 0, 0, 1, 2, 3, 4, 5]
    assert run.oldest_age_s[-1] == 8 - 3  # g3, sent at second 3
    assert run.poison_receives[-1] == 2


def test_a_fifo_group_moves_again_once_the_poison_is_parked():
    # Parked at 5.5; then g3 to g7 one after another, 0.5 s each: done at 6.0, 6.5, 7.0,
    # 7.5 and 8.0.
    run = play(**SMALL, max_receives=1, fifo=True)
    assert run.good_done == [1, 2, 3, 3, 3, 4, 6, 8]
    assert run.backlog[-1] == 0
    assert run.in_dlq[-1] == 1


def test_one_fifo_group_does_one_message_at_a_time_whatever_the_workers():
    # 4 workers, 6 a second, 0.5 s each: a standard queue keeps up, one group does 2 a second.
    standard = play(poison=0, duration_s=10)
    fifo = play(poison=0, duration_s=10, fifo=True)
    assert standard.good_done[-1] == 60 and standard.backlog[-1] == 0
    assert fifo.good_done[-1] == 20 and fifo.backlog[-1] == 40


def test_the_lessons_defaults_with_no_dlq_starve_the_good_messages():
    # 20 poison messages × 10 s every 30 s is 6.7 worker-seconds a second against 4 workers:
    # from second 31 every worker holds a poison message (they are older than any good one)
    # and only the 186 good messages sent in seconds 0 to 30 are ever done.
    run = play(duration_s=600)
    assert run.good_done[-1] == 6 * 31
    assert run.backlog[-1] == 6 * 600 - 186 == max(run.backlog)
    # Two workers start at 30.5, two at 31: 57 receives each before second 600.
    assert run.poison_receives[-1] == 4 * 57
    assert sum(run.poison_worker_s) == pytest.approx(2 * 569.5 + 2 * 569)
    assert run.poison_worker_s[100] == 4  # second 101: all four workers on poison
    assert run.oldest_age_s[-1] == 600 - 31
    assert run.in_dlq[-1] == 0


def test_max_receives_3_parks_the_poison_and_the_backlog_drains():
    # 60 receives × 10 s is 600 worker-seconds, 150 s of all four workers: the last poison
    # message reaches the DLQ at second 222 and the backlog is empty again by second 630.
    run = play(max_receives=3, duration_s=900)
    assert run.poison_receives[-1] == 20 * 3
    assert sum(run.poison_worker_s) == pytest.approx(600)
    assert run.in_dlq.index(20) + 1 == 222
    assert run.backlog[-1] == 0
    after_peak = zip(run.second[300:], run.backlog[300:], strict=True)
    assert next(second for second, waiting in after_peak if waiting == 0) == 630


def test_no_arrivals_and_no_poison_is_an_empty_queue():
    run = play(arrive_per_s=0, poison=0, duration_s=3)
    assert run.backlog == run.good_done == run.oldest_age_s == [0, 0, 0]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workers": 0}, "workers must be between 1 and 20"),
        ({"work_s": 20.0}, "work_s must be between 0.1 and 10"),
        ({"arrive_per_s": 51}, "arrive_per_s must be between 0 and 50"),
        ({"poison": -1}, "poison must be between 0 and 100"),
        ({"max_receives": 21}, "max_receives must be between 0 and 20"),
        ({"duration_s": 0}, "duration_s must be between 1 and 1800"),
        ({"visibility_s": 0.5}, "visibility_s must be between 1 and 600"),
        ({"poison_at_s": 600, "duration_s": 600}, "poison_at_s must be below duration_s"),
        ({"fail_after_s": 40.0}, "fail_after_s must be at most visibility_s"),
        ({"work_s": 5.0, "visibility_s": 2.0, "fail_after_s": 1.0}, "work_s must be at most"),
    ],
)
def test_it_refuses_arguments_out_of_bounds_naming_them(changes, message):
    with pytest.raises(ValueError, match=message):
        play(**changes)
