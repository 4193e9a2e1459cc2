"""The 20 seeds' table as a student reads it (second language review §3, fix 3): every
figure with its unit, shares in percent, and a count's median one of the seeds' own."""

from __future__ import annotations

from django.utils import translation

from labs.catalogue.spread_words import seed_table
from labs.interface.figures import Figure
from labs.text import said

FIGURES = (
    Figure("requests", "Answered", "int", "requests"),
    Figure("calls", "Calls that failed", "int", "calls"),
    Figure("p99_ms", "p99 wait", "float", "ms"),
    Figure("hit_share", "Share of hits", "float"),
    Figure("recovered_at_s", "Second the service answered 95% again", "int", "s"),
)


def results(*summaries: dict) -> list[dict]:
    return [{"summary": s} for s in summaries]


def test_each_row_says_its_unit_and_a_share_in_percent():
    table = seed_table(
        results(
            {
                "requests": 27_673,
                "p99_ms": 988.4,
                "hit_share": 0.82,
                "recovered_at_s": 40,
                "calls": 1,
            },
            {
                "requests": 27_674,
                "p99_ms": 990.0,
                "hit_share": 0.9,
                "recovered_at_s": 41,
                "calls": 2,
            },
        ),
        FIGURES,
    )
    rows = {str(said(row[0])): row[1:] for row in table["rows"]}
    assert rows["Answered (requests)"] == ["27,673", "27,673", "27,673", "27,674"]
    assert "Calls that failed" in rows  # its unit said already: not "(calls)" again
    assert rows["p99 wait (ms)"] == ["988", "988", "989", "990"]
    assert rows["Share of hits"] == ["82 %", "82 %", "86 %", "90 %"]
    # A label with a % sign of its own keeps it.
    assert "Second the service answered 95% again (s)" in rows


def test_the_row_headings_are_said_in_marathi():
    fetch = Figure("fetch_ms", "Time for one fetch", "float", "ms")
    table = seed_table(results({"fetch_ms": 1.5}, {"fetch_ms": 2.5}), (fetch,))
    with translation.override("mr"):
        heading = str(said(table["rows"][0][0]))
    assert heading == "एका fetch ला लागणारा वेळ (ms)", heading
