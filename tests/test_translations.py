"""Every string a person reads has its Marathi, the compiled catalogue matches it, and
every page reads in Marathi when Marathi is asked for.

How to add or change a string: docs/ARCHITECTURE.md, "Translations".
"""

from __future__ import annotations

import ast
import gettext
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.commands.makemessages import BuildFile
from django.test import override_settings
from django.urls import reverse
from django.utils import translation

# One process runs this module (pytest-xdist): its module-scoped set-up is made once.
pytestmark = pytest.mark.xdist_group("translations")

BASE = Path(settings.BASE_DIR)
CATALOGUES = sorted((BASE / "locale").glob("*/LC_MESSAGES/django.po"))
MARATHI = BASE / "locale" / "mr" / "LC_MESSAGES" / "django.po"
DEVANAGARI = re.compile("[\u0900-\u097f]")
HOW = "see docs/ARCHITECTURE.md, Translations"


def gettext_tool(name: str) -> str:
    path = shutil.which(name)
    assert path, f"{name} is missing: install gettext (./dev does it: apt-get install gettext)"
    return path


def run(*args: str) -> str:
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


# 1. Nothing lacks its Marathi ------------------------------------------------------


@pytest.fixture(scope="module")
def fresh_catalogue(tmp_path_factory, monkeypatch_module) -> Path:
    """Today's sources extracted (`makemessages`) and merged into a copy of the catalogue.

    The copy lives in a temporary folder, so the check needs no dirty worktree.
    """
    gettext_tool("xgettext")
    # makemessages walks the current directory and writes into any `locale/` folder it
    # finds there, and beside every template it reads (`page.html.py`, `OFL.txt.py`: the
    # text it hands to xgettext). So it walks a copy of the sources, never links to them:
    # through a link those files would appear in the worktree for a moment, where another
    # test's collectstatic found one and then lost it (FileNotFoundError, a busy machine).
    sources = tmp_path_factory.mktemp("sources")
    for entry in BASE.iterdir():
        if entry.name in SKIPPED_BY_MAKEMESSAGES or entry.name.startswith("."):
            continue
        if entry.is_dir():
            shutil.copytree(entry, sources / entry.name, ignore=NOT_SOURCES)
        else:
            shutil.copy(entry, sources / entry.name)
    locale = sources / "locale"
    copy = locale / "mr" / "LC_MESSAGES" / "django.po"
    copy.parent.mkdir(parents=True)
    shutil.copy(MARATHI, copy)
    monkeypatch_module.chdir(sources)
    preprocess = BuildFile.preprocess

    def noted(build: BuildFile) -> None:
        if build.is_templatized:  # a template: its text is written to `<name>.py` beside it
            WORK_FILES.append(Path(build.work_path).resolve())
        preprocess(build)

    monkeypatch_module.setattr(BuildFile, "preprocess", noted)
    with override_settings(LOCALE_PATHS=[locale]):
        call_command("makemessages", locale=["mr"], verbosity=0, ignore_patterns=["*/locale"])
    return copy


# Where makemessages wrote the text it gave xgettext (filled by `fresh_catalogue`).
WORK_FILES: list[Path] = []
NOT_SOURCES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")


# The catalogue itself, and folders with no source of ours (makemessages would walk them).
SKIPPED_BY_MAKEMESSAGES = {"locale", "var", "node_modules", "bench", "docs"}


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_extracting_the_strings_writes_nothing_into_the_worktree(fresh_catalogue):
    assert WORK_FILES, "no template was read: the extraction walked nothing"
    inside = [path for path in WORK_FILES if path.is_relative_to(BASE.resolve())]
    assert not inside, f"makemessages wrote into the worktree: {inside[:3]}"


def test_every_string_in_the_code_has_its_marathi(fresh_catalogue):
    lacking = [
        entry
        for entry in po_entries(fresh_catalogue)
        if (entry.fuzzy or not entry.translated) and not found_at_run_time(entry)
    ]
    shown = "\n".join(f"  {e.where}: {e.msgid!r}{' (fuzzy)' if e.fuzzy else ''}" for e in lacking)
    assert not lacking, f"strings without Marathi ({HOW}):\n{shown}"


@dataclass
class Entry:
    msgid: str
    msgid_plural: str = ""
    msgctxt: str | None = None
    translations: list[str] = field(default_factory=list)
    fuzzy: bool = False
    where: str = ""

    @property
    def translated(self) -> bool:
        return bool(self.translations) and all(self.translations)


def po_entries(path: Path) -> list[Entry]:
    """The live entries of a catalogue (a small reader: msgctxt, plurals, flags)."""
    entries: list[Entry] = []
    current: Entry | None = None
    field_name = ""
    for raw in [*path.read_text().splitlines(), ""]:
        line = raw.strip()
        if not line or line.startswith("#~"):
            if current is not None and current.msgid:
                entries.append(current)
            current = None
            continue
        if current is None:
            current = Entry(msgid="")
        if line.startswith("#,"):
            current.fuzzy = "fuzzy" in line
        elif line.startswith("#:"):
            current.where = current.where or line[2:].split()[0]
        elif line.startswith("#"):
            continue
        else:
            key, _, rest = line.partition(" ")
            if key.startswith('"'):
                key, rest = field_name, line
            else:
                field_name = key
                if key.startswith("msgstr"):
                    current.translations.append("")
            text = ast.literal_eval(rest)
            if key == "msgid":
                current.msgid += text
            elif key == "msgid_plural":
                current.msgid_plural += text
            elif key == "msgctxt":
                current.msgctxt = (current.msgctxt or "") + text
            elif key.startswith("msgstr"):
                current.translations[-1] += text
    return entries


def found_at_run_time(entry: Entry) -> bool:
    """The site has Marathi for it in some catalogue (an app's own, or Django's)."""
    with translation.override("mr"):
        if entry.msgid_plural:
            if entry.msgctxt:
                many = translation.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, 2)
            else:
                many = translation.ngettext(entry.msgid, entry.msgid_plural, 2)
            return many != entry.msgid_plural
        if entry.msgctxt:
            return translation.pgettext(entry.msgctxt, entry.msgid) != entry.msgid
        return translation.gettext(entry.msgid) != entry.msgid


def test_the_extraction_sees_the_code(fresh_catalogue):
    """Guards the check above: an extraction that found nothing would pass it."""
    text = fresh_catalogue.read_text()
    for msgid in ("My classes", "Only teachers can create classes. Ask for a join code instead."):
        assert f'msgid "{msgid}"' in text


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda p: p.parts[-3])
def test_every_catalogue_is_valid(po):
    """msgfmt --check: placeholders like %(name)s kept in the translation, a sound header."""
    run(gettext_tool("msgfmt"), "--check", "-o", "/dev/null", str(po))


# 2. The compiled catalogue is not stale ----------------------------------------------


def messages_of(mo: Path) -> dict:
    with mo.open("rb") as f:
        return dict(gettext.GNUTranslations(f)._catalog)


@pytest.mark.parametrize("po", CATALOGUES, ids=lambda p: p.parts[-3])
def test_the_compiled_catalogue_matches_its_source(po, tmp_path):
    mo = po.with_suffix(".mo")
    fix = ".venv/bin/python manage.py compilemessages (./dev does it at set-up)"
    assert mo.exists(), f"{mo.relative_to(BASE)} is missing: run {fix}"
    expected = tmp_path / "expected.mo"
    run(gettext_tool("msgfmt"), "-o", str(expected), str(po))
    assert messages_of(mo) == messages_of(expected), f"{mo.relative_to(BASE)} is stale: run {fix}"


# 3. Every page reads in Marathi ---------------------------------------------------

# English a page must not show once it is in Marathi: the site's own words, whole
# phrases, so that names people typed (a class called "Class A") never trip it.
KNOWN_ENGLISH = (
    "My classes",
    "Log out",
    "Simulations run on the server",
    "Back to the course",
    "Classes I teach",
    "Classes I am in",
    "Join a class",
    "Create the class",
    "Set a new assignment",
    "Download the gradebook",
    "Download as CSV",
    "Invite to the class",
    "Key figures across the class",
    "Runs that stand apart",
    "What the class changed",
    "Edit the assignment",
    "Set the due date",
    "Your runs of this lab",
    "criteria passed",
    "Figures of this lab you can check",
    "Who sets it",
    "Save the assignment",
    "Re-run with the same parameters",
    "Grading criteria",
    "Join code",
    "Student chooses",
    # the labs' pages and results
    "Run by",
    "The numbers behind the charts",
    "Set up this challenge",
    "This run against the challenges",
    "Back to the lab",
    "Compare with my other runs",
    "permalink",
    "to run this lab",
    "Set the parameters, press Run",
    "Not found",
    "Not allowed",
    # the real-queue experiments' results, their live view and their forms
    "The trapped service, live",
    "Live on the real Redis",
    "The model, given the same params",
    "Every control switched",
    "Parked in the DLQ with maxReceiveCount",
    "Wasted answers this second",
    "Oldest request has waited",
    "One model second lasts",
    "took longer than its limit",
    "Jobs arriving each second",
    "Spike rates to try",
    "Simulated seconds after the cache restarts",
    # the trapped service's links and its sentence when no control went on
    "Operator view: the payments",
    "Compare with another run",
    "No control went on during the run",
)


class VisibleText(HTMLParser):
    """The text a reader sees: element text and the title, not scripts or styles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = VisibleText()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def pages(school, submission) -> list[tuple[str, object, str]]:
    """(what, who, url) for every page a person can open."""
    from labs.catalogue.entries import LABS
    from labs.catalogue.units import UNITS
    from tests.base import finished_run, stored_experiment_run

    a, c = school.assignment_a, school.class_a
    everyone = [
        ("home", None, reverse("home")),
        ("login", None, reverse("login")),
        ("404", None, "/no-such-page/"),
        *[(f"unit {u.slug}", None, reverse("unit-detail", args=[u.slug])) for u in UNITS],
        *[(f"lab {lab.slug}", None, reverse("lab-detail", args=[lab.slug])) for lab in LABS],
    ]
    student = [
        ("my classes (student)", school.alice, reverse("class-list")),
        ("class (student)", school.alice, c.get_absolute_url()),
        ("assignment (student)", school.alice, a.get_absolute_url()),
        ("my runs", school.alice, reverse("my-runs")),
        ("403 (student on a teacher's page)", school.alice, reverse("gradebook", args=[c.pk])),
    ]
    teacher = [
        ("my classes (teacher)", school.teacher, reverse("class-list")),
        ("class (teacher)", school.teacher, c.get_absolute_url()),
        ("assignment (teacher)", school.teacher, a.get_absolute_url()),
        ("new assignment", school.teacher, reverse("assignment-new", args=[c.pk])),
        (
            "new assignment form",
            school.teacher,
            reverse("assignment-new", args=[c.pk]) + "?lab=drain",
        ),
        ("edit assignment", school.teacher, reverse("assignment-edit", args=[a.pk])),
        ("gradebook", school.teacher, reverse("gradebook", args=[c.pk])),
        ("class results", school.teacher, reverse("assignment-results", args=[a.pk])),
        (
            "class results, one small chart each",
            school.teacher,
            reverse("assignment-results", args=[a.pk]) + "?tab=small",
        ),
        (
            "projector view",
            school.teacher,
            reverse("assignment-results-projector", args=[a.pk]),
        ),
        ("submission", school.teacher, submission.get_absolute_url()),
    ]
    results = [
        (
            f"result of {lab.slug}",
            school.alice,
            finished_run(school.alice, lab=lab.slug).get_absolute_url(),
        )
        for lab in LABS
        if lab.kind != "experiment"
    ]
    # A real queue run takes seconds: its result is one kept from a run on Redis.
    experiments = [
        (
            f"{'live view' if running else 'result'} of {lab.slug}",
            school.alice,
            stored_experiment_run(school.alice, lab.slug, running=running).get_absolute_url(),
        )
        for lab in LABS
        if lab.kind == "experiment"
        for running in (False, True)
    ]
    # A run that failed, for a reason saved as a code (labs.runs.failures).
    from labs.runs.failures import failure
    from labs.runs.models import Run

    failed = Run.objects.create(
        owner=school.alice,
        lab="drain",
        params={},
        seed=0,
        status="failed",
        **failure("time_limit", limit_s=90),
    )
    failures = [("failed run", school.alice, failed.get_absolute_url())]
    return everyone + student + teacher + results + experiments + failures


@pytest.fixture
def submitted(school):
    from teaching.models import Submission
    from tests.base import finished_run

    run = finished_run(school.alice)
    return Submission.objects.create(assignment=school.assignment_a, student=school.alice, run=run)


def test_every_page_reads_in_marathi(client, school, submitted):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
    problems = []
    for what, who, url in pages(school, submitted):
        if who is None:
            client.logout()
            client.cookies[settings.LANGUAGE_COOKIE_NAME] = "mr"
        else:
            client.force_login(who)
        response = client.get(url)
        text = visible_text(response.content.decode())
        if not DEVANAGARI.search(text):
            problems.append(f"{what} ({url}): no Devanagari at all")
        problems += [f"{what} ({url}): {e!r}" for e in KNOWN_ENGLISH if e in text]
    assert not problems, "\n".join(problems)


def test_the_known_english_is_there_in_english(client, school, submitted):
    """Guards the check above: the phrases it looks for do appear on the English pages."""
    seen = set()
    for _what, who, url in pages(school, submitted):
        if who is None:
            client.logout()
        else:
            client.force_login(who)
        text = visible_text(client.get(url).content.decode())
        seen |= {e for e in KNOWN_ENGLISH if e in text}
    assert seen == set(KNOWN_ENGLISH)
