"""What the browser tests do on a page and read off it."""

from __future__ import annotations

import math
from typing import Any

RUN_TIMEOUT_MS = 150_000  # a live lab takes seconds; a loaded 2-core machine, much longer
# The pressed run the page shows: not a draft's answer (a slider's or a preset's, which may
# have landed just before Run was pressed), nor one waiting, hidden, in the drafts' holder.
FINISHED = (
    ".run-area .run-body:not(.draft).status-succeeded, "
    ".run-area .run-body:not(.draft).status-failed"
)

# For every drawn Plotly chart on the page: its title, and for every x axis the range drawn
# and the extent of the data on that axis (a bar reaches half its width past its x).
CHARTS_JS = """
() => Array.from(document.querySelectorAll("figure.chart .plot")).map((plot) => {
  const layout = plot._fullLayout, data = plot._fullData;
  const box = plot.getBoundingClientRect();
  const title = plot.querySelector(".g-gtitle text");
  const titleBox = title && title.getBoundingClientRect();
  const bar = plot.querySelector(".modebar");
  const barBox = bar && bar.getBoundingClientRect();
  const out = {
    drawn: !!(layout && plot.querySelector(".main-svg")),
    title: (layout && layout.title && layout.title.text) || "",
    box: {left: box.left, right: box.right, top: box.top, bottom: box.bottom},
    titleBox: titleBox && {left: titleBox.left, right: titleBox.right, top: titleBox.top,
                           bottom: titleBox.bottom},
    toolbar: barBox && barBox.width > 0 && {left: barBox.left, right: barBox.right,
                                            top: barBox.top, bottom: barBox.bottom},
    axes: [],
    labels: [],
  };
  if (!out.drawn) return out;
  // Words drawn on the chart that must not sit on one another.
  const kinds = [
    ["title", ".g-gtitle text"],
    ["legend", ".legend .bg"], ["axis title", ".g-xtitle text, .g-x2title text, "
      + ".g-ytitle text, .g-y2title text, .g-y3title text"],
    ["note", ".annotation-text-g text"], ["bar label", ".bartext"],
    ["tick", ".xaxislayer-above text, .yaxislayer-above text"],
  ];
  for (const [kind, selector] of kinds) {
    plot.querySelectorAll(selector).forEach((node) => {
      const r = node.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && (node.textContent || kind === "legend")) {
        out.labels.push({kind, text: (node.textContent || "").trim().slice(0, 40),
                         left: r.left, right: r.right, top: r.top, bottom: r.bottom});
      }
    });
  }
  // Each numeric axis's step between ticks, as Plotly chose it.
  out.steps = Object.keys(layout).filter((key) => /^[xy]axis\\d*$/.test(key)
    && layout[key].type === "linear" && layout[key].tickmode !== "array"
    && layout[key].visible !== false && typeof layout[key].dtick === "number")
    .map((key) => ({name: key, dtick: layout[key].dtick}));
  for (const key of Object.keys(layout)) {
    if (!/^xaxis\\d*$/.test(key)) continue;
    const ax = layout[key];
    let lo = Infinity, hi = -Infinity, count = 0;
    for (const t of data) {
      if ((t.xaxis || "x") !== ax._id || t.visible !== true || !t.x) continue;
      const xs = Array.from(t.x).filter((v) => typeof v === "number" && isFinite(v));
      if (!xs.length) continue;
      let pad = 0;
      if (t.type === "bar" || t.type === "histogram") {
        const sorted = [...new Set(xs)].sort((a, b) => a - b);
        let gap = Infinity;
        for (let i = 1; i < sorted.length; i++) gap = Math.min(gap, sorted[i] - sorted[i - 1]);
        pad = isFinite(gap) ? gap / 2 : 0.5;
      }
      lo = Math.min(lo, Math.min(...xs) - pad);
      hi = Math.max(hi, Math.max(...xs) + pad);
      count += xs.length;
    }
    out.axes.push({name: key, type: ax.type, range: ax.range, lo, hi, count,
                   title: (ax.title && ax.title.text) || ""});
  }
  return out;
})
"""


def open_lab(page, site, slug: str) -> None:
    page.goto(f"{site.url}/labs/{slug}/")
    page.wait_for_load_state("load")


def reveal(page, selector: str) -> None:
    """Unfold the group a field sits in (a long form starts with its middle groups folded)."""
    folded = page.locator(f"details.group:not([open]):has({selector}) > summary")
    if folded.count():
        folded.click()


def run_button(page):
    return page.get_by_role("button", name="Run", exact=True)


def skip_if_asked(page) -> None:
    """The first Run or draft of a visit with no guess is held while the lab asks for one
    (predict.js, tests/browser/test_predict_skip.py): a student who presses "Skip this time",
    so what was held goes ahead. Nothing when the page did not ask (the ask shows within the
    press itself)."""
    ask = page.locator(".lab-panel .predict-ask:visible")
    if ask.count():
        ask.locator("[data-predict-skip-button]").click()


def give_a_guess(page) -> None:
    """Answer the lab's first prediction prompt (its first choice, or its lowest number), so
    the first move of a control is not held while the lab asks for the guess."""
    choice = page.locator('.predict-choice input[type=radio]:not([value=""])')
    if choice.count():
        choice.first.check()
        return
    slider = page.locator("input[data-predict-for]").first
    page.fill(f"#{slider.get_attribute('data-predict-for')}", slider.get_attribute("min"))


def press_run(page) -> None:
    """Press Run, skipping the guess if asked (a test not about predictions)."""
    run_button(page).click()
    skip_if_asked(page)


def wait_finished(page, site) -> str:
    """Wait until the run on the page has finished; its status."""
    body = page.locator(FINISHED)
    try:
        body.wait_for(timeout=RUN_TIMEOUT_MS)
    except Exception as error:  # say what the worker said
        log = site.worker_tail()
        raise AssertionError(f"the run did not finish; worker log:\n{log}") from error
    status = "succeeded" if "status-succeeded" in body.get_attribute("class") else "failed"
    if status == "succeeded":
        wait_charts_drawn(page)
    return status


# charts.js draws a chart as it nears the screen: bring the first one not drawn there, as a
# reader scrolling down would, until every chart in `selector` is drawn (`done` true of each).
BRING_CHARTS_JS = """([selector, done]) => {
  const left = Array.from(document.querySelectorAll(selector)).filter((f) => !f.matches(done));
  if (window.__scrolledFrom === undefined) window.__scrolledFrom = window.scrollY;
  if (left.length) {
    left[0].scrollIntoView({block: "center"});
    return false;
  }
  window.scrollTo(0, window.__scrolledFrom);
  delete window.__scrolledFrom;
  return true;
}"""


def bring_charts_drawn(page, selector: str = "figure.chart", done: str = ".drawn") -> None:
    """Wait until every chart in `selector` is drawn, scrolling each into view in turn, then
    scroll back to where the page was."""
    page.wait_for_function(BRING_CHARTS_JS, arg=[selector, done], polling=100)


def wait_charts_drawn(page) -> None:
    bring_charts_drawn(page)


def permalink(page) -> str:
    """The address of the finished run shown on the page."""
    return page.locator(".run-body .status a", has_text="permalink").evaluate("a => a.href")


def charts(page) -> list[dict[str, Any]]:
    return page.evaluate(CHARTS_JS)


def chart_problems(chart: dict[str, Any]) -> list[str]:
    return (
        x_range_problems(chart)
        + title_problems(chart)
        + overlap_problems(chart)
        + tick_step_problems(chart)
    )


def tick_step_problems(chart: dict[str, Any]) -> list[str]:
    """Ticks a reader can count along: a step of 1, 2, 2.5 or 5 times a power of ten (an
    axis synced to another's grid stepped 5.15, 10.31, 15.46...)."""
    problems = []
    for axis in chart.get("steps", []):
        step = axis["dtick"]
        scale = 10 ** math.floor(math.log10(step)) if step > 0 else 1
        if not any(math.isclose(step / scale, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5, 10)):
            problems.append(f"{chart['title']!r} {axis['name']}: ticks every {step:.6g}")
    return problems


def overlaps(a: dict[str, float], b: dict[str, float], slack: float = 1.0) -> bool:
    return not (
        a["right"] <= b["left"] + slack
        or b["right"] <= a["left"] + slack
        or a["bottom"] <= b["top"] + slack
        or b["bottom"] <= a["top"] + slack
    )


# Words that may sit close to their own kind: a legend's entries, the axes' titles, ticks.
SAME_KIND_MAY_TOUCH = ("legend", "axis title", "tick")


def overlap_problems(chart: dict[str, Any]) -> list[str]:
    """No words on a chart drawn over other words: the title, the legend, the axes' titles
    and ticks, the notes and the bars' labels each keep clear of the others; no note or tick
    is cut at the chart's sides."""
    labels = chart["labels"]
    box = chart["box"]
    problems = [
        f"{chart['title']!r}: {t['kind']} {t['text']!r} is cut at the chart's"
        f" {'left' if t['left'] < box['left'] - 1 else 'right'} edge"
        for t in labels
        if t["kind"] in ("tick", "note")
        and (t["left"] < box["left"] - 1 or t["right"] > box["right"] + 1)
    ]
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            if a["kind"] == b["kind"] and a["kind"] in SAME_KIND_MAY_TOUCH:
                continue
            if overlaps(a, b):
                problems.append(
                    f"{chart['title']!r}: {a['kind']} {a['text']!r} is drawn over"
                    f" {b['kind']} {b['text']!r}"
                )
    return problems


def words_problems(chart: dict[str, Any]) -> list[str]:
    """What a reader sees of a chart's words (a crawl that only reads): its title and every
    label clear of each other and of the sides."""
    return title_problems(chart) + overlap_problems(chart)


def title_problems(chart: dict[str, Any]) -> list[str]:
    """A chart's title must fit inside the chart (not cut at its sides) and stay clear of
    the chart's toolbar."""
    box, title, bar = chart["box"], chart["titleBox"], chart["toolbar"]
    if not title:
        return []
    problems = []
    if title["left"] < box["left"] - 1 or title["right"] > box["right"] + 1:
        problems.append(f"{chart['title']!r}: the title is wider than the chart and is cut")
    if bar and not (
        bar["right"] <= title["left"]
        or title["right"] <= bar["left"]
        or bar["bottom"] <= title["top"]
        or title["bottom"] <= bar["top"]
    ):
        problems.append(f"{chart['title']!r}: the title is under the chart's toolbar")
    return problems


def x_range_problems(chart: dict[str, Any], margin: float = 0.1) -> list[str]:
    """Each numeric x axis should show the data, not run far past it: its range must lie
    within the data's extent widened by `margin` of that extent on each side."""
    problems = []
    for ax in chart["axes"]:
        if ax["type"] not in ("linear",) or not ax["count"]:
            continue
        lo, hi = ax["lo"], ax["hi"]
        slack = max(hi - lo, 1e-9) * margin
        start, end = sorted(ax["range"])
        if start < lo - slack or end > hi + slack:
            problems.append(
                f"{chart['title']!r} {ax['name']}: drawn {start:.4g}..{end:.4g}"
                f" for data {lo:.4g}..{hi:.4g}"
            )
    return problems
