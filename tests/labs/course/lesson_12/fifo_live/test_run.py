"""Lesson 12's standard and FIFO queues on the real Redis, as the `fifo-live` lab."""

from __future__ import annotations

import pytest

from labs.catalogue.entries import get_lab
from labs.experiments.fifo import plan
from tests.lab_helpers import default_result, headline, run

pytestmark = pytest.mark.redis


def test_the_plan_resends_3_of_18_updates_and_never_the_poison_one():
    sends = [entry for _, entry in plan(3, 6, 4, True)]
    copies = [e.job for e in sends if e.copy]
    assert len(sends) == 21 and copies == ["student-2#3", "student-3#4", "student-1#6"]


def test_fifo_keeps_order_and_drops_copies_where_standard_does_neither():
    s = default_result("fifo-live")["summary"]
    assert (s["updates"], s["copies_sent"]) == (18, 3)
    assert (s["fifo_out_of_order"], s["fifo_duplicates_done"], s["fifo_deduplicated"]) == (0, 0, 3)
    assert s["standard_duplicates_done"] == 3
    # Student 1's four later updates and one copy go past the poison one.
    assert s["standard_out_of_order"] >= 5
    assert (s["standard_dlq"], s["fifo_dlq"], s["poison_receives"]) == (1, 1, 3)
    # The counts that do not depend on timing are the model's exactly.
    assert s["matches_model"] is True
    assert s["model_fifo_blocked_s"] == pytest.approx(0.9)


def test_the_poison_update_holds_its_own_student_for_max_receives_visibility_timeouts():
    result = default_result("fifo-live")
    s, p = result["summary"], result["params"]
    # Its next update cannot be handed out before three timeouts of 0.3 s have run out.
    assert s["fifo_blocked_s"] >= p["max_receives"] * p["visibility_timeout_s"] - 0.05
    assert s["fifo_other_groups_finished_s"] < s["fifo_poison_group_finished_s"]
    assert "went to the DLQ after 3 receives" in headline("fifo-live", result)


def test_a_copy_sent_after_the_window_is_applied_twice_even_on_fifo():
    result = run("fifo-live", resend_after_s=1.5, poison=False)
    s = result["summary"]
    # Without a poison update student 1's second is resent too: 4 copies.
    assert s["copies_sent"] == 4
    assert (s["fifo_deduplicated"], s["fifo_duplicates_done"], s["fifo_out_of_order"]) == (0, 4, 0)
    assert "the worker must still be idempotent" in headline("fifo-live", result)


def test_in_production_is_a_fifo_queue_with_groups_and_dedup_ids():
    lab = get_lab("fifo-live")
    assert lab is not None and lab.in_production is not None
    text = lab.in_production(lab.defaults() | {"max_receives": 4})[0].text
    for field in (
        '"FifoQueue": "true"',
        "MessageGroupId=",
        "MessageDeduplicationId=",
        "updates-dlq.fifo",
    ):
        assert field in text
    assert '\\"maxReceiveCount\\": 4' in text or '"maxReceiveCount": 4' in text


def test_the_legend_names_the_diamond_a_second_copy_is_drawn_with():
    import json

    from labs.course.lesson_12.fifo_live.charts import applied
    from tests.base import EXPERIMENT_RESULTS

    result = json.loads((EXPERIMENT_RESULTS / "fifo-live.json").read_text())
    rows = result["tables"]["standard_done"]
    assert any(r["copy"] for r in rows)
    traces = applied(rows, "standard")["data"]
    drawn = [t for t in traces if "diamond" in t["marker"]["symbol"] and any(t["x"])]
    named = [t for t in traces if t["marker"]["symbol"] == "diamond"]
    assert drawn and [t["name"] for t in named] == ["a second copy of an update"]
    no_copies = applied([dict(r, copy=False) for r in rows], "standard")["data"]
    assert all(t["marker"]["symbol"] != "diamond" for t in no_copies)
