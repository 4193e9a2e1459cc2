"""A GET view writes only through `labs.web.keeping.keep_shown` or
`labs.runs.predictions.record_shown`, both idempotent.

Every view the URL resolver serves is read with `ast`, together with the functions of ours
it calls (followed through each module's names, a few calls deep): a GET view whose code
can reach a model write (`.save()`, `.delete()`, a queryset's `.update(` / `.create(` and
kin) or a known writer fails here, unless it is in `KEEP_ON_VIEW` below. Code under
`if request.method == "POST"` is a POST's, and a view decorated to refuse GET is not read.

Why these six: a draft (a run started by moving a control) is deleted an hour after it was
made; a student who downloads it, or opens a comparison or a report whose link names it,
has a file or a link that names it, so serving it keeps it (the designed behaviour,
`labs/web/keeping.py`). `keep_shown` changes nothing the second time, and only for the
draft's owner, so a GET stays safe to repeat.

And one more: a run's page records, once, that its owner has seen the result for those
values (`record_shown`: one INSERT, ignored when already there), so a guess made after it
is marked late and never counted right (issue 39 item 5). It too changes nothing the second
time, and only for the run's owner.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator
from types import FunctionType, ModuleType
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.nodb  # reads source files only

OURS = ("labs", "teaching", "accounts", "lessons", "ops", "school")

# The GET views allowed to write, each only through keep_shown (a draft kept on view).
KEEP_ON_VIEW = {
    "labs.web.views.runs.run_json",  # a downloaded file names the run
    "labs.web.views.runs.run_csv",  # the same, as CSV
    "labs.web.views.runs.run_compare",  # the comparison's link names both runs
    "labs.capstone.views.report_detail",  # the report's link names its before and after runs
    "labs.capstone.views.report_markdown",  # the report downloaded: it names both runs
    "labs.capstone.views.report_json",  # the same, as JSON
}
# The GET views allowed to write only through record_shown (a result seen by its owner).
RECORD_ON_VIEW = {"labs.web.views.runs.run_detail"}
# Functions of ours that write, whatever their body looks like from here.
KNOWN_WRITERS = {"keep_shown", "start_runs"}
# Model writes: `.save()` and `.delete()` on anything but a cache or Redis; the rest only
# on a queryset (a receiver reached through `.objects` or a queryset method), since
# `dict.update` looks the same.
ANY_RECEIVER = {"save", "delete"}
QUERYSET_ONLY = {"update", "create", "get_or_create", "update_or_create", "bulk_create"}
QUERYSET_HINTS = ("objects", "filter", "exclude", "all", "select_for_update", "_set")
NOT_A_MODEL = ("cache", "redis", "pipe", "session", "client", "r.")
DEPTH = 4


def views(resolver: URLResolver | None = None) -> Iterator[Callable[..., Any]]:
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from views(pattern)
        elif isinstance(pattern, URLPattern):
            yield pattern.callback


def refuses_get(view: Callable[..., Any]) -> bool:
    """Decorated with `require_POST` (or `require_http_methods` without GET)."""
    while view is not None:
        for cell in getattr(view, "__closure__", None) or ():
            methods = cell.cell_contents
            if (
                isinstance(methods, list | tuple)
                and methods
                and all(isinstance(m, str) and m.isupper() for m in methods)
            ):
                return "GET" not in methods
        view = getattr(view, "__wrapped__", None)
    return False


def is_method_test(test: ast.expr, method: str) -> bool:
    """`request.method == method`, alone or first in an `and`."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(is_method_test(value, method) for value in test.values)
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Attribute)
        and test.left.attr == "method"
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == method
    )


def get_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a GET can run: POST branches left out."""
    for statement in body:
        if isinstance(statement, ast.If) and is_method_test(statement.test, "POST"):
            yield from get_statements(statement.orelse)
            continue
        if isinstance(statement, ast.If) and is_method_test(statement.test, "GET"):
            yield from get_statements(statement.body)
            if statement.body and isinstance(statement.body[-1], ast.Return):
                return  # the rest is a POST's
            continue
        yield statement


def calls_in(function: FunctionType) -> Iterator[ast.Call]:
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    definition = tree.body[0]
    assert isinstance(definition, ast.FunctionDef)
    for statement in get_statements(definition.body):
        for node in ast.walk(statement):
            if isinstance(node, ast.Call):
                yield node


def writes_directly(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id in KNOWN_WRITERS:
        return func.id
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in KNOWN_WRITERS:
        return func.attr
    receiver = ast.unparse(func.value)
    if func.attr in ANY_RECEIVER and not any(word in receiver for word in NOT_A_MODEL):
        return f"{receiver}.{func.attr}()"
    if func.attr in QUERYSET_ONLY and any(hint in receiver for hint in QUERYSET_HINTS):
        return f"{receiver}.{func.attr}()"
    return None


def callee(call: ast.Call, function: FunctionType) -> FunctionType | None:
    """The function of ours `call` names, looked up in `function`'s module."""
    names = function.__globals__
    target: Any = None
    if isinstance(call.func, ast.Name):
        target = names.get(call.func.id)
    elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        owner = names.get(call.func.value.id)
        if isinstance(owner, ModuleType):
            target = getattr(owner, call.func.attr, None)
    target = inspect.unwrap(target) if callable(target) else None
    if isinstance(target, FunctionType) and target.__module__.split(".")[0] in OURS:
        return target
    return None


def writes(function: FunctionType, depth: int = DEPTH, seen: set | None = None) -> list[str]:
    """The writes `function` can reach on a GET, each as the chain of calls to it."""
    seen = set() if seen is None else seen
    if function in seen:
        return []
    seen.add(function)
    found = []
    for call in calls_in(function):
        if written := writes_directly(call):
            found.append(written)
        elif depth and (inner := callee(call, function)):
            name = f"{inner.__module__}.{inner.__qualname__}"
            found += [f"{name} -> {w}" for w in writes(inner, depth - 1, seen)]
    return found


def get_views_that_write() -> dict[str, list[str]]:
    found = {}
    for view in views():
        handler = getattr(view, "view_class", None)
        target = inspect.unwrap(getattr(handler, "get", None) if handler else view)
        if not isinstance(target, FunctionType) or target.__module__.split(".")[0] not in OURS:
            continue
        if handler is None and refuses_get(view):
            continue
        if reached := writes(target):
            found[f"{target.__module__}.{target.__qualname__}"] = reached
    return found


def test_a_get_view_writes_only_by_keeping_a_draft() -> None:
    found = get_views_that_write()
    allowed = KEEP_ON_VIEW | RECORD_ON_VIEW
    assert {name: w for name, w in found.items() if name not in allowed} == {}
    for name in KEEP_ON_VIEW:  # each still keeps its draft, and only that
        assert found.get(name) and all(w.endswith("keep_shown") for w in found[name]), name
    for name in RECORD_ON_VIEW:  # each records a seen result, and only that
        writes = found.get(name)
        assert writes and all("record_shown ->" in w for w in writes), (name, writes)


def test_it_finds_a_write_in_a_helper_and_skips_a_posts_branch() -> None:
    namespace: dict[str, Any] = {"__name__": "labs.planted"}
    source = textwrap.dedent(
        """
        def save_it(run):
            run.save()

        def a_view(request, run):
            if request.method == "POST" and run:
                run.delete()
            context = {}
            context.update(a=1)  # a dict: not a write
            save_it(run)
            Run.objects.filter(pk=run.pk).update(name="x")
        """
    )
    exec(compile(source, "<planted>", "exec"), namespace)
    view = namespace["a_view"]
    view.__module__ = namespace["save_it"].__module__ = "labs.planted"
    sources = dict(zip(("save_it", "a_view"), source.split("\n\n"), strict=False))
    original = inspect.getsource
    try:
        inspect.getsource = lambda f: sources.get(f.__name__) or original(f)  # type: ignore[assignment]
        assert writes(view) == [
            "labs.planted.save_it -> run.save()",
            "Run.objects.filter(pk=run.pk).update()",
        ]
    finally:
        inspect.getsource = original  # type: ignore[assignment]


def test_it_tells_a_post_only_view() -> None:
    from django.views.decorators.http import require_GET, require_POST

    def view(request):
        return None

    assert refuses_get(require_POST(view)) and not refuses_get(require_GET(view))
