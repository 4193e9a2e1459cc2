"""What an assignment asked (predictions, challenges, self-check, rubric) is in every export:
the class results page and its CSV agree cell by cell (and the comparison fails on a
planted omission), and the JSON, the gradebook CSV, the term-end zip and the teacher's
page of one hand-in each carry it. A guess given after a result for the same values had
been shown is marked so in each of them and never counted right, as on the run's page."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from html.parser import HTMLParser
from urllib.parse import urlparse

import pytest
from django.urls import reverse
from django.utils import timezone

from labs.runs.predictions import record_shown, save_predictions
from lessons.models import Attempt
from teaching.models import Membership, Submission
from tests.base import DUE, finished_run, make_user

CHALLENGES = ["drain-fewest-workers", "drain-by-five"]
RUBRIC = [{"item": "Explains the backlog", "max": 5}, {"item": "Names the fix", "max": 3}]


@pytest.fixture
def asked(school):
    """Class A's assignment asks for a prediction, two challenges, a self-check and a rubric.
    alice predicts (a peak of 300), meets one challenge with a run of her own, tries the
    self-check and is scored; carl hands in with no prediction; dina hands in nothing."""
    a = school.assignment_a
    a.challenges, a.selfcheck, a.rubric = CHALLENGES, "lesson-12", RUBRIC
    a.save()
    carl, dina = make_user("carl"), make_user("dina")
    for student in (carl, dina):
        Membership.objects.create(classroom=school.class_a, student=student)
    run = finished_run(school.alice, **a.presets)
    save_predictions(run, {"peak_backlog": 300})
    sub = Submission.objects.create(assignment=a, student=school.alice, run=run, submitted_at=DUE)
    sub.scores, sub.feedback, sub.feedback_at = (
        {"Explains the backlog": 4, "Names the fix": 2.5},
        "good",
        timezone.now(),
    )
    sub.save()
    school.met_run = finished_run(school.alice, lab="drain", max_workers=4)  # meets the first
    Attempt.objects.create(student=school.alice, unit="lesson-12", right=3, total=4)
    Submission.objects.create(
        assignment=a, student=carl, run=finished_run(carl, **a.presets), submitted_at=DUE
    )
    school.submission = sub
    return school


class Table(HTMLParser):
    """The cells of the page's table `id`, keyed by each row's first cell: (column, text,
    href) per cell, column from the header's data-col."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.id, self.inside, self.columns = table_id, False, []
        self.rows: dict[str, list[tuple[str | None, str, str | None]]] = {}
        self.cell: list[str] | None = None
        self.cell_col: str | None = None
        self.href: str | None = None
        self.row: list = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and attrs.get("id") == self.id:
            self.inside = True
        if not self.inside:
            return
        if tag in ("td", "th"):
            self.cell, self.cell_col, self.href = [], attrs.get("data-col"), None
        if tag == "a" and self.cell is not None:
            self.href = attrs.get("href")

    def handle_endtag(self, tag):
        if not self.inside:
            return
        if tag in ("td", "th") and self.cell is not None:
            self.row.append((self.cell_col, "".join(self.cell).strip(), self.href))
            self.cell = None
        if tag == "tr":
            if self.row and all(c[0] for c in self.row[1:]) and not self.columns:
                self.columns = [c[0] for c in self.row[1:]]
            elif self.row:
                self.rows[self.row[0][1]] = self.row[1:]
            self.row = []
        if tag == "table":
            self.inside = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def page_table(html: str) -> Table:
    table = Table("evidence")
    table.feed(html)
    return table


def as_shown(value: str) -> str:
    """A CSV cell as the page writes it (`shown`): yes/no, — for nothing, 300 not 300.0."""
    if value == "":
        return "—"
    if value in ("True", "False"):
        return "yes" if value == "True" else "no"
    try:
        number = float(value)
    except ValueError:
        return value
    return str(int(number)) if number.is_integer() else value


def compare(html: str, csv_text: str) -> int:
    """Every evidence column of the CSV is on the page, and every cell agrees; the number
    of cells compared."""
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    table = page_table(html)
    csv_columns = [c for c in rows[0] if c.startswith(("prediction:", "challenge:", "rubric:"))]
    fixed = ("self-check right", "self-check questions", "score")
    csv_columns += [c for c in fixed if c in rows[0]]
    missing = [c for c in csv_columns if c not in table.columns]
    assert not missing, f"on the CSV, not on the page: {missing}"
    extra = [c for c in table.columns if c not in rows[0]]
    assert not extra, f"on the page, not in the CSV: {extra}"
    compared = 0
    assert sorted(table.rows) == sorted(r["username"] for r in rows)
    for row in rows:
        for column, text, href in table.rows[row["username"]]:
            value = row[column]
            if column.endswith(": run") and value:
                assert href == urlparse(value).path, (row["username"], column)
            else:
                assert text == as_shown(value), (row["username"], column, text, value)
            compared += 1
    return compared


def fetch(client, school):
    a = school.assignment_a
    client.force_login(school.teacher)
    html = client.get(reverse("assignment-results", args=[a.pk])).content.decode()
    text = client.get(reverse("assignment-results-csv", args=[a.pk])).content.decode()
    return html, text


def test_the_results_page_and_its_csv_agree_cell_by_cell(client, asked):
    html, text = fetch(client, asked)
    # 3 students × (3 prediction + skipped + after a result + 4 challenge + 2 self-check
    # + 2 rubric + 2 score)
    assert compare(html, text) == 3 * 15
    alice = next(r for r in csv.DictReader(io.StringIO(text)) if r["username"] == "alice")
    assert alice["prediction: peak_backlog: guess"] == "300"
    assert alice["prediction: peak_backlog: right"] == "False"  # the locked burst peaks higher
    assert alice["challenge: drain-fewest-workers: met"] == "True"
    assert alice["challenge: drain-fewest-workers: run"].endswith(f"/runs/{asked.met_run.id}/")
    assert alice["challenge: drain-by-five: met"] == "False"
    assert alice["challenge: drain-by-five: run"] == ""
    assert (alice["self-check right"], alice["self-check questions"]) == ("3", "4")
    assert alice["rubric: Names the fix"] == "2.5" and alice["score"] == "6.5"
    assert alice["score out of"] == "8"


@pytest.mark.parametrize(
    "planted",
    ["prediction: peak_backlog: right", "challenge: drain-fewest-workers: run", "score"],
)
def test_the_comparison_fails_on_a_planted_omission(client, asked, monkeypatch, planted):
    """Leave one column off the page (as the exports once left predictions off): caught."""
    from teaching.class_results import views

    real = views.evidence_headings

    def without(assignment):
        return [(c, h) for c, h in real(assignment) if c != planted]

    monkeypatch.setattr(views, "evidence_headings", without)
    html, text = fetch(client, asked)
    with pytest.raises(AssertionError, match="not on the page"):
        compare(html, text)


def test_the_comparison_fails_on_a_cell_that_disagrees(client, asked, monkeypatch):
    from teaching.class_results import views

    real = views.evidence_cells

    def wrong(assignment, evidence, link):
        cells = real(assignment, evidence, link)
        if cells.get("self-check right") == 3:
            cells["self-check right"] = 2
        return cells

    monkeypatch.setattr(views, "evidence_cells", wrong)
    html, text = fetch(client, asked)
    with pytest.raises(AssertionError):
        compare(html, text)


def test_the_json_carries_the_same_evidence_as_typed(client, asked):
    client.force_login(asked.teacher)
    url = reverse("assignment-results-json", args=[asked.assignment_a.pk])
    data = json.loads(client.get(url).content)
    alice = next(r for r in data["rows"] if r["username"] == "alice")
    assert alice["prediction: peak_backlog: guess"] == 300
    assert alice["prediction: peak_backlog: right"] is False
    assert isinstance(alice["prediction: peak_backlog: outcome"], int | float)
    assert alice["challenge: drain-fewest-workers: met"] is True
    assert alice["rubric: Explains the backlog"] == 4 and alice["score"] == 6.5
    assert "challenge: drain-by-five: run" in data["columns"]


def gradebook_rows(client, school):
    client.force_login(school.teacher)
    text = client.get(reverse("gradebook-csv", args=[school.class_a.pk])).content.decode()
    return {r["username"]: r for r in csv.DictReader(io.StringIO(text))}


def test_the_gradebook_csv_carries_predictions_challenges_and_the_rubric(client, asked):
    title = asked.assignment_a.title
    alice = gradebook_rows(client, asked)["alice"]
    assert alice[f"{title}: prediction: peak_backlog: guess"] == "300"
    assert alice[f"{title}: prediction: peak_backlog: right"] == "False"
    assert alice[f"{title}: challenge: drain-fewest-workers: met"] == "True"
    assert alice[f"{title}: challenge: drain-fewest-workers: run"].endswith(
        f"/runs/{asked.met_run.id}/"
    )
    assert alice[f"{title}: challenge: drain-by-five: met"] == "False"
    assert alice[f"{title}: rubric: Explains the backlog"] == "4"
    assert alice[f"{title}: self-check right"] == "3"


def test_the_gradebook_csv_agrees_with_the_results_csv(client, asked):
    """The two downloads of the same class say the same of every student."""
    _html, text = fetch(client, asked)
    title = asked.assignment_a.title
    book = gradebook_rows(client, asked)
    for row in csv.DictReader(io.StringIO(text)):
        for column, value in row.items():
            if column.startswith(("prediction:", "challenge:", "rubric:", "self-check")):
                assert book[row["username"]][f"{title}: {column}"] == value, column


def test_the_term_end_zip_carries_the_evidence(client, asked):
    client.force_login(asked.teacher)
    response = client.get(reverse("class-export", args=[asked.class_a.pk]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = archive.namelist()
    report = next(n for n in names if n.endswith("/alice/report.json"))
    data = json.loads(archive.read(report))
    evidence = data["evidence"]
    assert evidence["predictions"] == [
        {
            "figure": "peak_backlog",
            "question": evidence["predictions"][0]["question"],
            "guess": 300,
            "outcome": evidence["predictions"][0]["outcome"],
            "right": False,
            "after_result": False,
        }
    ]
    met = {c["challenge"]: c for c in evidence["challenges"]}
    assert met["drain-fewest-workers"]["met"] and met["drain-fewest-workers"]["run"].endswith(
        f"/runs/{asked.met_run.id}/"
    )
    assert not met["drain-by-five"]["met"] and met["drain-by-five"]["run"] is None
    assert evidence["self_check"] == {"unit": "lesson-12", "right": 3, "total": 4}
    assert evidence["score"] == 6.5 and evidence["score_out_of"] == 8
    markdown = archive.read(report.replace(".json", ".md")).decode()
    assert "Guessed 300" in markdown and "Self-check: 3 of 4 right." in markdown
    assert str(asked.met_run.id) in markdown
    book = archive.read(next(n for n in names if n.endswith("gradebook.csv"))).decode()
    assert "prediction: peak_backlog: guess" in book and "challenge: drain-by-five: met" in book


def test_the_teachers_page_of_a_hand_in_shows_the_evidence(client, asked):
    client.force_login(asked.teacher)
    html = client.get(reverse("submission-detail", args=[asked.submission.pk])).content.decode()
    assert 'id="evidence-predictions"' in html and 'data-figure="peak_backlog"' in html
    assert f'href="/runs/{asked.met_run.id}/"' in html
    assert 'data-challenge="drain-by-five"' in html and "not met yet" in html
    assert "Self-check: 3 of 4 right." in html


def test_the_page_of_a_hand_in_reads_in_marathi(client, asked):
    client.force_login(asked.teacher)
    client.cookies["django_language"] = "mr"
    html = client.get(reverse("submission-detail", args=[asked.submission.pk])).content.decode()
    assert "not met yet" not in html and "Self-check: 3 of 4 right." not in html


@pytest.fixture
def late(school):
    """alice and carl each guess the peak exactly; alice only after a run of the same values
    had shown it to her (`Prediction.after_result`), carl before any result."""
    a = school.assignment_a
    carl = make_user("carl")
    Membership.objects.create(classroom=school.class_a, student=carl)
    record_shown(school.alice, finished_run(school.alice, **a.presets))
    for student in (school.alice, carl):
        run = finished_run(student, **a.presets)
        save_predictions(run, {"peak_backlog": run.result["summary"]["peak_backlog"]})
        Submission.objects.create(assignment=a, student=student, run=run, submitted_at=DUE)
    school.late = Submission.objects.get(assignment=a, student=school.alice)
    school.honest = Submission.objects.get(assignment=a, student=carl)
    return school


GUESS = "prediction: peak_backlog:"


def test_a_guess_after_a_result_is_not_right_in_the_results_csv_nor_on_its_page(client, late):
    html, text = fetch(client, late)
    rows = {r["username"]: r for r in csv.DictReader(io.StringIO(text))}
    assert rows["alice"][f"{GUESS} guess"] == rows["alice"][f"{GUESS} outcome"]
    assert rows["alice"][f"{GUESS} right"] == "False"
    assert rows["alice"][f"{GUESS} after a result"] == "True"
    assert rows["carl"][f"{GUESS} right"] == "True"
    assert rows["carl"][f"{GUESS} after a result"] == "False"
    # The page's table says the same, the new column included (2 students × (5 prediction
    # + score + score out of)).
    assert compare(html, text) == 2 * 7
    header = next(csv.reader(io.StringIO(text)))
    after = header.index("prediction skipped")
    assert header[after - 3 : after + 2] == [
        f"{GUESS} guess",
        f"{GUESS} outcome",
        f"{GUESS} right",
        "prediction skipped",
        f"{GUESS} after a result",
    ]


def test_a_guess_after_a_result_is_not_right_in_the_results_json(client, late):
    client.force_login(late.teacher)
    url = reverse("assignment-results-json", args=[late.assignment_a.pk])
    rows = {r["username"]: r for r in json.loads(client.get(url).content)["rows"]}
    assert rows["alice"][f"{GUESS} right"] is False
    assert rows["alice"][f"{GUESS} after a result"] is True
    assert rows["carl"][f"{GUESS} right"] is True
    assert rows["carl"][f"{GUESS} after a result"] is False


def test_a_guess_after_a_result_is_not_right_in_the_gradebook_csv(client, late):
    title = late.assignment_a.title
    book = gradebook_rows(client, late)
    assert book["alice"][f"{title}: {GUESS} right"] == "False"
    assert book["alice"][f"{title}: {GUESS} after a result"] == "True"
    assert book["carl"][f"{title}: {GUESS} right"] == "True"
    assert book["carl"][f"{title}: {GUESS} after a result"] == "False"


def test_a_guess_after_a_result_is_not_right_in_the_term_end_zip(client, late):
    client.force_login(late.teacher)
    response = client.get(reverse("class-export", args=[late.class_a.pk]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = archive.namelist()

    def report(who):
        name = next(n for n in names if n.endswith(f"/{who}/report.json"))
        return json.loads(archive.read(name)), archive.read(name[: -len("json")] + "md").decode()

    (alice, alice_md), (carl, carl_md) = report("alice"), report("carl")
    [guess] = alice["evidence"]["predictions"]
    assert guess["guess"] == guess["outcome"]
    assert guess["right"] is False and guess["after_result"] is True
    assert alice["evidence"]["columns"][f"{GUESS} after a result"] is True
    [honest] = carl["evidence"]["predictions"]
    assert honest["right"] is True and honest["after_result"] is False
    [late_line] = [line for line in alice_md.splitlines() if "Guessed" in line]
    [honest_line] = [line for line in carl_md.splitlines() if "Guessed" in line]
    counted = "so it is not counted right"
    assert late_line.startswith("- ✗ ") and late_line.endswith(counted + ".")
    assert honest_line.startswith("- ✓ ") and counted not in honest_line
    book = archive.read(next(n for n in names if n.endswith("gradebook.csv"))).decode()
    rows = {r["username"]: r for r in csv.DictReader(io.StringIO(book))}
    title = late.assignment_a.title
    assert rows["alice"][f"{title}: {GUESS} right"] == "False"
    assert rows["alice"][f"{title}: {GUESS} after a result"] == "True"


def hand_in_row(client, submission) -> dict[str, str]:
    """The hand-in page's prediction row, heading → cell text."""
    html = client.get(reverse("submission-detail", args=[submission.pk])).content.decode()
    table = Table("evidence-predictions")
    table.feed(html)
    head, row = table.rows.values()
    return {h: cell for (_c, h, _l), (_d, cell, _m) in zip(head, row, strict=True)}


def test_the_teachers_page_of_a_hand_in_marks_a_guess_after_a_result(client, late):
    client.force_login(late.teacher)
    alice, carl = hand_in_row(client, late.late), hand_in_row(client, late.honest)
    assert alice["right?"] == "no" and alice["given after seeing a result?"] == "yes"
    assert carl["right?"] == "yes" and carl["given after seeing a result?"] == "no"


def test_the_hand_in_page_marks_a_guess_after_a_result_in_marathi(client, late):
    client.force_login(late.teacher)
    client.cookies["django_language"] = "mr"
    alice = hand_in_row(client, late.late)
    assert alice["बरोबर?"] == "नाही" and alice["निकाल पाहिल्यानंतर दिला?"] == "हो"
