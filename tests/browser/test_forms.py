"""A long form can be put back to the lesson's values in one click."""

from __future__ import annotations

from tests.base import make_user
from tests.browser.pages import open_lab


def test_reset_puts_every_field_back_to_the_lessons_values(site):
    page = site.page(make_user("asha"))
    open_lab(page, site, "trapped-service")
    start = {
        "#id_base_rps": page.input_value("#id_base_rps"),
        "#id_admission_limit": page.is_checked("#id_admission_limit"),
        "#id_discipline": page.input_value("#id_discipline"),
    }
    # "Service" is folded in a long form: open it as a student would.
    page.locator("details.group:has(#id_discipline) > summary").click()
    page.fill("#id_base_rps", "12")
    page.set_checked("#id_admission_limit", not start["#id_admission_limit"])
    page.select_option("#id_discipline", index=1)
    assert page.input_value("#id_base_rps") == "12"

    page.get_by_role("button", name="Reset to the lesson's values").click()
    assert page.input_value("#id_base_rps") == start["#id_base_rps"] == "80"
    assert page.is_checked("#id_admission_limit") == start["#id_admission_limit"]
    assert page.input_value("#id_discipline") == start["#id_discipline"]
    assert not site.seen.errors, "\n".join(site.seen.errors)


def test_a_short_form_has_no_reset_button(site):
    page = site.page(make_user("asha"))
    open_lab(page, site, "drain")
    assert page.get_by_role("button", name="Reset to the lesson's values").count() == 0
