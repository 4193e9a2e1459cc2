"""Answer fast (Lesson 07): texts sent inside the request, or a job queued and sent later."""

from __future__ import annotations

import pytest

from labs.sim.answer_fast import FanoutSetup, play_fanout


def test_a_queued_post_answers_in_fifty_ms_whatever_the_provider_does():
    # Lesson 07: a post that only stores its row and enqueues is answered within ~50 ms.
    for trouble in ("none", "slow", "down"):
        run = play_fanout(FanoutSetup(trouble=trouble), "queue")
        assert run.failed == 0
        assert run.percentile_ms(99) == 50


def test_inside_the_request_the_teacher_waits_for_every_batch():
    # 2,000 texts in batches of 500: four provider calls of 250 ms, after a 40 ms save.
    run = play_fanout(FanoutSetup(trouble="none"), "request")
    assert run.percentile_ms(50) == 4 * 250 + 40
    assert run.failed == 0


def test_a_provider_down_for_ten_minutes_fails_posts_only_inside_the_request():
    # Lesson 07: the provider is down 10 minutes; queued, posting keeps working and the
    # texts go out after it is back; inside the request every post in the outage fails.
    setup = FanoutSetup(duration_s=900, trouble="down", trouble_from_s=20, trouble_until_s=620)
    inside, queued = play_fanout(setup, "request"), play_fanout(setup, "queue")
    assert inside.failed == 600  # one post a second for 600 s
    assert queued.failed == 0
    # Every queued notice but the one still sending at the end reached all its parents.
    assert queued.notices_complete == setup.posts - 1
    assert inside.notices_complete == setup.posts - 600 - 1
    assert queued.oldest_wait_s > 60  # the jobs waited out the outage in the queue


def test_a_slow_provider_holds_every_web_thread_and_the_gateway_gives_up():
    run = play_fanout(FanoutSetup(trouble="slow"), "request")
    assert max(row.busy for row in run.seconds) == 8  # every web thread held
    assert run.percentile_ms(99) == 30_000  # the gateway's 504 after 30 s
    assert run.failed > 0
    assert play_fanout(FanoutSetup(trouble="slow"), "queue").failed == 0


def test_it_repeats_exactly():
    a = play_fanout(FanoutSetup(trouble="slow"), "queue")
    b = play_fanout(FanoutSetup(trouble="slow"), "queue")
    assert a.answers == b.answers and a.seconds == b.seconds


@pytest.mark.parametrize(
    ("field", "value"),
    [("posts_per_s", 0), ("web_threads", 0), ("trouble", "flaky"), ("batch_size", 0)],
)
def test_it_refuses_a_bad_setting_by_name(field, value):
    with pytest.raises(ValueError, match=field):
        FanoutSetup(**{field: value})


def test_it_refuses_an_unknown_mode():
    with pytest.raises(ValueError, match="mode"):
        play_fanout(FanoutSetup(), "later")  # type: ignore[arg-type]
