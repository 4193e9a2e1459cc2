"""The lesson pages quote the scaling-signal, database-knee and pool-trap labs' figures, in
both languages: the figures are written out by hand, so check them against the labs."""

from __future__ import annotations

import pytest

from labs.text import num
from tests.lab_helpers import run
from tests.lessons.test_pages import page


def _quoted(html: str, texts: list[str]) -> list[str]:
    return [text for text in texts if f"<strong>{text}</strong>" not in html]


@pytest.mark.parametrize("language", ["en", "mr"])
def test_lesson_12_quotes_the_scaling_and_database_labs(client, db, language):
    signal = run("scaling-signal")["summary"]
    knee = run("db-knee")["summary"]
    texts = [
        num(signal["cpu_left_at_end"]),
        num(signal["per_worker_cleared_at_s"]),
        num(signal["depth_peak_backlog"]),
        num(signal["age_peak_backlog"]),
        num(knee["peak_db_per_s"]),
        num(knee["scaled_db_per_s_at_end"]),
        num(knee["capped_caught_up_at_s"]),
    ]
    assert _quoted(page(client, "lesson-12", language), texts) == []


@pytest.mark.parametrize("language", ["en", "mr"])
def test_assignment_05_quotes_the_pool_trap_lab(client, db, language):
    result = run("pool-trap")
    s, p = result["summary"], result["params"]
    texts = [
        num(p["pool_size"]),
        f"{num(s['plain_wasted_pct_after_slow'])}%",
        num(s["control_recovered_at_s"]),
    ]
    assert _quoted(page(client, "assignment-05", language), texts) == []
