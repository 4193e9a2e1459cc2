"""No Python value words on a page: `None`, `nan`, `True`, `False` never reach a student, nor a
whole number written "200.0".

Every lab's finished run page, its numbers table and its compare page are read, in both
languages, as the words a person sees (scripts' JSON and tag attributes left out)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse
from django.utils import translation

from labs.catalogue.entries import LABS
from labs.runs.models import Run
from tests.base import stored_experiment_run
from tests.lab_helpers import default_result

SKIPPED = ("script", "style", "pre", "code")
# ...and a whole number written as Python's float prints it ("200.0"): labs.text.num says 200.
PYTHON_WORDS = re.compile(
    r"(?<![\w.-])(None|nan|NaN|True|False|inf)(?![\w-])|(?<![\d.,])\d[\d,]*\.0(?![\d.%])"
)


class Visible(HTMLParser):
    """The text of a page outside <script> and <style>, and outside code shown as code
    (a production snippet in <pre> is Python on purpose)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED:
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in SKIPPED:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def python_words(html: str) -> list[str]:
    reader = Visible()
    reader.feed(html)
    text = " ".join(reader.parts)
    return [text[max(0, m.start() - 60) : m.end() + 20] for m in PYTHON_WORDS.finditer(text)]


def finished(owner, slug: str) -> Run:
    lab = next(entry for entry in LABS if entry.slug == slug)
    if lab.kind == "experiment":
        return stored_experiment_run(owner, slug)
    result = default_result(slug)
    return Run.objects.create(
        owner=owner,
        lab=slug,
        params=result["params"],
        seed=result["seed"],
        status="succeeded",
        result=result,
    )


def test_the_guard_catches_python_words():
    assert len(python_words("<td>None</td><td>nan</td><p>recovered: False</p>")) == 3
    assert python_words('<script>{"a": null, "b": true}</script><td>—</td>') == []
    assert python_words("<p>a non-None word, True-ish</p><pre>acks_late = True</pre>") == []
    assert len(python_words("<p>waited 2.0 s; 1,200.0 jobs</p>")) == 2
    assert python_words("<p>2.05 s, 10 s, 99.0% (a percentage keeps its place)</p>") == []


@pytest.mark.parametrize("slug", [lab.slug for lab in LABS])
def test_no_page_of_a_run_shows_python_values(client, people, slug):
    client.force_login(people.alice)
    a, b = finished(people.alice, slug), finished(people.alice, slug)
    pages = {
        "run": a.get_absolute_url(),
        "numbers": reverse("run-numbers", args=[a.id]),
        "compare": f"{reverse('run-compare')}?run={a.id}&run={b.id}",
    }
    found = {}
    for language in ("en", "mr"):
        client.cookies["django_language"] = language
        with translation.override(language):
            for name, url in pages.items():
                response = client.get(url)
                assert response.status_code == 200, (name, response.status_code)
                words = python_words(response.content.decode())
                if words:
                    found[f"{language} {name}"] = words[:3]
    assert not found, found


def test_a_compare_legend_names_a_run_by_whose_and_when_not_by_its_id(people):
    from labs.web.compare import run_label

    run = finished(people.alice, "drain")
    label = run_label(run, "B")
    assert str(run.pk)[:8] not in label
    assert re.fullmatch(r"B: alice \d\d:\d\d:\d\d", label), label


def test_a_refusal_says_whole_numbers_without_a_trailing_point_zero():
    from labs.course.lesson_07.fanout_live import run as fanout_live
    from labs.course.lesson_12.burst_live import run as burst_live

    fanout = {"jobs": 2000, "workers": 1, "rate_per_worker": 5, "crashes": 0}
    assert "400 s" in fanout_live.check(fanout)["jobs"]
    params = next(lab for lab in LABS if lab.slug == "burst-live").defaults()
    words = " ".join(burst_live.check(params | {"lesson_second_s": 5.0}).values())
    assert "take 62 s" in words and not re.search(r"\d\.0\b", words), words
