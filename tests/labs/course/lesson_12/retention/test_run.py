"""The retention lab: the lesson's 4 and 14 days, a long outage, and a DLQ as short as its queue."""

from __future__ import annotations

from labs.catalogue.entries import get_lab
from tests.lab_helpers import headline, run


def test_its_defaults_are_the_lessons_4_and_14_days():
    defaults = get_lab("retention").defaults()
    assert (defaults["source_retention_h"], defaults["dlq_retention_h"]) == (96, 336)
    s = run("retention")["summary"]
    assert (s["expired"], s["parked"], s["parked_unseen"], s["least_left_in_dlq_h"]) == (
        0,
        240,
        0,
        264,
    )
    assert s["dlq_keeps_longer"] is True


def test_a_dlq_as_short_as_its_queue_says_so():
    result = run("retention", dlq_retention_h=96)
    assert result["summary"]["parked_unseen"] == 22
    assert "give it a longer retention" in headline("retention", result)


def test_five_days_without_workers_deletes_the_oldest_messages():
    result = run("retention", outage_h=120)
    assert result["summary"]["expired"] == 2_500
    assert "deleted 2,500 messages" in headline("retention", result)


def test_in_production_writes_the_periods_in_seconds():
    lab = get_lab("retention")
    assert lab is not None and lab.in_production is not None
    text = lab.in_production(lab.defaults())[0].text
    assert '"MessageRetentionPeriod": "345600"' in text
    assert '"MessageRetentionPeriod": "1209600"' in text
    fifo = lab.in_production(lab.defaults() | {"queue_type": "fifo"})[0].text
    assert '"FifoQueue": "true"' in fifo and "jobs.fifo" in fifo
