"""What a slow school link waits for, seen in the browser's own network log: an English page
never fetches the 50 KB Devanagari font (the language switch's "मराठी" comes from a 1 KB
subset), a Marathi page does; a lab page fetches plotly.js in idle time, before any chart;
until plotly.js has drawn it, a chart's place has the chart's height and says "Chart
loading" in the page's language; and a phone's run page, its charts screens below, fetches
plotly.js without running it until a chart comes near. The timings are `bench/school_link.py`'s."""

from __future__ import annotations

from tests.base import finished_run, make_user
from tests.browser.conftest import PHONE
from tests.browser.pages import wait_charts_drawn

FULL_FONT = "noto-sans-devanagari-devanagari-"  # the 400 and 700 faces, 50 KB each
SWITCH_FONT = "noto-sans-devanagari-marathi-word-400"
PLOTLY = "/static/vendor/plotly-lab-"
WAITING_JS = """() => Array.from(document.querySelectorAll("figure.chart")).map((f) => {
  const plot = f.querySelector(".plot");
  const fig = JSON.parse(f.querySelector("script[type='application/json']").textContent);
  return {words: plot.innerText.trim(), height: plot.getBoundingClientRect().height,
          want: (fig.layout && fig.layout.height) || 450, drawn: f.classList.contains("drawn")};
})"""


FETCHED_JS = f"""() => performance.getEntriesByType("resource")
  .some((e) => e.name.includes("{PLOTLY}") && e.responseEnd > 0)"""


def fonts_drawing(page, selector: str) -> list[dict]:
    """The fonts Chromium drew an element's text with (custom: a web font)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    return cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]


def test_fonts_plotly_and_the_chart_placeholder_on_a_slow_link(site):
    asha = make_user("asha")
    run = finished_run(asha, lab="drain")

    # English lab page: no Devanagari font but the switch's word; plotly.js in idle time.
    page = site.page(asha, width=PHONE)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{site.url}/labs/drain/")
    page.wait_for_function("() => !!window.Plotly")  # no chart on the page yet
    assert page.locator("figure.chart").count() == 0
    assert any(PLOTLY in url for url in asked)
    assert not [url for url in asked if FULL_FONT in url], asked
    assert [url for url in asked if SWITCH_FONT in url], asked
    (drawn,) = fonts_drawing(page, '.lang-switch button[lang="mr"]')
    assert drawn["isCustomFont"] and drawn["glyphCount"] >= 5, drawn

    # Marathi run page, plotly.js held back: each chart's place says so, at its height.
    held = []
    page.context.add_cookies([{"name": "django_language", "value": "mr", "url": site.url}])
    page.route(f"**{PLOTLY}*", lambda route: held.append(route))
    asked.clear()
    page.goto(f"{site.url}{run.get_absolute_url()}", wait_until="domcontentloaded")
    page.wait_for_function("() => !!document.querySelector('.chart-wait')")
    page.evaluate("() => document.fonts.ready.then(() => true)")  # titles wrap in its fonts
    waiting = page.evaluate(WAITING_JS)
    assert waiting and all(c["words"] == "आलेख येत आहे…" and not c["drawn"] for c in waiting)
    # At least the figure's height: more by a line for each its title wraps into on a phone.
    assert all(c["height"] >= c["want"] - 2 for c in waiting), waiting
    assert [url for url in asked if FULL_FONT in url], asked
    for _ in range(200):  # the held request reaches its handler during a page call
        if held:
            break
        page.wait_for_timeout(50)
    assert held
    for route in held:
        route.continue_()
    wait_charts_drawn(page)
    assert page.locator(".chart-wait").count() == 0
    drawn = page.evaluate(WAITING_JS)  # each chart took the place it held: nothing moved
    assert [round(c["height"]) for c in drawn] == [round(c["height"]) for c in waiting]
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_a_phone_runs_plotly_and_draws_a_chart_only_as_it_comes_near(site):
    asha = make_user("asha")
    run = finished_run(asha, lab="trapped-service")  # four charts, screens down on a phone
    page = site.page(asha, width=PHONE, height=800)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{site.url}{run.get_absolute_url()}")
    page.wait_for_function(FETCHED_JS)
    # The result's first chart is on the first screen (issue 34: the chart before the
    # words), so it is drawn at once; plotly.js is fetched once, and the charts screens
    # below wait, each holding the height it will be drawn at.
    page.locator("figure.chart.drawn").first.wait_for()
    assert len([url for url in asked if PLOTLY in url]) == 1
    before = page.evaluate(WAITING_JS)
    waiting = [i for i, chart in enumerate(before) if not chart["drawn"]]
    assert waiting, "every chart was drawn at load, screens below included"
    last = page.locator("figure.chart").last
    last.scroll_into_view_if_needed()
    last.locator(".main-svg").first.wait_for()
    wait_charts_drawn(page)
    # Each chart took the place it held: nothing below it moved.
    after = page.evaluate(WAITING_JS)
    assert [round(after[i]["height"]) for i in waiting] == [
        round(before[i]["height"]) for i in waiting
    ]
    assert not site.seen.errors, "\n".join(site.seen.errors)
