"""The layers of docs/ARCHITECTURE.md, held by reading every module's imports.

Every package under `labs/`, and `lessons`, `teaching`, `accounts`, `lti` and `ops`, has a rank
(`LAYERS`, bottom first) and may import only packages ranked below it (and itself): so
`labs.sim` stays pure, charts only draw, the catalogue never reaches the run lifecycle or
the web, and labs never reaches teaching. On top of the ranks, a few packages may not import
Django at all (`DJANGO_FREE`), the charts may not reach a model even through another module,
no view module may call the sweeps (a GET only reads), and labs names none of teaching's
keys onto a run (it asks `labs.runs.references`). The tests below each plant a faulty
module in a copy and show the check failing on it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.nodb  # reads source files only: once is enough

ROOT = Path(__file__).resolve().parent.parent
APPS = ("labs", "lessons", "teaching", "classlab", "accounts", "lti", "ops")

# Bottom first. A package may import its own modules and those of any package on an
# earlier line; one line's packages do not import each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("labs", "labs.text", "labs.roles"),  # the empty package; how values are written; groups
    ("labs.sim",),  # pure models
    ("labs.experiments",),  # real Redis experiments
    ("labs.interface", "labs.words"),  # what a runner declares / how results are said
    ("labs.runners", "labs.charts"),  # run a model / draw a result
    ("labs.catalogue",),  # what a Lab is, and the one list of labs
    ("labs.runs",),  # the run lifecycle: model, dispatch, tasks, sweeps
    ("labs.web",),  # views, forms, presenters
    ("labs.capstone",),  # the before/after report and operator view
    # Django's wiring of the labs app: models, admin, urls, commands, template tags.
    ("labs.models", "labs.apps", "labs.admin", "labs.urls", "labs.management",
     "labs.templatetags", "labs.migrations"),
    ("lessons",),
    ("teaching",),
    ("classlab",),  # the class experiment: a class is its traffic (uses classes)
    ("accounts",),
    ("lti",),  # the LMS link (LTI 1.3): signs people into classes, sends grades back
    ("ops",),
)  # fmt: skip
RANK = {package: rank for rank, line in enumerate(LAYERS) for package in line}

# Below the web the labs are plain Python: words through `labs.text`, no Django at all.
DJANGO_FREE = (
    "labs.text", "labs.roles", "labs.sim", "labs.experiments", "labs.interface", "labs.words",
    "labs.runners", "labs.charts", "labs.catalogue", "ops.supervise",
    "classlab.policy", "classlab.storm", "classlab.jobs", "classlab.live",
)  # fmt: skip
NO_REDIS = (
    "labs.sim", "labs.text", "labs.interface", "labs.words", "labs.charts", "classlab.policy",
)  # fmt: skip
# Draw only what they are given: never reach a model or an experiment, even through a
# module they import.
DRAW_ONLY = "labs.charts"
MODELS = ("labs.sim", "labs.experiments")
# Views answer requests; the sweeper (its own loop) ends runs and deletes keys.
VIEWS = re.compile(r"(^|\.)views($|\.)")
SWEEPS = ("labs.runs.sweeps", "labs.runs.stale", "labs.runs.lost", "labs.runs.orphans")
OURS = ("labs", "lessons", "teaching", "classlab", "accounts", "lti", "ops", "school")


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources(root: Path = ROOT) -> dict[str, Path]:
    """Every module of ours by name (migrations included: they import models too)."""
    return {
        module_name(root, path): path for app in APPS for path in sorted((root / app).rglob("*.py"))
    }


def imported_names(path: Path) -> list[str]:
    """Every name `path` imports: `from a.b import c` gives a.b and a.b.c."""
    return list(_imported_names(path.read_text()))


@cache  # the planted copies repeat every other file's text: parse each text once
def _imported_names(text: str) -> tuple[str, ...]:
    names = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return tuple(names)


# A lab's folder (labs/course/<unit>/<lab>/) mixes roles: each file is ranked by its role,
# so a lab's runner is held to the runners' rules and its charts to the charts'.
LAB_FOLDERS = "labs.course"
ROLES = {
    "run": "labs.runners",
    "charts": "labs.charts",
    "lab": "labs.catalogue",
    "production": "labs.catalogue",
}


def package_of(name: str) -> str | None:
    """The package a module belongs to for the ranks (labs.runs.models -> labs.runs).

    In a lab's folder, the role its file plays (labs.course.lesson_12.drain.run ->
    labs.runners); the folders themselves are empty packages (`labs`, the bottom).
    """
    parts = name.split(".")
    if parts[0] not in RANK:
        return None
    if within(name, (LAB_FOLDERS,)):
        depth = len(parts) - 2  # below labs.course: unit, lab, file
        if depth <= 2:
            return "labs"
        return ROLES.get(parts[-1]) if depth == 3 else None
    if parts[0] == "labs" and len(parts) > 1 and f"labs.{parts[1]}" in RANK:
        return f"labs.{parts[1]}"
    return parts[0]


def within(name: str, prefixes: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def plays(module: str, packages: Iterable[str]) -> bool:
    """`module` is in one of `packages`, or plays that role in a lab's folder."""
    role = package_of(module)
    return within(module, packages) or (role is not None and within(role, packages))


def upward_imports(root: Path = ROOT) -> list[str]:
    """`module imports name` for each import of a package ranked at or above its own."""
    found = []
    for module, path in sources(root).items():
        mine = package_of(module)
        for name in imported_names(path):
            theirs = package_of(name)
            if mine is None or theirs is None or theirs == mine:
                continue
            if RANK[theirs] >= RANK[mine]:
                found.append(f"{module} imports {name}")
    return sorted(set(found))


def forbidden_imports(root: Path = ROOT) -> list[str]:
    """Django below the web, redis in the pure parts, the sweeps from a view."""
    found = []
    for module, path in sources(root).items():
        for name in imported_names(path):
            if plays(module, DJANGO_FREE) and within(name, ("django",)):
                found.append(f"{module} imports {name}")
            if plays(module, NO_REDIS) and within(name, ("redis",)):
                found.append(f"{module} imports {name}")
            if VIEWS.search(module) and within(name, SWEEPS):
                found.append(f"{module} (a view) imports {name}")
    return sorted(set(found))


def reached(root: Path, start: str) -> set[str]:
    """Every module of ours `start` imports, directly or through others."""
    known = sources(root)
    seen: set[str] = set()
    todo = [start]
    while todo:
        module = todo.pop()
        if module in seen or module not in known:
            continue
        seen.add(module)
        todo += [name for name in imported_names(known[module]) if name in known]
    return seen - {start}


def charts_reaching_models(root: Path = ROOT) -> list[str]:
    return sorted(
        f"{module} reaches {other}"
        for module in sources(root)
        if plays(module, (DRAW_ONLY,))
        for other in reached(root, module)
        if within(other, MODELS)
    )


def package_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Package -> the packages its modules import (labs.X, and each other app)."""
    graph: dict[str, set[str]] = {}
    for module, path in sources(root).items():
        mine = package_of(module)
        if mine is None:
            continue
        edges = graph.setdefault(mine, set())
        for name in imported_names(path):
            theirs = package_of(name)
            if theirs is not None and theirs != mine:
                edges.add(theirs)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each package that lies on one (depth-first search)."""
    found: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def teaching_names_in_labs(root: Path = ROOT) -> list[str]:
    """Lines of labs/ that name teaching's keys onto a run (its reverse names)."""
    models_py = (root / "teaching" / "models.py").read_text()
    names = re.findall(r"ForeignKey\(\s*Run,[^)]*?related_name=\"(\w+)\"", models_py, re.S)
    assert names, "teaching/models.py: no key onto Run found (did the pattern drift?)"
    pattern = re.compile(r"\b(" + "|".join(names) + r")(__|\b(?=\s*=))")
    found = []
    for module, path in sources(root).items():
        if not within(module, ("labs",)) or ".migrations" in module:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if pattern.search(code):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def lab_folders_that_import(root: Path = ROOT) -> list[str]:
    """A lab's or a unit's `__init__.py` that imports: they are ranked at the bottom, so
    they must stay empty (what a lab is lives in its `lab.py`)."""
    return sorted(
        module
        for module, path in sources(root).items()
        if within(module, (LAB_FOLDERS,)) and package_of(module) == "labs"
        if imported_names(path)
    )


# -- the rules, on the code as it is --------------------------------------------------


def test_every_package_has_a_rank():
    unranked = sorted({m for m in sources() if package_of(m) is None})
    assert unranked == []
    packages = {p.parent.name for p in (ROOT / "labs").glob("*/__init__.py")}
    # labs.course is ranked file by file, by role (package_of)
    assert {f"labs.{p}" for p in packages} - {LAB_FOLDERS} <= set(RANK)


def test_no_module_imports_a_package_above_its_own():
    assert upward_imports() == []


def test_below_the_web_no_django_and_no_view_calls_the_sweeps():
    assert forbidden_imports() == []


def test_charts_never_reach_a_model_even_through_another_module():
    assert charts_reaching_models() == []


def test_no_two_packages_import_each_other_even_round_a_loop():
    assert cycles(package_graph()) == []


def test_labs_never_names_teachings_keys_onto_a_run():
    assert teaching_names_in_labs() == []


def test_a_lab_folder_holds_only_files_of_known_roles_and_empty_packages():
    assert lab_folders_that_import() == []


# -- each check fails on a planted fault ------------------------------------------------


def plant(tmp_path: Path, files: dict[str, str]) -> Path:
    """A copy of the apps' sources with `files` added (path -> text)."""
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            target = tmp_path / path.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(path.read_text())
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


# The upward imports issue 20 found, one planted at a time.
PLANTED_UPWARD = [
    ("labs/runners/planted.py", "from labs.runs.run_progress import RunProgress\n"),
    ("labs/catalogue/planted.py", "from labs.capstone import links\n"),
    ("labs/charts/planted.py", "from labs.capstone.report import LABS\n"),
    ("labs/capstone/planted.py", "from labs.capstone.views import report_detail\n"),
    ("labs/runs/planted.py", "from labs.web.views.runs import run_detail\n"),
    ("labs/sim/planted.py", "import labs.catalogue.entries\n"),
    ("labs/runs/planted.py", "from teaching.models import Submission\n"),
    ("lessons/planted.py", "from teaching.models import Submission\n"),
    ("teaching/planted.py", "from accounts.roster import make_slips\n"),
]


@pytest.mark.parametrize(("name", "text"), PLANTED_UPWARD, ids=[n for n, _ in PLANTED_UPWARD])
def test_a_planted_upward_import_is_found(tmp_path, name, text):
    root = plant(tmp_path, {name: text})
    found = upward_imports(root)
    if name.startswith("labs/capstone"):  # a capstone module importing its own views is fine
        assert found == []
        return
    module = name.removesuffix(".py").replace("/", ".")
    assert [f for f in found if f.startswith(module + " ")], found


def test_the_run_lifecycle_importing_the_capstone_is_found(tmp_path):
    # The cycle: catalogue -> capstone -> web -> runs -> catalogue.
    root = plant(tmp_path, {"labs/catalogue/planted.py": "from labs.capstone import links\n"})
    assert any("catalogue.planted imports labs.capstone" in f for f in upward_imports(root))
    assert any("labs.capstone" in c and "labs.catalogue" in c for c in cycles(package_graph(root)))


def test_django_in_a_runner_a_chart_reaching_a_model_and_a_view_sweeping_are_found(tmp_path):
    root = plant(
        tmp_path,
        {
            "labs/runners/planted.py": "from django.utils.translation import gettext\n",
            "labs/words/planted.py": "from labs.sim.drain import drain\n",
            "labs/charts/planted.py": "from labs.words.planted import drain\n",
            "labs/web/views/planted.py": "from labs.runs.stale import resend_stale\n",
        },
    )
    assert "labs.runners.planted imports django.utils.translation" in forbidden_imports(root)
    assert "labs.web.views.planted (a view) imports labs.runs.stale" in forbidden_imports(root)
    assert "labs.charts.planted reaches labs.sim.drain" in charts_reaching_models(root)


def test_a_cycle_between_two_packages_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_teaching_name_written_in_labs_is_found(tmp_path):
    root = plant(
        tmp_path,
        {"labs/runs/planted.py": "q = Run.objects.filter(pair_submissions__isnull=False)\n"},
    )
    assert [f for f in teaching_names_in_labs(root) if "labs/runs/planted.py:1" in f]


def test_imports_are_read_from_the_source(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from django.db import models\nimport labs.runs.models\n")
    assert imported_names(probe) == ["django.db", "django.db.models", "labs.runs.models"]


def test_a_lab_folders_files_are_held_to_their_roles(tmp_path):
    folder = "labs/course/lesson_12/drain"
    root = plant(
        tmp_path,
        {
            f"{folder}/run.py": "from django.db import models\n",
            f"{folder}/charts.py": "from labs.course.lesson_12.drain import run\n",
            f"{folder}/lab.py": "from labs.runs.models import Run\n",
            f"{folder}/__init__.py": "from labs.course.lesson_12.drain import lab\n",
            f"{folder}/helpers.py": "X = 1\n",
        },
    )
    module = "labs.course.lesson_12.drain"
    assert f"{module}.run imports django.db" in forbidden_imports(root)
    assert any(
        f.startswith(f"{module}.charts reaches labs.sim") for f in charts_reaching_models(root)
    )
    assert f"{module}.lab imports labs.runs.models" in upward_imports(root)
    assert lab_folders_that_import(root) == [module]
    assert package_of(f"{module}.helpers") is None  # a file of no known role has no rank
