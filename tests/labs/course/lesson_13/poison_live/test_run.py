"""Lesson 13's poison messages on the real queue, as the `poison-live` lab."""

from __future__ import annotations

import pytest

from labs.experiments.dlq import open_kept
from labs.experiments.namespace import Namespace, connect, kept_id, run_key_for
from labs.runs.retained_queue import clean_run_keys
from tests.lab_helpers import headline, lab, refusal
from tests.live_helpers import KeyedProgress

pytestmark = pytest.mark.redis
RUN_PK = "7d0c2b1e-0000-4000-8000-00000000beef"


@pytest.fixture
def r():
    client = connect(name="qlab-tests")
    yield client
    clean_run_keys(RUN_PK)
    client.close()


def test_it_makes_8_parks_2_and_receives_10_14_18_and_keeps_the_dlq(r):
    from labs.runs.execution import run_lab

    chosen = lab("poison-live")
    progress = KeyedProgress(RUN_PK)
    result = run_lab(chosen, chosen.defaults(), 0, progress)
    s = result["summary"]
    assert [(s[f"made_mr{n}"], s[f"dlq_mr{n}"], s[f"receives_mr{n}"]) for n in (1, 3, 5)] == [
        (8, 2, 10),
        (8, 2, 14),
        (8, 2, 18),
    ]
    assert s["matches_lesson"] is True and s["keys_left"] == 0
    assert result["tables"]["counts"]["rows"][2] == [5, 8, 2, 18, "8 / 2 / 18"]
    assert "maxReceiveCount 3: 8 made, 2 in the DLQ, 14 receives." in headline(
        "poison-live", result
    )
    # The run's own keys are gone; the last count's DLQ is kept for the queue panel.
    assert Namespace(run_key_for(RUN_PK)).keys(r) == []
    kept = open_kept(r, kept_id(run_key_for(RUN_PK)))
    assert [(d.msg_id, d.receives) for d in kept.dead_letters()] == [("pdf-3", 5), ("pdf-7", 5)]
    assert all("cannot be processed" in d.last_error for d in kept.dead_letters())
    # The page saw it live: readings of each count's queue, DLQ depth included.
    assert {s["max_receives"] for s in progress.samples} == {1, 3, 5}
    assert max(s["dlq_depth"] for s in progress.samples) == 2


def test_it_names_a_poison_pdf_that_does_not_exist():
    assert "There is no pdf-12" in refusal("poison-live", poison=[3, 12])["poison"][0]
    assert "Name each poison PDF once." in refusal("poison-live", poison=[3, 3])["poison"]
