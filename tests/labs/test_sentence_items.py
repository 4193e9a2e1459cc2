"""Issue 36, items 1-3 and 7: sentences that said something the run did not show.

Each test runs the lab where the review found the sentence and reads it back against the
run's own figures (tests/labs/sentence_checks.py); the property test over every lab is
tests/labs/test_sentences.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from labs.course.assignment_05.trapped_live import run as trapped_live
from tests.lab_helpers import lab, run
from tests.labs.sentence_checks import problems

pytestmark = pytest.mark.nodb


def _check(slug: str, result: dict[str, Any], lines: list[str] | None = None) -> None:
    sentences = lab(slug).headline(result) if lines is None else lines
    wrong = problems(slug, result, sentences)
    assert not wrong, f"{slug} {result['params']}:\n" + "\n".join(wrong)


def test_item1_trapped_service_with_no_control_says_the_queue_it_held():
    # The controls never go on (recover_at_s = horizon_s): no snapshot, no estimate.
    _check("trapped-service", run("trapped-service", recover_at_s=300))


def test_item1_trapped_live_first_run_says_the_queue_it_held():
    """The live lab's headline on its simulated twin's result, with the live figures added:
    the reproduce-the-trap run (no control switched on)."""
    twin = run("trapped-service", recover_at_s=150, horizon_s=150)
    s = twin["summary"]
    live = {
        **twin,
        "lab": "trapped-live",
        "params": {**twin["params"], "time_scale": 0.4},
        "summary": {
            **s,
            "wall_s": 60.0,
            "model_recovered": s["recovered"],
            "model_peak_backlog": s["peak_backlog"],
            "model_amplification": s["amplification"],
        },
        "tables": {**twin["tables"], "timeline_data": [], "effective_params": twin["params"]},
    }
    _check("trapped-live", live, trapped_live.headline(live))


def test_item2_phase_map_ten_seeds_says_what_a_spike_at_capacity_adds():
    _check("phase-map", run("phase-map", ten_seeds=True))


def test_item3_cascade_littles_law_counts_the_retries():
    _check("cascade", run("cascade", use_timeout=True))


def test_item3_cascade_littles_law_counts_the_retries_with_a_big_pool():
    _check("cascade", run("cascade", threads=2000))


def test_item7_trapped_service_says_nothing_empty_when_the_trigger_changes_nothing():
    lines = lab("trapped-service").headline(run("trapped-service", spike_rps=80))
    assert not any("; ." in line or line.endswith(" .") for line in lines), lines


def test_item7_a_trigger_that_ends_at_the_horizon_is_not_called_a_trap():
    _check(
        "trapped-service",
        run(
            "trapped-service",
            horizon_s=600,
            spike_rps=80,
            trigger_start_s=600,
            trigger_end_s=600,
            recover_at_s=600,
            max_attempts=1,
            client_timeout_ms=60000,
            queue_limit=200000,
            payment_share=0,
        ),
    )
