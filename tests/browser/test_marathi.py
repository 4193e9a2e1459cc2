"""A student and a teacher who picked मराठी read every page in Marathi, on a 390 px phone.

One crawl of the whole site (home, units, every lab, a finished run of every lab, the run
history, compare, the report, the assignment and hand-in, the gradebook, the accounts pages,
a 404), each page read as it is drawn: it fails when a page shows an English UI phrase (the
catalogue's own msgids, and a list of known ones), is wider than the phone, or draws Marathi
in a font with no Devanagari (empty boxes where the device has no such font). The runs are
made in the test (no worker), so the crawl sees the same pages every time.

With CRAWL_REPORT=path it also writes, per page, every run of Latin-script words that is not
a technical word: the list a translator works through (the test does not judge those).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from labs.capstone.pairs import pair_params
from labs.catalogue.entries import LABS, get_lab
from labs.catalogue.units import UNITS
from labs.runs import retained_queue
from tests.base import DUE, finished_run, make_user, stored_experiment_run
from tests.browser.conftest import PHONE, chromium_path, shot
from tests.browser.crawl import Crawled, latin_runs, read
from tests.browser.pages import skip_if_asked, wait_charts_drawn
from tests.live_helpers import keep_parked

REPORT = os.environ.get("CRAWL_REPORT", "")
# Words the crawl's own people typed (their usernames, a criterion sent wrong on purpose):
# shown as typed, so not English left untranslated.
TYPED = frozenset({"asha", "tara", "many"})
# Pages read on a wide screen too, where each chart has Plotly's toolbar (its buttons' labels
# are what a screen reader says): the labs the issue re-reads, and a real-queue experiment.
WIDE = 1280
WIDE_PAGES = (
    "breaker",
    "degradation",
    "trapped-service",
    "phase-map",
    "poison-live",
    "trapped-live",
)
# Finished experiments whose result page shows the queue panel (a kept dead-letter queue).
RETAINED_QUEUES = ("poison-live", "retries-live")
PARKED = ["pdf-3", "pdf-5", "pdf-7"]


@pytest.fixture
def phone_browser(orm_beside_playwright, live_server, transactional_db):
    """Chromium on the live server, no worker: every run the crawl opens is already finished."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path(),
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser, live_server.url
        browser.close()


def in_marathi(user) -> None:
    from accounts.models import Profile

    Profile.objects.update_or_create(user=user, defaults={"language": "mr"})


def build_school():
    """A teacher, a student in her class with an assignment handed in, and a finished run of
    every lab; the addresses the crawl visits, by name, for each of them."""
    from labs.runs.models import Run
    from teaching.models import Assignment, Classroom, Membership, Submission

    tara = make_user("tara", teacher=True)
    asha = make_user("asha")
    in_marathi(tara)
    in_marathi(asha)
    classroom = Classroom.objects.create(name="९ ब", teacher=tara, join_code="MARA2222")
    Membership.objects.create(classroom=classroom, student=asha)
    assignment = Assignment.objects.create(
        classroom=classroom,
        title="रांग वेळेत रिकामी करा",
        lab="drain",
        instructions="कमी worker-सेकंदात रांग रिकामी करा.",
        presets={"per_worker": 100},
        locked=["per_worker"],
        criteria=[{"figure": "left_at_end", "op": "==", "value": 0}],
        due_at=DUE,
    )
    runs = {}
    for lab in LABS:
        if lab.kind == "sim":
            runs[lab.slug] = finished_run(asha, lab=lab.slug, seed=lab.default_seed)
        else:
            runs[lab.slug] = stored_experiment_run(asha, lab.slug)
    live = {
        slug: stored_experiment_run(asha, slug, running=True)
        for slug in runs
        if get_lab(slug).kind == "experiment"
    }
    for slug in RETAINED_QUEUES:
        keep_parked(runs[slug].pk, PARKED)
    waiting = Run.objects.create(owner=asha, lab="drain", params={}, seed=1)
    timed_out = Run.objects.create(
        owner=asha,
        lab="drain",
        params={},
        seed=1,
        status="failed",
        error="The run took longer",
        error_code="time_limit",
        error_args={"limit_s": 60},
    )
    second_drain = finished_run(asha, lab="drain", seed=3, per_worker=150)
    handed = Submission.objects.create(assignment=assignment, student=asha, run=runs["drain"])
    before_params, after_params = pair_params(get_lab("trapped-service").defaults())
    before = finished_run(asha, lab="trapped-service", **before_params)
    after = finished_run(asha, lab="trapped-service", **after_params)

    student = [("home", "/"), ("runs", "/runs/")]
    student += [(f"unit {u.slug}", f"/units/{u.slug}/") for u in UNITS]
    student += [(f"lab {lab.slug}", f"/labs/{lab.slug}/") for lab in LABS]
    student += [
        (f"run {slug}", f"/runs/{run.id}/", *([dlq_shown] if slug in RETAINED_QUEUES else []))
        for slug, run in runs.items()
    ]
    student += [(f"live {slug}", f"/runs/{run.id}/") for slug, run in live.items()]
    student += [
        ("run waiting", f"/runs/{waiting.id}/"),
        ("run failed", f"/runs/{timed_out.id}/"),
        ("run numbers", f"/runs/{runs['drain'].id}/numbers/"),
        ("compare", f"/runs/compare/?run={runs['drain'].id}&run={second_drain.id}"),
        ("obligations", f"/runs/{runs['trapped-live'].id}/obligations/"),
        ("report pick", "/reports/"),
        ("report", f"/reports/{before.id}/{after.id}/"),
        ("classes", "/classes/"),
        ("assignment", f"/assignments/{assignment.id}/"),
        ("submission", f"/submissions/{handed.id}/"),
        ("password change", "/accounts/password_change/"),
        ("password change refused", "/accounts/password_change/", short_password),
        ("404", "/no-such-page/"),
        ("lab bad input", "/labs/drain/", refused_input),
        ("self-check unanswered", "/units/lesson-07/", unanswered_selfcheck),
    ]
    teacher = [
        ("classes", "/classes/"),
        ("class", f"/classes/{classroom.id}/"),
        ("new assignment", f"/classes/{classroom.id}/assignments/new/"),
        ("new assignment drain", f"/classes/{classroom.id}/assignments/new/?lab=drain"),
        ("assignment", f"/assignments/{assignment.id}/"),
        ("assignment edit", f"/assignments/{assignment.id}/edit/"),
        ("assignment edit refused", f"/assignments/{assignment.id}/edit/", bad_criteria),
        ("submission", f"/submissions/{handed.id}/"),
        ("gradebook", f"/classes/{classroom.id}/gradebook/"),
        ("accounts", f"/classes/{classroom.id}/accounts/"),
        ("runs", "/runs/"),
    ]
    visitor = [
        ("login", "/accounts/login/"),
        ("login refused", "/accounts/login/", wrong_password),
        ("signup", "/accounts/signup/"),
    ]
    return {
        "student": (asha, student),
        "teacher": (tara, teacher),
        "visitor": (None, visitor),
        "runs": runs,
    }


# What the crawl does on a page before reading it: forms sent wrong, so it reads their errors
# too, and the queue panel waited for.


def refused_input(page) -> None:
    """A number far past its field's bound, sent past the browser's own check."""
    form = page.locator("form.lab-form")
    form.evaluate("f => { f.noValidate = true; }")
    form.locator("input[type=number]").first.fill("99999999")
    # Run sits in the bar beside the form (it submits the form by its `form` attribute).
    page.locator(".lab-bar button[type=submit].run").first.click()
    skip_if_asked(page)  # no guess: the lab asks for one first (predict.js)
    page.locator("form.lab-form .error:not([hidden])").first.wait_for()


def unanswered_selfcheck(page) -> None:
    page.locator("#self-check button[type=submit]").click()
    page.locator("#self-check .score").wait_for()


def wrong_password(page) -> None:
    page.fill("#id_username", "asha")
    page.fill("#id_password", "not-her-password")
    page.locator("form.narrow button[type=submit]").click()
    page.locator(".form-errors").wait_for()


def short_password(page) -> None:
    """A new password too short and not repeated the same: Django's own errors."""
    page.fill("#id_old_password", "wrong")
    page.fill("#id_new_password1", "abc")
    page.fill("#id_new_password2", "abd")
    page.locator("form.narrow button[type=submit]").click()
    page.locator(".has-error, .form-errors, .errorlist").first.wait_for()


def bad_criteria(page) -> None:
    """Criteria naming no figure, with no operator and a word for a number."""
    page.fill("#id_criteria_text", "no_such_figure < 3\nleft_at_end\nleft_at_end == many")
    page.locator("form.assignment-form button[type=submit]").click()
    page.locator("form.assignment-form .has-error").first.wait_for()


def dlq_shown(page) -> None:
    """The queue panel with its kept dead-letter queue: the widest part of a result page."""
    page.locator("#queue table.dlq").wait_for()


def crawl(browser, url: str, user, pages) -> list[Crawled]:
    """Open each page on a phone as `user` (or a visitor who chose मराठी), wait for its
    charts, and read it."""
    from django.conf import settings
    from django.test import Client

    context = browser.new_context(viewport={"width": PHONE, "height": 800})
    cookies = [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "mr", "url": url}]
    if user is not None:
        client = Client()
        client.force_login(user)
        session = client.cookies[settings.SESSION_COOKIE_NAME].value
        cookies.append({"name": settings.SESSION_COOKIE_NAME, "value": session, "url": url})
    context.add_cookies(cookies)
    page = context.new_page()
    page.set_default_timeout(30_000)
    seen = []
    for name, path, *actions in pages:
        started = time.monotonic()
        page.goto(url + path)
        page.wait_for_load_state("load")
        for act in actions:
            act(page)
        wait_charts_drawn(page)
        shot(page, f"mr-{user.username if user else 'visitor'}-{name.replace(' ', '-')}")
        seen.append(read(page, name))
        if REPORT:
            print(f"{time.monotonic() - started:5.2f} s  {name}")
    context.close()
    return seen


def wide_charts(browser, url: str, user, runs) -> list[Crawled]:
    """A few result pages at 1280 px, where the charts carry Plotly's toolbar."""
    from django.conf import settings
    from django.test import Client

    context = browser.new_context(viewport={"width": WIDE, "height": 900})
    client = Client()
    client.force_login(user)
    context.add_cookies(
        [
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": "mr", "url": url},
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": url,
            },
        ]
    )
    page = context.new_page()
    seen = []
    for slug in WIDE_PAGES:
        page.goto(f"{url}/runs/{runs[slug].id}/")
        page.locator("figure.chart.drawn .modebar-btn").first.wait_for(state="attached")
        wait_charts_drawn(page)
        shot(page, f"mr-wide-run-{slug}")
        seen.append(read(page, f"run {slug} at {WIDE} px"))
    context.close()
    return seen


def english_runs(crawled: Crawled) -> list[str]:
    """The runs of English words on a page that the glossary does not keep, once each."""
    lines = crawled.text.splitlines()
    return list(dict.fromkeys(run for line in lines for run in latin_runs(line, TYPED)))


def write_report(seen: dict[str, list[Crawled]]) -> None:
    lines = []
    for who, pages in seen.items():
        for crawled in pages:
            lines.append(f"## {who}: {crawled.name} ({crawled.url}) width {crawled.width}")
            for line in dict.fromkeys(crawled.text.splitlines()):
                runs = latin_runs(line, TYPED)
                if runs:
                    lines.append(f"- {' | '.join(runs)}  ⟵  {line.strip()[:160]}")
    Path(REPORT).write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_marathi_reader_sees_no_english_and_no_page_wider_than_a_phone(phone_browser):
    from labs.runs.models import Run

    browser, url = phone_browser
    school = build_school()
    try:
        people = {who: school[who] for who in ("student", "teacher", "visitor")}
        seen = {who: crawl(browser, url, user, pages) for who, (user, pages) in people.items()}
        student, _pages = people["student"]
        seen["student"] += wide_charts(browser, url, student, school["runs"])
    finally:
        for run in Run.objects.filter(lab__in=RETAINED_QUEUES):
            retained_queue.clean_run_keys(run.pk)
    if REPORT:
        write_report(seen)

    english = [
        f"{who} {c.name}: {phrase!r}"
        for who, pages in seen.items()
        for c in pages
        for phrase in c.english
    ]
    english += [
        f"{who} {c.name}: {run!r} (not in docs/glossary-mr.md's kept terms)"
        for who, pages in seen.items()
        for c in pages
        for run in english_runs(c)
    ]
    wide = [
        f"{who} {c.name}: {c.width} px: {'; '.join(c.too_wide)}"
        for who, pages in seen.items()
        for c in pages
        if c.width > PHONE and not c.name.endswith(f"{WIDE} px")
    ]
    boxes = [
        f"{who} {c.name}: {', '.join(c.boxes)}"
        for who, pages in seen.items()
        for c in pages
        if c.boxes
    ]
    drawn_over = [
        f"{who} {c.name}: {problem}"
        for who, pages in seen.items()
        for c in pages
        for problem in c.charts
    ]
    squeezed = [
        f"{who} {c.name}: {', '.join(c.squeezed)}"
        for who, pages in seen.items()
        for c in pages
        if c.squeezed
    ]
    assert not (english or wide or boxes or drawn_over or squeezed), (
        "English on a Marathi page:\n"
        + "\n".join(english)
        + f"\nwider than a {PHONE} px phone:\n"
        + "\n".join(wide)
        + "\nMarathi in a font with no Devanagari (empty boxes):\n"
        + "\n".join(boxes)
        + "\nchart words drawn over each other or cut:\n"
        + "\n".join(drawn_over)
        + "\na run's facts squeezed into a sliver of the phone:\n"
        + "\n".join(squeezed)
    )


def test_every_lab_and_unit_page_fits_a_phone_in_english(phone_browser):
    """The same width check for a visitor reading in English: its words break differently."""
    browser, url = phone_browser
    pages = [("home", "/")] + [(f"unit {u.slug}", f"/units/{u.slug}/") for u in UNITS]
    pages += [(f"lab {lab.slug}", f"/labs/{lab.slug}/") for lab in LABS]
    context = browser.new_context(viewport={"width": PHONE, "height": 800})
    page = context.new_page()
    wide = []
    for name, path in pages:
        page.goto(url + path)
        page.wait_for_load_state("load")
        assert page.evaluate("() => document.documentElement.lang") == "en"
        crawled = read(page, name)
        if crawled.width > PHONE:
            wide.append(f"{name}: {crawled.width} px: {'; '.join(crawled.too_wide)}")
    context.close()
    assert not wide, f"wider than a {PHONE} px phone:\n" + "\n".join(wide)
