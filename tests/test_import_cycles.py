"""No two modules of ours import each other, even round a loop, even inside a function.

`tests/test_layers.py` holds the packages to their ranks, which says nothing about modules
of one package: `labs.runs.dispatch` importing `labs.runs.tasks`, which imports
`labs.runs.ended`, which imported `labs.runs.dispatch` back inside a function, was a circle
kept from failing at import time only by where the last import was written. Here every
import counts, at the top of a module or inside a function: each module is parsed with
`ast`, the graph of which module imports which is built, and any strongly connected part
of it (a set of modules that all reach each other) fails the test, named.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.nodb  # reads source files only

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("labs", "lessons", "teaching", "classlab", "accounts", "ops", "school")

# Cycles known and not yet removed, each as its modules in sorted order. This list may only
# shrink: a cycle found that is not here fails, and so does one listed that is gone.
ALLOWED: list[tuple[str, ...]] = []


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def sources(root: Path) -> dict[str, Path]:
    """Every module of ours by name (migrations left out: Django loads them by name)."""
    return {
        module_name(root, path): path
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        if "migrations" not in path.parts
    }


def imported_modules(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ours `module` imports anywhere in its text (functions included).

    `from a.b import c` names the module a.b.c when there is one, else a.b (c is then a
    name inside it); a relative import is resolved against `module`'s package.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {name for name in found if name in known and name != module}


def compiled(root: Path) -> set[str]:
    """Our compiled modules (`labs/sim/capstone/_fastloop`): imported, importing nothing of
    ours, so `from package import _fastloop` is not an import of the package."""
    return {
        module_name(root, path.with_name(path.name.split(".")[0] + ".py"))
        for package in PACKAGES
        for pattern in ("*.pyx", "*.pyi", "*.so")
        for path in (root / package).rglob(pattern)
    }


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ours it imports. Importing a.b.c also runs a/b/__init__.py,
    which is not drawn: a package that re-exports its modules' names would otherwise be
    in a loop with each of them."""
    known = sources(root)
    names = set(known) | compiled(root)
    return {
        module: imported_modules(module, path, names) & set(known) for module, path in known.items()
    }


def strongly_connected(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Each set of two or more modules that all reach each other (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[tuple[str, ...]] = []

    def visit(start: str) -> None:
        # Iterative, so a long chain of imports cannot reach Python's recursion limit.
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.append(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(tuple(sorted(part)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def a_loop_through(part: tuple[str, ...], graph: dict[str, set[str]]) -> list[str]:
    """One loop inside `part`, from its first module back to it (breadth first: shortest)."""
    members, start = set(part), part[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & members):
                if target == start:
                    loop = [start, node]
                    while loop[-1] != start:
                        loop.append(came_from[loop[-1]])
                    return [start, *reversed(loop[1:-1]), start] if node != start else loop
                if target not in came_from:
                    came_from[target] = node
                    following.append(target)
        frontier = following
    raise AssertionError(f"{part} is not strongly connected")


def described(graph: dict[str, set[str]], parts: list[tuple[str, ...]]) -> str:
    return "\n".join(
        f"{len(part)} modules import each other, e.g. " + " -> ".join(a_loop_through(part, graph))
        for part in parts
    )


# -- the rule, on the code as it is ---------------------------------------------------------


def test_no_module_of_ours_imports_itself_round_a_loop():
    graph = import_graph()
    parts = strongly_connected(graph)
    new = [part for part in parts if part not in ALLOWED]
    gone = [part for part in ALLOWED if part not in parts]
    assert not new, "import cycles:\n" + described(graph, new)
    assert not gone, f"no longer a cycle, remove from ALLOWED: {gone}"


# -- the check fails on planted faults ------------------------------------------------------


def test_a_loop_of_three_is_found_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(graph) == [("a", "b", "c")]
    assert a_loop_through(("a", "b", "c"), graph) == ["a", "b", "c", "a"]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_an_import_inside_a_function_closes_a_loop(tmp_path):
    (tmp_path / "labs" / "runs").mkdir(parents=True)
    for name in ("lessons", "teaching", "accounts", "ops", "school"):
        (tmp_path / name).mkdir()
    files = {
        "labs/__init__.py": "",
        "labs/runs/__init__.py": "",
        "labs/runs/dispatch.py": "from labs.runs.tasks import execute_run\n",
        "labs/runs/tasks.py": "from labs.runs import ended\n",
        "labs/runs/ended.py": "def announce():\n    from .dispatch import broker_client\n",
        # A compiled module imported from its package's __init__ is not the package.
        "labs/runs/_fast.pyx": "",
        "labs/runs/waiting.py": "from labs.runs import _fast\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    graph = import_graph(tmp_path)
    assert graph["labs.runs.ended"] == {"labs.runs.dispatch"}
    assert graph["labs.runs.waiting"] == set()
    assert strongly_connected(graph) == [
        ("labs.runs.dispatch", "labs.runs.ended", "labs.runs.tasks")
    ]
    assert "labs.runs.dispatch -> labs.runs.tasks -> labs.runs.ended -> labs.runs.dispatch" in (
        described(graph, strongly_connected(graph))
    )
