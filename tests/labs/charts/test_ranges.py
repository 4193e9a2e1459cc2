"""A time axis ends where its data ends: notes in data coordinates must not stretch it."""

from __future__ import annotations

from labs.charts.base import bar, data_span, figure, line, pointer


def test_a_line_chart_is_drawn_over_its_datas_span_whatever_its_notes():
    seconds = list(range(80))
    fig = figure(
        title="t",
        x_title="second",
        y_title="jobs",
        traces=[line(seconds, [1] * 80, "backlog")],
        annotations=[pointer(79, 0, "empty at 79 s, a long note that Plotly would make room for")],
    )
    assert fig["layout"]["xaxis"]["range"] == [0, 79]


def test_a_bar_reaches_half_a_step_past_its_x_and_words_are_left_to_plotly():
    assert data_span([bar([1, 2, 3], [5, 6, 7], "n"), line([1, 3], [0, 0], "l")]) == (0.5, 3.5)
    assert data_span([line(["a", "b"], [1, 2], "l")]) is None
    assert data_span([line([4], [1], "one point")]) is None


def test_a_chart_of_bars_or_categories_keeps_plotlys_own_range():
    bars = figure(title="t", x_title="x", y_title="y", traces=[bar([1, 2], [3, 4], "n")])
    assert "range" not in bars["layout"]["xaxis"]
    words = figure(
        title="t", x_title="x", y_title="y", traces=[line([1, 2], [3, 4], "n")], x_category=True
    )
    assert "range" not in words["layout"]["xaxis"]
