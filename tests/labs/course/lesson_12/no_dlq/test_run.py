"""The `no-dlq` lab: poison messages with no DLQ, with maxReceiveCount 3, and in one FIFO group."""

from __future__ import annotations

from labs.text import num
from tests.lab_helpers import headline, lab, refusal, run


def test_with_no_dlq_the_backlog_grows_for_the_whole_run():
    result = run("no-dlq")
    s, series = result["summary"], result["series"]
    # 6 a second for 900 s; only the 186 sent in seconds 0 to 30 were ever done.
    assert (s["good_done"], s["final_backlog"], s["peak_backlog"]) == (186, 5214, 5214)
    assert series["backlog"][100:] == sorted(series["backlog"][100:])
    assert (s["in_dlq"], s["poison_gone_at_s"], s["drained"]) == (0, None, False)
    assert s["last_good_done_s"] == 31
    assert s["oldest_age_end_s"] == 900 - 31
    assert s["poison_worker_share"] == round((2 * 869.5 + 2 * 869) / (4 * 870), 4)


def test_max_receives_3_parks_the_poison_and_the_backlog_drains():
    s = run("no-dlq", max_receives=3)["summary"]
    assert (s["poison_receives"], s["in_dlq"], s["poison_gone_at_s"]) == (60, 20, 222)
    assert (s["peak_backlog"], s["final_backlog"], s["drained"]) == (858, 0, True)
    assert s["poison_worker_share"] == round(600 / (4 * 870), 4)


def test_a_fifo_group_is_blocked_behind_the_first_poison_message():
    s = run("no-dlq", fifo=True, arrive_per_s=1)["summary"]
    # One message at a time keeps up with 1 a second until the poison reaches the head.
    assert (s["good_done"], s["last_good_done_s"], s["final_backlog"]) == (31, 31, 869)
    # Only the head is ever received: every 30 s from second 30, 29 times in 870 s.
    assert s["poison_receives"] == 29
    assert s["poison_worker_share"] < 0.1  # blocked, with the workers almost idle


def test_the_headline_says_the_summarys_figures():
    for changes in ({}, {"max_receives": 3}, {"fifo": True, "arrive_per_s": 1}):
        result = run("no-dlq", **changes)
        s, text = result["summary"], headline("no-dlq", result)
        assert f"received {num(s['poison_receives'])} times" in text
        assert f"{num(round(100 * s['poison_worker_share'], 1))}% of the workers' time" in text
        assert f"peaked at {num(s['peak_backlog'])}" in text
        if s["drained"]:
            assert "was empty at the end" in text
        else:
            assert f"at the end {num(s['final_backlog'])} were waiting" in text
            assert f"the oldest for {num(s['oldest_age_end_s'])} s" in text
            assert f"No good message was done after second {s['last_good_done_s']}." in text
    assert "all were in the DLQ by second 222" in headline("no-dlq", run("no-dlq", max_receives=3))


def test_the_headline_claims_nothing_of_a_queue_that_kept_up():
    text = headline("no-dlq", run("no-dlq", poison=1))
    assert "the poison message was received 29 times" in text
    assert "no good message was waiting" in text
    assert "No good message was done after" not in text


def test_the_charts_draw_the_backlog_and_the_poisons_cost():
    result = run("no-dlq", max_receives=3)
    backlog, poison = lab("no-dlq").charts(result)
    assert [t["y"] for t in backlog["data"]] == [
        result["series"][k] for k in ("backlog", "good_done", "oldest_age_s")
    ]
    assert [t["y"] for t in poison["data"]] == [
        result["series"][k] for k in ("poison_receives", "in_dlq", "poison_worker_s")
    ]
    assert poison["layout"]["yaxis2"]["range"] == [0, 5]  # 4 workers and headroom


def test_it_refuses_fields_that_contradict_each_other():
    assert refusal("no-dlq", poison_at_s=900) == {
        "poison_at_s": ["The poison messages must arrive within the run: before second 900."]
    }
    assert list(refusal("no-dlq", fail_after_s=40)) == ["fail_after_s"]
    assert list(refusal("no-dlq", work_s=5, visibility_s=2, fail_after_s=1)) == ["work_s"]
