"""The tests mirror the code: a module's tests are in the folder of the same path under tests/.

`labs/runs/dispatch.py` is tested in `tests/labs/runs/`, a lab's runner
(`labs/course/lesson_12/drain/run.py`) in `tests/labs/course/lesson_12/drain/test_run.py`.
Three folders hold what spans the code instead: `tests/e2e/` (a real worker end to end),
`tests/browser/` (a real browser) and the tests at the root of `tests/`, which hold rules
over the whole project (layers, import cycles, settings, translations, permissions).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.nodb  # reads file names only

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
SPANNING = {"e2e", "browser", "fixtures"}


def misplaced(tests: Path = TESTS, code: Path = ROOT) -> list[str]:
    """Test files whose folder mirrors no folder of the code."""
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        folder = path.parent.relative_to(tests)
        if not folder.parts or folder.parts[0] in SPANNING:
            continue
        if not (code / folder / "__init__.py").is_file():
            found.append(str(path.relative_to(tests)))
    return found


def runner_tests_without_a_runner(tests: Path = TESTS, code: Path = ROOT) -> list[str]:
    """A lab's `test_run.py` whose lab folder has no `run.py`."""
    return [
        str(path.relative_to(tests))
        for path in sorted((tests / "labs" / "course").rglob("test_run.py"))
        if not (code / path.parent.relative_to(tests) / "run.py").is_file()
    ]


def test_every_test_file_sits_in_the_folder_of_the_code_it_tests():
    assert misplaced() == []
    assert runner_tests_without_a_runner() == []


def test_a_test_in_a_folder_the_code_lacks_is_found(tmp_path):
    code = tmp_path / "code"
    (code / "labs" / "runs").mkdir(parents=True)
    (code / "labs" / "runs" / "__init__.py").write_text("")
    tests = tmp_path / "tests"
    for name in ("labs/runs/test_dispatch.py", "labs/rnus/test_dispatch.py", "e2e/test_run.py"):
        (tests / name).parent.mkdir(parents=True, exist_ok=True)
        (tests / name).write_text("")
    (tests / "labs/course/lesson_12/gone").mkdir(parents=True)
    (tests / "labs/course/lesson_12/gone/test_run.py").write_text("")
    assert misplaced(tests, code) == [
        "labs/course/lesson_12/gone/test_run.py",
        "labs/rnus/test_dispatch.py",
    ]
    assert runner_tests_without_a_runner(tests, code) == ["labs/course/lesson_12/gone/test_run.py"]
