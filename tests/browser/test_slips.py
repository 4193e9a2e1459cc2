"""Login slips on screen: every slip's words stay inside its box (the username and the
password once spilled 119-146 px onto the next slip), at 1280 and 390 px, both languages."""

from __future__ import annotations

import pytest

from tests.base import make_school
from tests.browser.conftest import PHONE, WIDE, shot

# Long names and usernames (30 characters, the most a made one has), and a Devanagari name.
ROSTER = "\n".join(
    [
        "Bhagyashree Venkataraghavan, bhagyashree.venkataraghavan",
        "भक्ती चव्हाण",
        "Harshada Joshi-Kulkarni-Deshpande, harshada.joshikulkarnidesh",
        "Zoya Ali",
    ]
)
# Each slip's boxes that end right of the slip's inner edge, or text wider than its box.
SPILLS_JS = """() => {
  const out = [];
  for (const slip of document.querySelectorAll('li.slip')) {
    const box = slip.getBoundingClientRect();
    const pad = parseFloat(getComputedStyle(slip).paddingRight);
    for (const el of slip.querySelectorAll('p, dt, dd, code')) {
      const r = el.getBoundingClientRect();
      const what = `${el.tagName} "${el.textContent.trim().slice(0, 30)}"`;
      const past = Math.round(r.right - box.right + pad);
      if (r.right > box.right - pad + 1 || r.left < box.left - 1)
        out.push(`${what} ends ${past} px past its slip`);
      if (el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'CODE')
        out.push(`${what} is ${el.scrollWidth} px in ${el.clientWidth}`);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("language", ["en", "mr"])
def test_every_slip_keeps_its_words_inside_its_box(site, language):
    school = make_school()
    page = site.page(school.teacher, width=WIDE)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
    page.goto(f"{site.url}/classes/{school.class_a.pk}/accounts/")
    page.locator("textarea[name=text]").fill(ROSTER)
    page.locator("form[action$='/roster/'] button[type=submit]").click()
    page.locator("li.slip").nth(3).wait_for()
    for width in (WIDE, PHONE):
        page.set_viewport_size({"width": width, "height": 900})
        spills = page.evaluate(SPILLS_JS)
        assert not spills, f"{width} px, {language}: {spills}"
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        shot(page, f"slips-{language}-{width}")
