"""The `queued-read` lab: the same reads answered directly and through a queue."""

from __future__ import annotations

from labs.text import num
from tests.lab_helpers import headline, lab, run


def test_at_the_defaults_the_queue_makes_the_user_wait_for_the_pages_next_ask():
    s = run("queued-read")["summary"]
    assert (s["direct_median_ms"], s["queued_median_ms"], s["added_median_ms"]) == (40, 510, 470)
    assert (s["times_longer"], s["queued_for_ask_ms"], s["direct_for_thread_ms"]) == (12.8, 455, 0)


def test_the_headline_says_the_two_waits_and_where_the_queues_goes():
    result = run("queued-read")
    text = headline("queued-read", result)
    assert (
        "At 40 reads a second the user waited 40 ms for a read answered directly and 510 ms "
        "for the same read through the queue (medians): 470 ms longer, 12.8 times the wait."
    ) in text
    assert "10 ms to put the job on it" in text
    assert "455 ms on average until the page asked again" in text
    assert "a queue can only add to the wait" in text


def test_workers_that_also_store_each_answer_fall_behind_before_the_threads_do():
    result = run("queued-read", reads_per_s=99)
    s, text = result["summary"], headline("queued-read", result)
    assert (s["capacity_per_s"], s["queue_capacity_per_s"]) == (100, 88.9)
    assert s["direct_median_ms"] == 40 and s["queued_median_ms"] > 1000
    assert f"can do only {num(88.9)}: the jobs wait in line on the queue" in text


def test_past_what_the_threads_can_do_both_ways_wait_and_the_queue_longer():
    result = run("queued-read", reads_per_s=120)
    s, text = result["summary"], headline("queued-read", result)
    assert s["queued_p99_ms"] > s["direct_p99_ms"] > 1000
    assert (
        f"99% of the reads were answered within {num(s['direct_p99_ms'])} ms directly and "
        f"{num(s['queued_p99_ms'])} ms through the queue"
    ) in text


def test_with_no_steps_of_its_own_the_queue_saves_nothing():
    text = headline("queued-read", run("queued-read", poll_ms=40, enqueue_ms=0, store_ms=0))
    assert "40 ms through the queue (medians): the queue saved nothing." in text


def test_the_charts_draw_both_waits_and_their_parts():
    result = run("queued-read")
    waits, parts = lab("queued-read").charts(result)
    assert [t["y"] for t in waits["data"]][2] == result["series"]["queued_mean_ms"]
    stacked = {t["name"]: t["y"] for t in parts["data"]}
    assert stacked["waiting for the page's next ask"] == [0, 455]
    assert sum(t["y"][1] for t in parts["data"]) == 510
    assert sum(t["y"][0] for t in parts["data"]) == 40
