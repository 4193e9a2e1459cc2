"""The capstone assignment's own page: Run before/after with locked presets, and the hand-in
pickers that start on the pair's two halves."""

from __future__ import annotations

import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from labs.capstone.pairs import CONTROLS_OFF
from labs.runs.models import Run
from labs.sim.capstone import RECOMMENDED_CONTROLS
from teaching.models import Assignment, Membership
from tests.base import DUE, finished_run

HX = {"HTTP_HX_REQUEST": "true"}
LOCKED = {"trigger_start_s": 40, "trigger_end_s": 90, "spike_rps": 120}
SHORT = {"horizon_s": 120, "recover_at_s": 100}


@pytest.fixture
def capstone(school, frozen):
    frozen(DUE - timedelta(days=1))
    return Assignment.objects.create(
        classroom=school.class_a,
        title="Free the trapped service",
        lab="trapped-service",
        handin="pair",
        presets=dict(LOCKED),
        locked=list(LOCKED),
        due_at=DUE,
    )


class FormReader(HTMLParser):
    """What a browser would post from the lab panel's form: every named input that is not
    disabled (a checkbox or radio only when checked), and each select's chosen option."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[dict] = []
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._in_form = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and "lab-form" in (a.get("class") or ""):
            self._in_form = True
        if not self._in_form:
            return
        if tag == "input":
            self.inputs.append(a)
            sent = a.get("type") not in ("checkbox", "radio") or "checked" in a
            if a.get("name") and "disabled" not in a and sent:
                # As a browser: an empty box or the prediction's "none" radio sends "".
                box = a.get("type") == "checkbox"
                self.data[a["name"]] = (a.get("value") or "on") if box else a.get("value", "")
        elif tag == "select" and "disabled" not in a:
            self._select = a.get("name")
        elif tag == "option" and self._select and self._choose(a):
            self.data[self._select] = a.get("value", "")

    def _choose(self, option: dict) -> bool:
        """A select sends its selected option, else its first."""
        return "selected" in option or self._select not in self.data

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        if tag == "form":
            self._in_form = False


def posted(html: str) -> FormReader:
    reader = FormReader()
    reader.feed(html)
    return reader


def test_locked_fields_are_read_only_and_sent_not_disabled(client, school, capstone):
    client.force_login(school.alice)
    page = client.get(capstone.get_absolute_url()).content.decode()
    reader = posted(page)
    for name, value in LOCKED.items():
        shown = [i for i in reader.inputs if i.get("id") == f"id_{name}"]
        assert shown and "readonly" in shown[0] and "disabled" not in shown[0], shown
        assert reader.data[name] == str(value)
    assert f'formaction="{reverse("assignment-pair", args=[capstone.pk])}"' in page


def test_run_before_after_on_the_assignment_keeps_its_locked_presets(
    client, school, capstone, published, django_capture_on_commit_callbacks
):
    client.force_login(school.alice)
    data = posted(client.get(capstone.get_absolute_url()).content.decode()).data
    data |= {"seed": "5", "spike_rps": "999"}  # a typed value for a locked field is ignored
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("assignment-pair", args=[capstone.pk]), data, **HX)
    assert response.status_code == 204, response.content.decode()[:2000]
    before, after = Run.objects.order_by("created_at")
    assert response["HX-Redirect"] == (
        f"{reverse('report', args=[before.id, after.id])}?back=%2Fassignments%2F{capstone.pk}%2F"
    )
    for run in (before, after):
        assert {k: run.params[k] for k in LOCKED} == LOCKED and run.seed == 5
    assert all(before.params[k] == v for k, v in CONTROLS_OFF.items())
    assert all(after.params[k] == v for k, v in RECOMMENDED_CONTROLS.items())


def test_a_wrong_pair_comes_back_as_the_assignments_panel(client, school, capstone, published):
    client.force_login(school.alice)
    data = posted(client.get(capstone.get_absolute_url()).content.decode()).data
    data["recover_at_s"] = "nonsense"
    response = client.post(reverse("assignment-pair", args=[capstone.pk]), data, **HX)
    assert response.status_code == 422
    body = response.content.decode()
    assert f'hx-post="{reverse("assignment-run", args=[capstone.pk])}"' in body
    assert 'readonly aria-readonly="true"' in body and "This field is required" not in body
    assert not Run.objects.exists()


def test_the_report_links_back_to_the_assignment_only_on_this_site(client, school, capstone):
    client.force_login(school.alice)
    before = finished_run(school.alice, lab="trapped-service", seed=5, **SHORT, **CONTROLS_OFF)
    after = finished_run(school.alice, lab="trapped-service", seed=5, **SHORT)
    url = reverse("report", args=[before.id, after.id])
    page = client.get(f"{url}?back={capstone.get_absolute_url()}").content.decode()
    assert f'href="{capstone.get_absolute_url()}"' in page
    for outside in ("https://example.com/", "//example.com/x"):
        page = client.get(f"{url}?back={outside}").content.decode()
        assert f'href="{outside}"' not in page and "Back to the assignment" not in page


def options(page: str, select_id: str) -> list[tuple[str, bool, str]]:
    block = re.search(rf'<select[^>]*id="{select_id}"[^>]*>(.*?)</select>', page, re.S)
    assert block, select_id
    found = re.findall(r'<option value="([^"]+)"( selected)?>([^<]*)</option>', block.group(1))
    return [(value, bool(selected), label) for value, selected, label in found]


def test_the_pickers_start_on_the_pair_and_say_which_had_the_controls(client, school, capstone):
    frozen_runs = [
        finished_run(
            school.alice, lab="trapped-service", seed=5, **LOCKED, **SHORT, **CONTROLS_OFF
        ),
        finished_run(
            school.alice, lab="trapped-service", seed=5, **LOCKED, **SHORT, **RECOMMENDED_CONTROLS
        ),
    ]
    Run.objects.filter(pk=frozen_runs[1].pk).update(
        created_at=frozen_runs[0].created_at + timedelta(seconds=1)
    )
    before, after = frozen_runs
    client.force_login(school.alice)
    page = client.get(capstone.get_absolute_url()).content.decode()
    chosen_before = [v for v, selected, _ in options(page, "handin-before") if selected]
    chosen_after = [v for v, selected, _ in options(page, "handin-after") if selected]
    assert chosen_before == [str(before.id)] and chosen_after == [str(after.id)]
    labels = {v: label for v, _, label in options(page, "handin-after")}
    assert labels[str(before.id)].endswith("controls off")
    assert "controls on: " in labels[str(after.id)]
    # First the report (the analysis), then the hand-in button.
    form = page[page.index('class="pair-handin"') :]
    assert form.index("write your analysis") < form.index('<button type="submit">')
    assert reverse("report", args=[before.id, after.id]) in form


def test_the_defaults_hand_in_once_the_analysis_is_written(client, school, capstone):
    from labs.capstone.analysis import Analysis

    before = finished_run(
        school.alice, lab="trapped-service", seed=5, **LOCKED, **SHORT, **CONTROLS_OFF
    )
    after = finished_run(
        school.alice, lab="trapped-service", seed=5, **LOCKED, **SHORT, **RECOMMENDED_CONTROLS
    )
    Analysis.objects.create(owner=school.alice, before=before, after=after, loop="Retries.")
    assert Membership.objects.filter(student=school.alice, classroom=capstone.classroom).exists()
    client.force_login(school.alice)
    page = client.get(capstone.get_absolute_url()).content.decode()
    data = {
        "before": next(v for v, s, _ in options(page, "handin-before") if s),
        "run": next(v for v, s, _ in options(page, "handin-after") if s),
    }
    response = client.post(reverse("assignment-submit", args=[capstone.pk]), data)
    assert response.status_code == 302, response.content.decode()[-3000:]
    submission = capstone.submissions.get()
    assert (submission.before_run_id, submission.run_id) == (before.id, after.id)


def test_the_pickers_reach_older_runs_page_by_page_and_by_seed(client, school, capstone):
    """Never more than 20 runs in a list, yet a pair made 25 runs ago can be handed in:
    found on the older page, or by its seed."""
    from datetime import timedelta as later

    from django.utils import timezone

    Membership.objects.get_or_create(classroom=school.class_a, student=school.alice)
    old_before = finished_run(school.alice, lab="trapped-service", seed=7, **LOCKED, **SHORT)
    old_after = finished_run(
        school.alice, lab="trapped-service", seed=7, **LOCKED, **SHORT, **RECOMMENDED_CONTROLS
    )
    start = timezone.now()
    Run.objects.filter(pk__in=[old_before.pk, old_after.pk]).update(
        created_at=start - later(days=2)
    )
    template = Run.objects.get(pk=old_before.pk)
    Run.objects.bulk_create(
        Run(owner=school.alice, lab="trapped-service", params=template.params, seed=100 + n,
            status="succeeded", result=template.result, created_at=start - later(minutes=n))
        for n in range(25)
    )  # fmt: skip
    client.force_login(school.alice)
    where = reverse("assignment-detail", args=[capstone.pk])

    def picker(html: str) -> list[str]:
        chosen = html.split('id="handin-before"')[1].split("</select>")[0]
        return re.findall(r'value="([^"]+)"', chosen)

    newest = client.get(where).content.decode()
    assert len(picker(newest)) == 20 and str(old_before.pk) not in newest
    assert "?page=2#your-runs" in newest
    second = client.get(where, {"page": 2}).content.decode()
    assert str(old_before.pk) in picker(second) and str(old_after.pk) in picker(second)
    assert "Newer runs" in second and "Older runs" not in second
    by_seed = client.get(where, {"seed": 7}).content.decode()
    assert sorted(picker(by_seed)) == sorted([str(old_before.pk), str(old_after.pk)])
    bad = client.get(where, {"seed": "seven"})
    assert bad.status_code == 200 and "Enter a whole number." in bad.content.decode()
    assert len(picker(bad.content.decode())) == 20  # the newest page, the filter said why
