"""A lab that answers as its controls move: a slider's move (by keyboard or dragged with the
mouse) re-runs the lab and the charts change in place, the previous lines left faint; a
refused value says why and runs nothing; Run still works without JavaScript; a real-queue
experiment waits for Run; a chart's PNG of a draft keeps it. The first move asks for the
guess (predict.js, tests/browser/test_predict_skip.py): these tests skip it."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from accounts.models import Profile
from labs.runs.models import Run
from tests.base import make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import (
    bring_charts_drawn,
    chart_problems,
    charts,
    open_lab,
    reveal,
    run_button,
)

# The lab's main chart, on its stage beside the controls (stage.js).
MAIN_PLOT = ".stage-chart figure.chart .plot"
TRACES = f"() => Array.from(document.querySelector('{MAIN_PLOT}').data, t => t.name)"
FAINT = (
    f"() => document.querySelector('{MAIN_PLOT}').data"
    ".filter(t => t.legendgroup === 'before').map(t => t.hovertemplate)"
)


def drafts_posted(page) -> list[str]:
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.url.endswith("/draft/") else None)
    return posted


GIVE_UP_MS = 180_000


def skip_when_asked(page) -> None:
    """The first move with no guess asks for one and holds its draft: "Skip this time"."""
    ask = page.locator(".lab-panel .predict-ask")
    expect(ask).to_be_visible()
    ask.locator("[data-predict-skip-button]").click()


def landed(page, after: str = "") -> str:
    """Wait for a draft's finished body (another than `after`) with its charts drawn."""
    page.wait_for_function(
        """(after) => { const b = document.querySelector('.results .run-body');
           return b && b.id !== after && b.matches('.status-succeeded.draft'); }""",
        arg=after,
        # A give-up, not a speed target: a draft runs on the real worker, which a busy
        # machine (another process on both cores) can keep for most of a minute.
        timeout=GIVE_UP_MS,
    )
    bring_charts_drawn(page, ".results .run-body figure.chart", ".drawn:not(.redrawing)")
    return page.locator(".results .run-body").get_attribute("id")


def no_chart_problems(page) -> None:
    drawn = charts(page)
    assert drawn and all(c["drawn"] for c in drawn)
    problems = [p for c in drawn for p in chart_problems(c)]
    assert not problems, "\n".join(problems)


def test_a_keyboard_slider_move_reruns_drain_and_redraws_in_place_with_the_before_lines(site):
    page = site.page(make_user("asha"), width=WIDE)
    posted = drafts_posted(page)
    open_lab(page, site, "drain")
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")  # 100 → 110 jobs/s
    skip_when_asked(page)  # the ask took the focus: the slider gets it back below
    first = landed(page)
    plot = page.locator(MAIN_PLOT).first
    plot.evaluate("p => { p.dataset.mark = 'kept'; }")
    page.locator("input.slider[data-for=id_per_worker]").focus()
    page.keyboard.press("ArrowRight")  # 110 → 120
    landed(page, after=first)
    # The same chart element, drawn again: the new lines and the previous ones, faint.
    assert plot.evaluate("p => p.dataset.mark") == "kept"
    names = page.evaluate(TRACES)
    assert "before" in names and "done" in names, names  # one legend entry for the faint ones
    assert any("done (before)" in hover for hover in page.evaluate(FAINT))
    changed = page.locator(".what-changed").inner_text()
    assert "Jobs one worker finishes per second (110 → 120)" in changed, changed
    assert "Peak backlog" in changed
    assert len(posted) == 2  # one run per settled value
    assert page.locator(".lab-bar .key-figure strong").inner_text().strip()
    no_chart_problems(page)
    shot(page, f"drafts-drain-{WIDE}")
    # The bar's button clears the before lines, by keyboard too.
    clear = page.locator("[data-clear-before]")
    clear.focus()
    page.keyboard.press("Enter")
    expect(clear).to_be_hidden()
    assert page.evaluate(FAINT) == [] and "before" not in page.evaluate(TRACES)
    assert Run.objects.filter(draft=True).count() == 2 and not Run.objects.filter(draft=False)

    # A real-queue experiment has Run alone: nothing on its page posts a draft.
    open_lab(page, site, "poison-live")
    assert page.locator("[data-auto-run], .auto-run").count() == 0
    assert run_button(page).is_visible()
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_on_a_phone_in_marathi_a_refused_value_says_why_and_runs_nothing(site):
    ravi = make_user("ravi")
    Profile.objects.update_or_create(user=ravi, defaults={"language": "mr"})
    page = site.page(ravi, width=PHONE, height=780)
    posted = drafts_posted(page)
    open_lab(page, site, "trapped-service")
    page.fill("#id_base_rps", "90")
    skip_when_asked(page)
    first = landed(page)
    no_chart_problems(page)
    page.fill("#id_base_rps", "0")  # below its bound: refused by the server
    message = page.locator("#id_base_rps_error")
    expect(message).to_be_visible()
    assert message.inner_text().strip(), "the refusal says why"
    # Marked once the out-of-band messages have settled (drafts.js), a moment after they show.
    expect(page.locator(".field:has(#id_base_rps)")).to_have_class(re.compile(r"\bhas-error\b"))
    assert page.locator(".results .run-body").get_attribute("id") == first  # nothing ran
    assert Run.objects.count() == 1 and len(posted) == 2
    page.fill("#id_base_rps", "85")
    landed(page, after=first)
    expect(message).to_be_hidden()
    assert page.locator(".what-changed strong").inner_text().strip() == "काय बदलले:"
    assert "आधी" in page.evaluate(TRACES)
    assert all(hover.endswith("(आधी)</extra>") for hover in page.evaluate(FAINT))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    no_chart_problems(page)
    shot(page, f"drafts-trapped-service-{PHONE}-mr")
    # The refusal is a 422 the page shows in place (Chromium logs it); nothing else failed.
    assert [e for e in site.seen.errors if "422" not in e] == []


def test_a_count_moved_below_its_numbered_list_runs_and_says_what_was_left_out(site):
    # Lesson 13's duplicates name payment 4: one step down to 3 payments is a chart, not a
    # refusal, and the first line says payment 4's entries were left out; the box keeps them.
    page = site.page(make_user("meera"), width=WIDE)
    open_lab(page, site, "idempotent-charges")
    page.locator("input.slider[data-for=id_messages]").focus()
    page.keyboard.press("ArrowLeft")  # 4 → 3 payments
    skip_when_asked(page)
    landed(page)
    first = page.locator(".results .run-body ul.headline li").first.inner_text()
    assert first.startswith("Payment 4 is not put on the queue: this run stops at payment 3"), first
    assert page.input_value("#id_repeats").replace(" ", "") == "2,4,4"
    no_chart_problems(page)
    shot(page, f"drafts-idempotent-charges-{WIDE}")
    # The same in Marathi, for the retried payment's late answers.
    ravi = make_user("ravi")
    Profile.objects.update_or_create(user=ravi, defaults={"language": "mr"})
    page = site.page(ravi, width=PHONE, height=780)
    open_lab(page, site, "retried-payment")
    page.locator("input.slider[data-for=id_payments]").focus()
    page.keyboard.press("ArrowLeft")  # 4 → 3 payments
    skip_when_asked(page)
    landed(page)
    first = page.locator(".results .run-body ul.headline li").first.inner_text()
    assert first.startswith("पेमेंट 4 या रनमध्ये नाही"), first
    shot(page, f"drafts-retried-payment-{PHONE}-mr")
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_without_javascript_run_still_runs_and_no_draft_is_made(site):
    context = site.chromium.new_context(
        java_script_enabled=False, viewport={"width": WIDE, "height": 900}
    )
    site.contexts.append(context)
    context.add_cookies([site.session_cookie(make_user("nina"))])
    page = context.new_page()
    site.seen.watch(page)
    open_lab(page, site, "drain")
    page.fill("#id_per_worker", "150")
    run_button(page).click()
    # The run's page refreshes itself (<noscript> meta refresh) until the run is done.
    page.locator(".run-body.status-succeeded").wait_for(timeout=60_000)
    run = Run.objects.get()
    assert not run.draft and run.params["per_worker"] == 150
    assert not site.seen.errors, "\n".join(site.seen.errors)


# The thumb is 16 px wide: its centre runs from 8 px in to 8 px before the track's end.
THUMB_PX = 16


def drag(page, field: str, by: float) -> tuple[str, str]:
    """Drag `field`'s slider with the mouse, from its thumb by `by` of the track's length
    (down on the thumb, a few moves, up); the box's value before and after."""
    slider = page.locator(f"input.slider[data-for=id_{field}]")
    reveal(page, f"#id_{field}")
    slider.scroll_into_view_if_needed()
    was = page.input_value(f"#id_{field}")
    box = slider.bounding_box()
    assert box, "the slider is drawn"
    at = float(slider.input_value()) / float(slider.get_attribute("max"))
    run = box["width"] - THUMB_PX
    x, y = box["x"] + THUMB_PX / 2 + run * at, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + run * by, y, steps=8)
    page.mouse.up()
    now = page.input_value(f"#id_{field}")
    assert now != was, f"the drag moved {field}"
    return was, now


DRAWN_IS_SHOWN = """() => {
  // Every chart's own lines (not the faint ones) are the shown body's result.
  const shown = '.results .run-body figure.chart, .stage-chart figure.chart';
  return Array.from(document.querySelectorAll(shown)).every(f => {
    const fig = JSON.parse(f.querySelector("script[type='application/json']").textContent);
    const own = f.querySelector('.plot').data.filter(t => t.legendgroup !== 'before');
    return own.length === fig.data.length && own.every(
      (t, i) => JSON.stringify(t.y) === JSON.stringify(fig.data[i].y));
  });
}"""


def label_of(page, field: str) -> str:
    """A field's words, as "What changed" names it (the label without its code name)."""
    return page.locator(f"#id_{field}_label").evaluate("l => l.firstChild.textContent.trim()")


def dragged_and_redrawn(page, field: str, first: str, by: float) -> str:
    """Drag `field` after the run `first` landed: the chart follows, the run before stays
    faint behind it, and "What changed" names the field, from and to."""
    plot = page.locator(MAIN_PLOT).first
    plot.evaluate("p => { p.dataset.mark = 'same'; }")
    was, now = drag(page, field, by)
    # Values passed during the drag may land on the way (drafts.js paces them); the last
    # one to land is the value let go at.
    second = landed(page, after=first)
    shown = Run.objects.get(pk=second.removeprefix("run-"))
    while str(shown.params[field]) not in (now, str(float(now))):
        second = landed(page, after=second)
        shown = Run.objects.get(pk=second.removeprefix("run-"))
    assert plot.evaluate("p => p.dataset.mark") == "same"  # redrawn in place, not swapped
    assert page.evaluate(DRAWN_IS_SHOWN), "the charts draw the new result"
    assert page.evaluate(FAINT), "the previous run stays, faint"
    changed = page.locator(".what-changed").inner_text()
    assert f"{label_of(page, field)} (" in changed and f" → {now})" in changed, (was, changed)
    return second


def test_a_mouse_drag_reruns_drain_and_its_png_keeps_the_draft(site):
    page = site.page(make_user("mira"), width=WIDE)
    open_lab(page, site, "drain")
    drag(page, "per_worker", 0.1)
    skip_when_asked(page)
    first = landed(page)
    second = dragged_and_redrawn(page, "per_worker", first, 0.15)
    no_chart_problems(page)
    # A chart's PNG is made in the browser: its toolbar button keeps the draft (keep.js).
    kept = second.removeprefix("run-")
    assert Run.objects.get(pk=kept).draft
    chart = page.locator(".stage-chart figure.chart").first
    chart.hover()
    with page.expect_download():
        chart.locator(".modebar-btn").first.click()
    expect(page.locator(".results .run-body .draft-note")).to_have_count(0)
    assert not Run.objects.get(pk=kept).draft
    assert Run.objects.filter(draft=False).count() == 1
    # The first draft's own page: its JSON download keeps it, and the page says so.
    older = first.removeprefix("run-")
    page.goto(f"{site.url}/runs/{older}/")
    offer = page.locator("form.keep-draft")
    expect(offer).to_be_visible()
    with page.expect_download():
        page.locator(".run-facts a", has_text="JSON").click()
    expect(offer).to_have_count(0)
    assert not Run.objects.get(pk=older).draft
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_a_mouse_drag_on_a_phone_in_marathi_reruns_trapped_service(site):
    ravi = make_user("rohan")
    Profile.objects.update_or_create(user=ravi, defaults={"language": "mr"})
    page = site.page(ravi, width=PHONE, height=780)
    open_lab(page, site, "trapped-service")
    drag(page, "workers", 0.1)
    skip_when_asked(page)
    first = landed(page)
    dragged_and_redrawn(page, "workers", first, 0.1)
    assert page.locator(".what-changed strong").inner_text().strip() == "काय बदलले:"
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    no_chart_problems(page)
    assert not site.seen.errors, "\n".join(site.seen.errors)
