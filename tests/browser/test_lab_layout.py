"""The lab page as a student uses it: controls beside the charts on a laptop, one column
with a sticky bar on a phone, and sliders that work by mouse, keyboard and presets."""

from __future__ import annotations

from accounts.models import Profile
from tests.base import make_user
from tests.browser.conftest import PHONE, SHOTS, WIDE, shot
from tests.browser.pages import (
    chart_problems,
    charts,
    open_lab,
    press_run,
    skip_if_asked,
    wait_finished,
)

BOX = "el => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }"  # noqa: E501


def screen_shot(page, name: str) -> None:
    """What the screen shows now (not the whole page), under BROWSER_SHOTS when set."""
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png")


def box(page, selector: str) -> dict:
    return page.locator(selector).first.evaluate(BOX)


def in_view(page, selector: str) -> bool:
    b, height = box(page, selector), page.evaluate("() => innerHeight")
    return b["bottom"] > 0 and b["top"] < height


def test_on_a_laptop_the_controls_stay_beside_the_charts_and_the_slider_answers_keys(site):
    page = site.page(make_user("asha"), width=WIDE)
    open_lab(page, site, "drain")
    form, results = box(page, "form.lab-form"), box(page, ".lab-panel .results")
    assert form["right"] <= results["left"], (form, results)  # side by side, no overlap
    assert results["top"] < form["bottom"]

    slider = page.locator("input.slider[data-for=id_per_worker]")
    assert slider.is_visible()
    assert slider.get_attribute("aria-valuetext") == "100 jobs/s"
    slider.focus()
    page.keyboard.press("ArrowRight")
    assert page.input_value("#id_per_worker") == "110"  # the next value on a log track
    skip_if_asked(page)  # the first move asks for the guess, the focus on it (predict.js)
    slider.focus()
    page.keyboard.press("End")
    assert page.input_value("#id_per_worker") == "10000"
    page.keyboard.press("Home")
    assert page.input_value("#id_per_worker") == "1"
    assert slider.get_attribute("aria-valuetext") == "1 jobs/s"
    page.fill("#id_per_worker", "100")  # the box moves the slider back to the lesson's mark
    lesson = slider.evaluate("s => s.value")
    mark = page.locator(".field:has(#id_per_worker) .track").evaluate(
        "t => t.style.getPropertyValue('--mark-at')"
    )
    assert abs(float(mark) - int(lesson) / int(slider.get_attribute("max"))) < 0.001

    page.get_by_role("button", name="A spike").click()
    assert page.input_value("#id_arrivals") == "50, 1600, 50, 50, 50, 50, 50, 50, 50, 50"
    page.get_by_role("button", name="The lesson's values").click()

    press_run(page)
    assert wait_finished(page, site) == "succeeded"
    bar = page.locator(".lab-bar .key-figure").inner_text()
    assert bar.split() == ["Peak", "backlog", "800", "jobs"]
    page.mouse.wheel(0, 700)
    page.wait_for_timeout(200)
    # The page scrolled to the second chart; the controls and the bar are still there.
    assert in_view(page, "form.lab-form") and in_view(page, ".lab-bar")
    assert in_view(page, "figure.chart >> nth=1")
    screen_shot(page, f"screen-drain-{WIDE}")
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_on_a_phone_in_marathi_the_bar_with_run_stays_in_reach(site):
    ravi = make_user("ravi")
    Profile.objects.update_or_create(user=ravi, defaults={"language": "mr"})
    page = site.page(ravi, width=PHONE, height=780)
    open_lab(page, site, "trapped-service")
    assert page.evaluate("() => document.documentElement.lang") == "mr"
    form, bar, results = box(page, "form.lab-form"), box(page, ".lab-bar"), box(page, ".results")
    # One column: the stage (the bar, then the main chart), the controls, then the results;
    # the stage sticks at the top, so Run is in reach while the student works down the controls.
    assert form["bottom"] <= results["top"] + 1 and form["right"] <= PHONE
    assert bar["bottom"] <= form["top"] + 1 and bar["top"] >= 0, bar
    # Half-way down the controls the bar (and its Run) sits at the top of the screen.
    page.locator("#id_client_timeout_ms").scroll_into_view_if_needed()
    screen_shot(page, f"screen-controls-{PHONE}-mr")
    assert in_view(page, ".lab-bar")
    assert page.get_by_role("button", name="चालवा", exact=True).is_visible()
    assert page.locator(".field:has(#id_base_rps) input.slider").is_visible()
    page.get_by_role("button", name="चालवा", exact=True).click()
    skip_if_asked(page)
    assert wait_finished(page, site) == "succeeded"
    shot(page, f"layout-trapped-service-{PHONE}-mr")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    drawn = charts(page)
    assert drawn and all(c["drawn"] for c in drawn)
    problems = [p for c in drawn for p in chart_problems(c)]
    assert not problems, "\n".join(problems)
    # The bar holds the run's key figure; scrolled into the results, the stage has left with
    # the controls, and the results have the whole screen.
    assert page.locator(".lab-bar .key-figure strong").inner_text().strip()
    page.locator(".results figure.chart >> nth=1").scroll_into_view_if_needed()
    screen_shot(page, f"screen-charts-{PHONE}-mr")
    assert not in_view(page, ".lab-bar")
    assert not site.seen.errors, "\n".join(site.seen.errors)
