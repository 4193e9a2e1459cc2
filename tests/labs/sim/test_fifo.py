"""The standard and FIFO queue model: exact figures for the rules the real-Redis lab shows."""

from __future__ import annotations

import pytest

from labs.sim.fifo import measure, plan, poison_job, simulate


def figures(kind: str, **changes):
    log, accepted = simulate(kind, **changes)
    return measure(log, accepted, poison_job(changes.get("poison", True)))[0]


def test_the_plan_is_18_updates_and_3_copies_in_send_order():
    sends = plan(3, 6, 4, True, 0.05)
    assert len(sends) == 21
    assert [at for at, _ in sends] == sorted(at for at, _ in sends)
    assert [e.job for _, e in sends if e.copy] == ["student-2#3", "student-3#4", "student-1#6"]


def test_a_standard_queue_applies_out_of_order_and_twice_and_parks_after_3_receives():
    f = figures("standard")
    assert (f["out_of_order"], f["duplicates_done"], f["dlq"], f["poison_receives"]) == (6, 3, 1, 3)


def test_a_fifo_queue_keeps_order_drops_copies_and_blocks_the_group_3_timeouts():
    log, accepted = simulate("fifo")
    assert len(accepted) == 18  # the 3 copies were dropped by their deduplication id
    f = measure(log, accepted, poison_job(True))[0]
    assert (f["out_of_order"], f["duplicates_done"], f["dlq"], f["poison_receives"]) == (0, 0, 1, 3)
    assert f["blocked_s"] == pytest.approx(3 * 0.3)


def test_only_the_poison_group_waits():
    log, accepted = simulate("fifo")
    rows = measure(log, accepted, poison_job(True))[1]
    first, others = rows[0], rows[1:]
    assert first["group"] == "student-1"
    assert all(row["finished_s"] < 0.3 for row in others) and first["finished_s"] > 0.9


def test_maxreceivecount_5_holds_the_group_5_timeouts():
    assert figures("fifo", max_receives=5)["blocked_s"] == pytest.approx(5 * 0.3)


def test_a_copy_sent_after_the_window_is_a_new_message_even_to_fifo():
    f = figures("fifo", resend_after_s=1.5)
    assert (f["duplicates_done"], f["out_of_order"]) == (3, 0)


def test_without_poison_or_copies_both_queues_apply_everything_once():
    for kind in ("standard", "fifo"):
        f = figures(kind, poison=False, resend_every=0)
        assert (f["duplicates_done"], f["dlq"], f["blocked_s"]) == (0, 0, None)


@pytest.mark.parametrize(
    ("name", "value"),
    [("groups", 0), ("workers", 9), ("visibility_timeout_s", 0.05), ("max_receives", 0)],
)
def test_it_refuses_values_out_of_bounds(name, value):
    with pytest.raises(ValueError, match=name):
        simulate("fifo", **{name: value})
