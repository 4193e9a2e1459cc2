"""Every lab, run in a real browser as a student runs it, at a phone's and a laptop's size, in
both languages.

The chart and the control in one glance: after a slider move (a lab that re-runs as it
moves) and after Run, most of the lab's main chart is on the screen together with the
control just moved; the prediction prompt is on the first screen; nothing the page scrolls
to sits under a sticky part of the page.

Every chart drawn and readable: after the laptop's English Run, every chart of the result
is drawn with no overlapping words or uncountable ticks, and the run's permalink opened on
a phone draws the same charts and fits its width. (This was tests/browser/test_labs.py,
which ran every lab once more with its defaults: the same page and charts, a second time.)

One case per lab and width, both languages inside it (a case opens the lab twice): the
live server, the worker and the result store are shared by all, so a result computed for
English is shown at once for Marathi.
"""

from __future__ import annotations

import pytest

from accounts.models import Profile
from labs.catalogue.entries import LABS, prompts_for
from labs.runs import drafts
from tests.base import make_user
from tests.browser.conftest import PHONE, SHOTS, WIDE, shot
from tests.browser.pages import (
    RUN_TIMEOUT_MS,
    chart_problems,
    charts,
    open_lab,
    permalink,
    skip_if_asked,
    wait_charts_drawn,
)

HEIGHT = {PHONE: 844, WIDE: 900}

# The main chart: the one the page marks so, else the first chart of the results.
MAIN = "() => document.querySelector('figure.chart.main') || document.querySelector('.results figure.chart')"  # noqa: E501

# Share of an element's box inside the viewport (0 when it is missing or has no size).
SHOWN_JS = """(el) => {
  if (!el) return 0;
  const r = el.getBoundingClientRect();
  const area = r.width * r.height;
  if (!area) return 0;
  const w = Math.max(0, Math.min(r.right, innerWidth) - Math.max(r.left, 0));
  const h = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  return (w * h) / area;
}"""

# Whether the first line of an element is hidden by a sticky or fixed part of the page that
# is not the element's own: a point a few pixels into its first line, at its left, middle
# and right, must show the element (or something inside it), or nothing sticky.
COVERED_JS = """(el) => {
  if (!el) return "missing";
  const r = el.getBoundingClientRect();
  const y = r.top + Math.min(8, r.height / 2);
  if (y < 0 || y >= innerHeight) return "off the screen";
  for (const x of [r.left + 6, (r.left + r.right) / 2, r.right - 6]) {
    if (x < 0 || x >= innerWidth) continue;
    let top = document.elementFromPoint(x, y);
    if (!top || el.contains(top) || top.contains(el)) continue;
    for (let n = top; n && n !== document.body; n = n.parentElement) {
      const pos = getComputedStyle(n).position;
      if ((pos === "sticky" || pos === "fixed") && !n.contains(el)) {
        return "under " + n.tagName.toLowerCase() + "." + n.className;
      }
    }
  }
  return "";
}"""

# A live lab runs in real time: the lesson's defaults take over a minute, and the layout is
# the same at a shorter, faster run (set in the boxes, not by the student's hand).
QUICKER = {
    "trapped-live": {"time_scale": "0.25", "horizon_s": "40", "trigger_start_s": "5",
                     "trigger_end_s": "15", "recover_at_s": "40"},
}  # fmt: skip
SET_VALUES_JS = """(values) => { for (const [name, value] of Object.entries(values)) {
  document.getElementById("id_" + name).value = value; } }"""

RUN_BUTTON = ".lab-panel button.run[id^=run-button]"
FINISHED = ".results .run-body.status-succeeded:not(.draft), .results .run-body.status-failed"
DRAFT_LANDED = ".results .run-body.status-succeeded.draft"


def first_slider(page) -> str:
    """The `data-for` of the first slider of the lab's own controls on show."""
    return page.evaluate(
        """() => { const s = Array.from(document.querySelectorAll(
             'form.lab-form details.group[open] input.slider[data-for]')).find(
             (s) => !s.hidden && s.offsetParent);
           return s ? s.dataset.for : ""; }"""
    )


def wait_main_drawn(page) -> None:
    page.wait_for_function(
        f"() => {{ const m = ({MAIN})(); return m && m.matches('.drawn:not(.redrawing)'); }}",
        timeout=RUN_TIMEOUT_MS,
    )


def glance_problems(page, moved: str, when: str) -> list[str]:
    """What keeps the main chart and the moved control from one glance."""
    problems = []
    main = page.evaluate_handle(MAIN)
    shown = page.evaluate(SHOWN_JS, main)
    if shown < 0.6:
        problems.append(f"{when}: {shown:.0%} of the main chart is on the screen")
    if moved:
        slider = page.locator(f"input.slider[data-for={moved}]")
        if page.evaluate(SHOWN_JS, slider.element_handle()) < 0.99:
            problems.append(f"{when}: the moved control is off the screen")
        label = page.locator(f"label[for={moved}]")
        under = page.evaluate(COVERED_JS, label.element_handle())
        if under:
            problems.append(f"{when}: the moved control's label is {under}")
    focused = page.evaluate_handle("() => document.activeElement")
    if page.evaluate("(el) => el && el !== document.body && !el.matches('input')", focused):
        under = page.evaluate(COVERED_JS, focused)
        if under and under != "off the screen":
            problems.append(f"{when}: the focused result's first line is {under}")
    return problems


def every_chart_problems(site, page, user, slug: str) -> list[str]:
    """What is wrong with the finished run's charts, on this page and on its permalink
    opened at a phone's width."""
    wait_charts_drawn(page)  # charts.js draws a chart as it nears the screen
    shot(page, f"{slug}-{WIDE}")
    wide = charts(page)
    if not wide:
        return [f"{slug}: the finished run shows no chart"]
    problems = [f"{slug} {WIDE} px: '{c['title']}' not drawn" for c in wide if not c["drawn"]]
    problems += [f"{slug} {WIDE} px: {p}" for c in wide for p in chart_problems(c)]

    phone = site.page(user, width=PHONE)
    phone.goto(permalink(page))
    wait_charts_drawn(phone)
    shot(phone, f"{slug}-{PHONE}")
    narrow = charts(phone)
    if len(narrow) != len(wide):
        problems.append(f"{slug} permalink: {len(narrow)} charts, the lab page {len(wide)}")
    problems += [f"{slug} {PHONE} px: '{c['title']}' not drawn" for c in narrow if not c["drawn"]]
    problems += [f"{slug} {PHONE} px: {p}" for c in narrow for p in chart_problems(c)]
    # The finished result fits the phone: wide tables and code scroll in their own boxes.
    scroll_width = phone.evaluate("() => document.documentElement.scrollWidth")
    if scroll_width > PHONE:
        problems.append(f"{slug} permalink: the page is {scroll_width} px wide at {PHONE}")
    phone.context.close()
    return problems


def one_language(site, slug: str, width: int, language: str, every_chart: bool) -> list[str]:
    lab = next(lab for lab in LABS if lab.slug == slug)
    user = make_user(f"s-{language}-{width}")
    Profile.objects.update_or_create(user=user, defaults={"language": language})
    page = site.page(user, width=width, height=HEIGHT[width])
    open_lab(page, site, slug)
    problems = []
    where = f"{slug} {width} {language}"
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/first-{slug}-{width}-{language}.png")
    if prompts_for(slug):
        title = page.locator(".predict .predict-title").first
        if not title.count() or page.evaluate(SHOWN_JS, title.element_handle()) < 0.99:
            problems.append(f"{where}: the prediction prompt is not on the first screen")
        elif under := page.evaluate(COVERED_JS, title.element_handle()):
            problems.append(f"{where}: the prediction prompt is {under}")

    # A student brings the first slider into view (as far as the page lets it be seen, its
    # scroll margins included) and moves it one step.
    moved = first_slider(page)
    if moved:
        page.evaluate(
            "(id) => document.querySelector(`input.slider[data-for=${id}]`)"
            ".scrollIntoView({block: 'nearest'})",
            moved,
        )
        page.locator(f"input.slider[data-for={moved}]").focus()
        page.keyboard.press("ArrowRight")
        skip_if_asked(page)  # the first move asks for the guess (predict.js)
        page.locator(f"input.slider[data-for={moved}]").focus()
        if drafts.instant(lab):
            page.wait_for_selector(DRAFT_LANDED, timeout=RUN_TIMEOUT_MS)
            wait_main_drawn(page)
            problems += glance_problems(page, moved, f"{where} after a drag")

    if slug in QUICKER:
        page.evaluate(SET_VALUES_JS, QUICKER[slug])
    page.locator(RUN_BUTTON).click()
    skip_if_asked(page)  # a lab with no draft asks at Run
    page.wait_for_selector(FINISHED, timeout=RUN_TIMEOUT_MS)
    wait_main_drawn(page)
    page.wait_for_timeout(100)  # a scroll the page makes after its charts are drawn
    problems += glance_problems(page, moved, f"{where} after Run")
    if SHOTS:  # the screen as the student sees it, not the whole page
        page.screenshot(path=f"{SHOTS}/glance-{slug}-{width}-{language}.png")
    if every_chart:
        problems += every_chart_problems(site, page, user, slug)
    page.context.close()
    return problems


@pytest.mark.parametrize("width", [PHONE, WIDE])
@pytest.mark.parametrize("slug", [lab.slug for lab in LABS])
def test_the_main_chart_and_the_moved_control_are_in_one_glance(site, slug, width):
    problems = one_language(site, slug, width, "en", every_chart=width == WIDE)
    problems += one_language(site, slug, width, "mr", every_chart=False)
    assert not problems, "\n".join(problems)
    assert not site.seen.errors, "\n".join(site.seen.errors)
