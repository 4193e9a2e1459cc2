"""Lesson 13's poison figures on the real queue: 8 made, 2 parked, 10 / 14 / 18 receives."""

from __future__ import annotations

import pytest

from labs.experiments.context import ExperimentContext
from labs.experiments.poison import poison
from labs.experiments.queue import RedisQueue
from tests.labs.experiments.helpers import assert_lab_result

pytestmark = pytest.mark.redis


def test_it_reproduces_the_lessons_poison_figures_exactly(r):
    # The timeout must outlast a good job even on a busy machine, or the counts change.
    result = poison(visibility_timeout_s=0.3, redrive_rate_per_s=20)
    summary = result["summary"]
    for mr, receives in ((1, 10), (3, 14), (5, 18)):
        assert summary[f"made_mr{mr}"] == 8
        assert summary[f"dlq_mr{mr}"] == 2
        assert summary[f"receives_mr{mr}"] == receives
    for row in result["tables"]["runs"]:
        assert row["dlq"] == ["pdf-3", "pdf-7"]
        assert row["pdf_made"] == 8
        assert row["unexpected_redeliveries"] == 0
        for parked in row["parked"]:
            assert parked["receives"] == row["max_receives"]
            assert "cannot be processed" in parked["last_error"]
    # After the fix, the redrive brings both back and they are made.
    assert (summary["redriven"], summary["made_after_redrive"]) == (2, 10)
    assert_lab_result(r, result)


def test_it_owns_the_namespace_given_and_keeps_the_last_dlq_outside_it(r, ns):
    own, keep = ns.child("run"), ns.child("kept")
    context = ExperimentContext(namespace=own, keep_dlq=keep)
    result = poison(max_receives=[1, 3], redrive_rate_per_s=0, context=context)
    assert result["summary"]["run_id"] == own.run_id
    assert own.keys(r) == []
    kept = RedisQueue(r, keep, create=False)
    assert [(d.msg_id, d.receives) for d in kept.dead_letters()] == [("pdf-3", 3), ("pdf-7", 3)]


def test_a_count_of_one_parks_a_good_message_after_a_single_blip_too(r):
    # The lesson's warning, with one more message that fails once: maxReceiveCount 1 parks it.
    result = poison(messages=4, poison_ids=[1], max_receives=[1], visibility_timeout_s=0.1)
    assert (result["summary"]["made_mr1"], result["summary"]["dlq_mr1"]) == (3, 1)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"messages": 0}, "messages"),
        ({"messages": 1001}, "messages"),
        ({"poison_ids": [10]}, "poison_ids"),
        ({"poison_ids": [3, 3]}, "distinct"),
        ({"max_receives": [0]}, "max_receives"),
        ({"max_receives": [1, 2, 3, 4, 5, 6]}, "len\\(max_receives\\)"),
        ({"workers": 33}, "workers"),
        ({"visibility_timeout_s": 6}, "visibility_timeout_s"),
    ],
)
def test_it_refuses_bad_params_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        poison(**kwargs)
