"""A student's whole visit: log in, run a lab twice, name the runs, compare them, export."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from tests.base import PASSWORD, make_user
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.pages import permalink, press_run, wait_charts_drawn, wait_finished


def log_in(page, site, username: str, next_path: str) -> None:
    page.goto(f"{site.url}/accounts/login/?next={next_path}")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{site.url}{next_path}")


def run_and_name(page, site, name: str) -> str:
    """Run the lab on the page, open the run, give it a name; the run's address."""
    press_run(page)
    assert wait_finished(page, site) == "succeeded"
    page.goto(permalink(page))
    page.fill("#id_name", name)
    page.get_by_role("button", name="Save name and note").click()
    page.locator("#run-label .muted", has_text="Saved.").wait_for()
    page.reload()
    assert page.locator("h1").inner_text().startswith(name)
    return page.url


def download(page, link_text: str) -> tuple[str, bytes]:
    with page.expect_download() as info:
        page.get_by_role("link", name=link_text).click()
    d = info.value
    return d.suggested_filename, Path(d.path()).read_bytes()


def test_a_student_logs_in_runs_names_compares_and_exports(site):
    make_user("asha")
    page = site.page(width=WIDE)
    log_in(page, site, "asha", "/labs/drain/")

    first = run_and_name(page, site, "scaled on backlog")
    page.goto(f"{site.url}/labs/drain/")
    page.select_option("#id_rule", "fixed")
    page.fill("#id_fixed_workers", "3")
    second = run_and_name(page, site, "three fixed workers")

    page.goto(f"{site.url}/runs/?lab=drain")
    for row in ("scaled on backlog", "three fixed workers"):
        page.locator("tr", has_text=row).get_by_role("checkbox").check()
    page.get_by_role("button", name="Compare the two ticked runs").click()
    page.locator("#comparison .verdict").wait_for()
    wait_charts_drawn(page)
    assert "Different results" in page.locator("#comparison .verdict").inner_text()
    # Not by colour alone: each differing figure says so in words.
    differs = page.locator("tr.differs")
    assert differs.count() >= 1
    labels = differs.locator("td:first-child").all_inner_texts()
    assert all(text.startswith("Differs:") for text in labels), labels
    shot(page, f"compare-{WIDE}")
    page.set_viewport_size({"width": PHONE, "height": 800})
    shot(page, f"compare-{PHONE}")

    page.goto(second)
    name, body = download(page, "CSV of the time series")
    assert name.endswith(".csv")
    rows = list(csv.reader(io.StringIO(body.decode())))
    assert rows[0][0] == "second" and len(rows) == 11  # a header, then seconds 0..9

    name, body = download(page, "JSON")
    assert name.endswith(".json")
    saved = json.loads(body)
    assert saved["name"] == "three fixed workers"
    assert saved["params"]["rule"] == "fixed" and saved["status"] == "succeeded"
    assert first != second
    assert not site.seen.errors, "\n".join(site.seen.errors)
