"""Assignment 05's page holds its own story to its own rule (issue 36, item 7)."""

from __future__ import annotations

import pytest

from labs.text import num
from tests.lab_helpers import lab, run
from tests.lessons.test_pages import LANGUAGES, page


@pytest.mark.parametrize("language", LANGUAGES)
def test_what_a_reader_might_expect_follows_backlog_over_net_capacity(client, db, language):
    """After the spike the page says when the queue 'should' clear: by the page's own rule
    (backlog ÷ net capacity), from the lab's defaults, not a guess of a minute."""
    params = lab("trapped-service").defaults()
    summary = run("trapped-service")["summary"]
    backlog = params["queue_limit"]
    net = summary["capacity_rps"] - params["base_rps"]
    expected_s = backlog / net
    html = page(client, "assignment-05", language)
    assert "within a minute" not in html and "मिनिटाभरात" not in html
    for text in (
        num(backlog),
        f"{num(round(net))}",
        f"{num(round(expected_s))} s",
        num(round(params["trigger_end_s"] + expected_s)),
    ):
        assert f"<strong>{text}</strong>" in html, text
