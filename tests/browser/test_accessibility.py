"""axe-core on the site's pages, as a student and as a teacher, in English and Marathi, at
1280 px and on a 390 px phone: no critical or serious violation.

axe-core is vendored (tests/browser/vendor/, MPL-2.0, from npm's `axe-core` 4.11.4) and
injected into each page, so nothing is fetched while the tests run. One crawl: one browser
page per person, every address read in both languages at both widths.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.urls import reverse
from django.utils import timezone

from labs.capstone.pairs import CONTROLS_OFF
from labs.catalogue.units import UNITS
from labs.runs.predictions import Prediction
from tests.base import finished_run, make_user
from tests.browser.conftest import PHONE, WIDE
from tests.browser.pages import wait_charts_drawn

AXE = Path(__file__).parent / "vendor" / "axe-core-4.11.4.min.js"
AXE_SOURCE = AXE.read_text()
SEVERE = ("critical", "serious")
RUN_AXE_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations.map((v) => ({id: v.id, impact: v.impact,
    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " " + n.html.slice(0, 90))}));
}"""


def violations(page, url: str | None) -> list[str]:
    if url is not None:
        page.goto(url)
    if page.locator("figure.chart").count():
        wait_charts_drawn(page)
    # Evaluated through the driver, not as a <script>: the site's CSP refuses inline scripts.
    page.evaluate(AXE_SOURCE)
    found = page.evaluate(RUN_AXE_JS)
    return [f"{v['impact']} {v['id']}: {v['nodes']}" for v in found if v["impact"] in SEVERE]


# A self-check's questions, each numbered on its own line: the list's marker sat beside a
# multiple-choice question's first option, with the question above it unnumbered.
NUMBERING_JS = """() => Array.from(document.querySelectorAll("#self-check .questions > li"))
  .map((li, i) => {
    const question = li.querySelector("legend, label");
    const text = (question.textContent || "").trim();
    const marker = getComputedStyle(li).listStyleType;
    return marker === "none" && text.startsWith(`${i + 1}.`) ? "" : `question ${i + 1}: `
      + `marker ${marker}, reads ${JSON.stringify(text.slice(0, 30))}`;
  }).filter(Boolean)"""


# A lesson's diagram keeps its words readable on a phone: every label at least 12 CSS px
# (scaled to the screen's width they were 7-9 px); a narrow screen scrolls it sideways.
DIAGRAM_JS = """() => Array.from(document.querySelectorAll("figure.diagram svg")).flatMap((svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return Array.from(svg.querySelectorAll("text")).map((t) => {
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    const words = JSON.stringify(t.textContent);
    return px >= 11.99 ? "" : `diagram label ${words} is ${px.toFixed(1)} px`;
  }).filter(Boolean).slice(0, 2);
})"""


def numbering(page) -> list[str]:
    """The self-check's questions numbered on their own lines, and the diagrams readable."""
    found = page.evaluate(NUMBERING_JS) + page.evaluate(DIAGRAM_JS)
    return found if page.locator("#self-check .questions > li").count() else ["no self-check"]


# A student reads the grading criteria in words, and the checks' table fits the screen: its
# figure column was cut on a phone, the checks written as code (`peak_backlog < 1000`).
CRITERIA_JS = """() => {
  const table = document.querySelector("#submission .checks");
  if (!table) return ["no checks table"];
  const box = table.closest(".scroll");
  const out = box.scrollWidth > box.clientWidth + 1
    ? [`the checks table is ${box.scrollWidth} px wide in a ${box.clientWidth} px box`] : [];
  document.querySelectorAll(".criteria li, #submission .checks td").forEach((cell) => {
    if (/\\b[a-z]+_[a-z_]+\\b/.test(cell.innerText)) out.push(`code: ${cell.innerText}`);
  });
  return out;
}"""


def criteria_in_words(page) -> list[str]:
    return page.evaluate(CRITERIA_JS)


def crawl(site, page, paths: list[str], also: dict | None = None) -> list[str]:
    """axe on every path in both languages at both widths; `also` maps a path to more
    checks of that page, read off the same load."""
    problems = []
    for language in ("en", "mr"):
        page.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
        for width in (WIDE, PHONE):
            page.set_viewport_size({"width": width, "height": 900})
            for path in paths:
                found = violations(page, site.url + path)
                found += (also or {}).get(path, lambda page: [])(page)
                problems += [f"{language} {width} {path}: {v}" for v in found]
    return problems


def test_no_page_has_a_critical_or_serious_axe_violation(site):
    from teaching.models import Assignment, Classroom, Membership, Submission

    teacher, student = make_user("tara", teacher=True), make_user("asha")
    classroom = Classroom.objects.create(name="9 B", teacher=teacher, join_code="AXE22222")
    Membership.objects.create(classroom=classroom, student=student)
    assignment = Assignment.objects.create(
        classroom=classroom,
        title="Drain the burst",
        lab="drain",
        criteria=[
            {"figure": "peak_backlog", "op": "<", "value": 1000},
            {"figure": "cleared_at_s", "op": "<=", "value": 60},
        ],
        due_at=timezone.now() + timedelta(days=7),
    )
    a, b = finished_run(student, lab="drain"), finished_run(student, lab="drain", seed=3)
    # A guess made before the run: its page shows "Your prediction against the run" too.
    Prediction.objects.create(run=a, figure="peak_backlog", value=300)
    Submission.objects.create(assignment=assignment, student=student, run=a)
    short = {"horizon_s": 120, "recover_at_s": 100}
    before = finished_run(student, lab="trapped-service", seed=5, **short, **CONTROLS_OFF)
    after = finished_run(student, lab="trapped-service", seed=5, **short)
    student_paths = [
        "/",
        # Unit pages link to their labs (they embedded every lab's form, whose ids clashed).
        *[reverse("unit-detail", args=[unit.slug]) for unit in UNITS],
        reverse("lab-detail", args=["drain"]),
        a.get_absolute_url(),
        f"{reverse('run-compare')}?run={a.id}&run={b.id}",
        reverse("my-runs"),
        assignment.get_absolute_url(),
        reverse("class-list"),
        reverse("report", args=[before.id, after.id]),
    ]
    teacher_paths = [
        reverse("class-detail", args=[classroom.pk]),
        reverse("gradebook", args=[classroom.pk]),
        reverse("class-accounts", args=[classroom.pk]),
        f"{reverse('assignment-new', args=[classroom.pk])}?lab=drain",
        assignment.get_absolute_url(),
        reverse("assignment-results", args=[assignment.pk]),
        reverse("assignment-results-projector", args=[assignment.pk]),
    ]
    # axe finds what the issue found: an unnamed select, and the old link colour on grey.
    guard = site.page()
    guard.set_content(
        '<html lang="en"><title>t</title><main><select><option>a</option></select>'
        '<p style="background:#f6f8fa"><a href="#" style="color:#1f6feb">link</a></p></main>'
    )
    found = " ".join(violations(guard, None))
    assert "critical select-name" in found and "serious color-contrast" in found, found
    also = {reverse("unit-detail", args=[unit.slug]): numbering for unit in UNITS}
    also[assignment.get_absolute_url()] = criteria_in_words
    paths = sorted(set(student_paths), key=student_paths.index)
    problems = crawl(site, site.page(student), paths, also=also)
    problems += crawl(site, site.page(teacher), teacher_paths)
    assert not problems, "\n".join(problems)
