"""Every environment variable the site reads is listed in `.env.example`, and nothing more.

Read from the code, not from a list kept by hand: the typed helpers of `school/env.py`
(`env_str("NAME", ...)` and its kin), any `os.environ` / `os.getenv` read in our Python
packages, and the `${NAME:-default}` variables of the `dev` script. A setting added to the
code without its line in `.env.example` (or a line left behind when a setting goes) fails
here by name. Where the code gives a plain default (a number, true/false, a word), the value
written in `.env.example` must be that default.

Excluded by rule: variables read only under `tests/` or `bench/` (test-harness knobs such
as `CRAWL_REPORT`, `BROWSER_SHOTS`, `CI`): those folders are not scanned. Writes are not
reads: `os.environ.setdefault("DJANGO_SETTINGS_MODULE", ...)` and the like set a value for
a child process or a library.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.nodb  # reads source files only

ROOT = Path(__file__).resolve().parent.parent
# Our Python: the project package and every app. tests/ and bench/ are left out (above).
PACKAGES = ("school", "labs", "lessons", "teaching", "accounts", "ops")
TOP_MODULES = ("manage.py",)
# The typed readers of school/env.py: each takes the variable's name first, its default second.
HELPERS = {"env_str", "env_int", "env_bool", "env_list"}
DEV_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*):-")


def python_files(root: Path) -> Iterator[Path]:
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            if "migrations" not in path.parts:
                yield path
    for name in TOP_MODULES:
        yield root / name


def _is_os_environ(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ...  # not a plain literal: no default to compare


def reads_in(source: str) -> Iterator[tuple[str, object]]:
    """(name, default) for each variable `source` reads; the default is `...` when unknown."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and node.args:
            name_node = node.args[0]
            if not (isinstance(name_node, ast.Constant) and isinstance(name_node.value, str)):
                continue
            func = node.func
            default = _literal(node.args[1]) if len(node.args) > 1 else ...
            helper = isinstance(func, ast.Name) and func.id in HELPERS
            environ_get = isinstance(func, ast.Attribute) and (
                (func.attr == "get" and _is_os_environ(func.value))
                or (func.attr == "getenv" and isinstance(func.value, ast.Name))
            )
            if helper or environ_get:
                yield name_node.value, default
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and _is_os_environ(node.value)
            and isinstance(node.slice, ast.Constant)
        ):
            yield str(node.slice.value), ...
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], ast.In | ast.NotIn)
            and _is_os_environ(node.comparators[0])
            and isinstance(node.left, ast.Constant)
        ):
            yield str(node.left.value), ...


def read_by_code(root: Path) -> dict[str, list[object]]:
    """Every variable read, with the plain defaults the code gives it (from Python and dev)."""
    found: dict[str, list[object]] = {}
    for path in python_files(root):
        for name, default in reads_in(path.read_text(encoding="utf-8")):
            found.setdefault(name, []).append(default)
    for name in DEV_VARIABLE.findall((root / "dev").read_text(encoding="utf-8")):
        found.setdefault(name, [])
    return found


def listed(root: Path) -> dict[str, str]:
    """`.env.example`'s NAME=value lines (comments skipped)."""
    entries: dict[str, str] = {}
    for line in (root / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            entries[name.strip()] = value.strip()
    return entries


def written(default: object) -> str | None:
    """How a plain default is written in `.env.example`, or None when it has no plain form."""
    if isinstance(default, bool):
        return "true" if default else "false"
    if isinstance(default, int | str):
        return str(default)
    return None


def problems(root: Path) -> list[str]:
    code, example = read_by_code(root), listed(root)
    found = [f"{name}: read by the code, missing from .env.example" for name in code]
    found = [line for line, name in zip(found, code, strict=True) if name not in example]
    found += [
        f"{name}: in .env.example, read by nothing" for name in sorted(set(example) - set(code))
    ]
    for name, defaults in sorted(code.items()):
        for default in defaults:
            want = written(default)
            # An empty line means "the default" (e.g. a URL built from another setting).
            if want is not None and example.get(name, "") not in ("", want):
                found.append(
                    f"{name}: .env.example says {example[name]!r}, the code's default is {want!r}"
                )
    return found


def test_every_variable_the_code_reads_is_in_env_example() -> None:
    assert problems(ROOT) == []


def _copy(tmp_path: Path, example: str, settings_extra: str = "", dev_extra: str = "") -> Path:
    """A tree of our packages' sources in tmp_path, with `.env.example` and extras given."""
    for path in python_files(ROOT):
        target = tmp_path / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    settings = tmp_path / "school" / "settings.py"
    settings.write_text(settings.read_text(encoding="utf-8") + settings_extra, encoding="utf-8")
    dev = (ROOT / "dev").read_text(encoding="utf-8") + dev_extra
    (tmp_path / "dev").write_text(dev, encoding="utf-8")
    (tmp_path / ".env.example").write_text(example, encoding="utf-8")
    return tmp_path


def test_it_names_a_setting_missing_and_one_nothing_reads(tmp_path: Path) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8") + "GONE_SETTING=1\n"
    tree = _copy(
        tmp_path,
        example,
        settings_extra='NEW_ONE = env_int("NEW_SETTING", 3)\nX = os.getenv("FROM_GETENV")\n'
        'Y = os.environ["FROM_SUBSCRIPT"]\n',
        dev_extra='echo "${FROM_DEV:-7}"\n',
    )
    assert problems(tree) == [
        "NEW_SETTING: read by the code, missing from .env.example",
        "FROM_GETENV: read by the code, missing from .env.example",
        "FROM_SUBSCRIPT: read by the code, missing from .env.example",
        "FROM_DEV: read by the code, missing from .env.example",
        "GONE_SETTING: in .env.example, read by nothing",
    ]


def test_it_names_a_default_written_wrong(tmp_path: Path) -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    example = example.replace("LAB_LEASE_S=20", "LAB_LEASE_S=25")
    assert problems(_copy(tmp_path, example)) == [
        "LAB_LEASE_S: .env.example says '25', the code's default is '20'"
    ]
