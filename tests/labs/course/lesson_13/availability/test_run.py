"""Lesson 13's availability in parallel and in series, as the `availability` lab."""

from __future__ import annotations

import pytest

from labs.course.lesson_13.availability.run import pct
from labs.web.presenters import shown_tables as shown
from tests.lab_helpers import headline, lab, refusal, run


@pytest.mark.parametrize(
    "line",
    [
        "One copy at 99.0% → 2 copies 99.9900% · 3 copies 99.999900%.",
        "One copy at 99.5% → 2 copies 99.9975% · 3 copies 99.999988%.",
        "Each link at 99.9%: a chain of 3 → 99.70% · a chain of 6 → 99.40%.",
        "The chain of 6 with 3 copies of each link → 99.999999%.",
        "Your chain 99.9% × 99.9% × 99.95% = 99.75%: lower than its weakest link.",
    ],
)
def test_it_says_every_figure_the_lesson_prints(line):
    assert line in headline("availability", run("availability")).split("\n")


def test_it_puts_the_figures_in_the_summary_as_numbers():
    s = run("availability")["summary"]
    assert s["most_copies_pct"] == 99.9999
    assert round(s["longest_chain_pct"], 2) == 99.40
    assert round(s["chain_of_copies_pct"], 6) == 99.999999
    assert round(s["my_chain_pct"], 2) == 99.75
    assert s["my_chain_below_weakest_link"] is True
    assert s["most_copies_down_h_per_year"] == pytest.approx(0.00876)


def test_it_tables_copies_with_their_downtime():
    table = shown(run("availability"))[0]  # as the page shows it
    assert table["columns"] == ["one copy", "1 copy", "2 copies", "3 copies"]
    assert table["rows"][0] == [
        "99.0%",
        "99.00% (down 87.6 h/yr)",
        "99.9900% (down 53 min/yr)",
        "99.999900% (down 31.5 s/yr)",
    ]


def test_it_never_rounds_a_service_that_is_sometimes_down_up_to_100_percent():
    assert pct(0.999999997, 3) == "99.9999997%"
    assert pct(1.0, 3) == "100.000000%"
    assert pct(0.9975, 1) == "99.75%"


def test_it_refuses_an_availability_given_twice():
    assert refusal("availability", one_copy_pct=[99.0, 99.0]) == {
        "one_copy_pct": ["Give each availability only once."]
    }


def test_it_refuses_more_than_100_percent():
    assert "out of range" in refusal("availability", my_chain_pct=[99.9, 100.5])["my_chain_pct"][0]


def test_two_zones_fail_independently_only_while_they_share_nothing():
    alone = run("availability", one_copy_pct=[99.9], copies=2, shared_pct=100.0)["summary"]
    # 1 - 0.001²: down 31.5 s a year, as long as the zones fail one by one.
    assert alone["most_copies_pct"] == alone["most_copies_sharing_pct"] == 99.9999
    shared = run("availability", one_copy_pct=[99.9], copies=2, shared_pct=99.9)["summary"]
    # One 99.9% dependency both zones need: 0.999 × (1 - 0.001²), below the dependency.
    assert shared["most_copies_pct"] == 99.9999  # the independent arithmetic, unchanged
    assert shared["most_copies_sharing_pct"] == 99.8999001
    assert shared["most_copies_sharing_down_h_per_year"] == pytest.approx(8.769, abs=1e-3)
    assert shared["most_copies_sharing_pct"] < shared["shared_pct"]


def test_more_copies_cannot_lift_a_shared_dependency():
    three = run("availability", copies=3)["summary"]["most_copies_sharing_pct"]
    six = run("availability", copies=6)["summary"]["most_copies_sharing_pct"]
    assert three == 99.8999001 and six == pytest.approx(99.9, abs=1e-9)
    assert six < 99.9


def test_it_says_and_charts_the_shared_dependency():
    result = run("availability", one_copy_pct=[99.9], copies=2)
    text = headline("availability", result)
    assert (
        "If 2 copies of 99.9% all need one dependency at 99.9%, they fail together whenever it "
        "fails: 99.8999% (down 8.8 h a year) instead of 99.9999%." in text
    )
    _, sharing, _ = lab("availability").charts(result)
    independent, shared = sharing["data"]
    assert independent["y"][-1] == pytest.approx(0.001**2 * 365 * 24 * 60)  # 31.5 s a year
    assert shared["y"][-1] == pytest.approx((1 - 0.999 * (1 - 0.001**2)) * 365 * 24 * 60)
    assert sharing["layout"]["shapes"][0]["y0"] == pytest.approx(0.001 * 365 * 24 * 60)
    nothing = headline("availability", run("availability", shared_pct=100.0))
    assert "Nothing is shared, so the copies fail only one by one" in nothing


def test_a_run_saved_before_the_shared_dependency_still_shows():
    result = run("availability")
    del result["tables"]["shared_data"]
    for key in ("shared_pct", "most_copies_sharing_pct", "most_copies_sharing_down_h_per_year"):
        del result["summary"][key]
    del result["params"]["shared_pct"]
    assert len(lab("availability").charts(result)) == 2
    assert "dependency" not in headline("availability", result)
