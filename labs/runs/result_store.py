"""Never compute the same run twice: results keyed by (lab, params, seed, model version).

A simulation is a pure function of its lab, parameters and seed, for one version of the
code that computes it. So a run asked for again (a class pressing Run on a lab's
defaults, a teacher's re-run) is answered from the earlier run's result at once, and a
run identical to one still queued or running waits for that one (`same_as`) instead of
taking a worker of its own. The page says the result is the same as an earlier run's.

The model version is a hash of the code a result depends on: the pure models
(`labs/sim/`), the run framework that shapes the result (`labs/runs/execution.py`), the
lab's runner module and every module of ours it imports, directly or not (the shared
`labs/runners/common.py`, `labs.text`'s phrases, the params' conversions). Any change to
them gives new keys, so a stored result is never served by newer code. Real experiments
measure real time: they are never stored.
"""

from __future__ import annotations

import ast
import hashlib
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

from django.db.models import F
from django.utils import timezone

from labs.runs import succeeded

LABS_DIR = Path(__file__).resolve().parent.parent
# The code every simulation's result depends on, besides its own runner module.
SHARED_SOURCES = ("sim", "runs/execution.py")
SOURCE_SUFFIXES = {".py", ".pyx", ".pxd"}


def _hash_tree(digest: Any, path: Path) -> None:
    # Cython sources too: the compiled capstone loop (.pyx) gives the same results as the
    # Python engine, but a change to it alone must still count as a new model version.
    files = (
        sorted(p for p in path.rglob("*.py*") if p.suffix in SOURCE_SUFFIXES)
        if path.is_dir()
        else [path]
    )
    for file in files:
        digest.update(str(file.relative_to(LABS_DIR)).encode())
        digest.update(file.read_bytes())


def _source_of(module: str) -> Path | None:
    """The file of one of our `labs.*` modules, or None for anything else."""
    if module != "labs" and not module.startswith("labs."):
        return None
    base = LABS_DIR.parent.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported_sources(source: Path) -> list[Path]:
    """`source` and every `labs.*` module it imports, directly or through another, sorted."""
    seen: set[Path] = set()
    todo = [source]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from labs.runners import common` names a module too.
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            todo += [found for name in names if (found := _source_of(name)) is not None]
    return sorted(seen)


@cache
def model_version(runner_module: str) -> str:
    """A short hash of the code behind one runner's results (computed once per process)."""
    digest = hashlib.sha256()
    for name in SHARED_SOURCES:
        path = LABS_DIR / name
        if path.exists():
            _hash_tree(digest, path)
    module = sys.modules.get(runner_module)
    source = getattr(module, "__file__", None)
    if source:
        for path in imported_sources(Path(source)):
            _hash_tree(digest, path)
    return digest.hexdigest()[:16]


def storable(lab) -> bool:
    """Only simulations repeat exactly; an experiment measures a real queue in real time."""
    return lab.kind == "sim"


def result_key(lab, params: dict[str, Any], seed: int) -> str:
    """The store's key for a run of `lab`; "" for a lab whose runs are not stored."""
    if not storable(lab):
        return ""
    body = json.dumps(
        {
            "lab": lab.slug,
            "params": params,
            "seed": seed,
            "version": model_version(lab.run.__module__),
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(body.encode()).hexdigest()


# What a run answered from the store (or following a run) reads of the run it points at.
RESULT_FIELDS = ("pk", "status", "stored_result_id", "own_result")
# A stored result's run, or one computing it.
LOOKED_AT = ("succeeded", "queued", "running")


def stored_run(pk):
    """The run whose stored result is another's (`RunManager.claim` finds its `stored_pk`),
    or None if it is gone meanwhile: only what `result_fields` and `same_as` need of it (a
    run's params and the rest are not read)."""
    from labs.runs.models import Run

    return Run.objects.filter(pk=pk).only(*RESULT_FIELDS).first()


def stored_or_twin(key: str):
    """(the earliest succeeded run with this key, None) if its result is stored
    (`RunQuerySet.stored_for`), else (None, the running
    twin): the earliest queued or running run with this key that computes for itself (a
    leader), or None. Both looks in one query: a press makes them for every key, twice
    for a key it elects a leader for (`labs.runs.dispatch.look_up`).

    Never a draft still queued as a twin: a newer draft of its owner may delete it
    (`labs.runs.drafts.replace_waiting`), and a run waiting on it would point at nothing.
    """
    from labs.runs.models import Run

    if not key:
        return None, None
    # Among these statuses only a succeeded run has ended: ordered by the end first
    # (nulls last), the stored result comes before any twin, the earliest of each first.
    # The stored result's data comes in the same query: the run answered from it shows it
    # at once (a draft's body), which took a query of its own.
    found = (
        Run.objects.filter(status__in=LOOKED_AT, result_key=key, same_as__isnull=True)
        .exclude(draft=True, status=Run.Status.QUEUED)
        .order_by(F("finished_at").asc(nulls_last=True), "created_at")
        .select_related("stored_result")
        .only(*RESULT_FIELDS, "stored_result__data")
        .first()
    )
    if found is None:
        return None, None
    return (found, None) if found.status == Run.Status.SUCCEEDED else (None, found)


def lock_key(key: str) -> None:
    """Make identical runs started at the same instant by different students take turns
    (inside `atomic`), so one computes and the others wait on it. PostgreSQL: a
    transaction-scoped advisory lock on the key; SQLite's transactions already take turns."""
    from django.db import connection

    if key and connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int(key[:15], 16)])


def settle_followers_of(leader) -> int:
    """Finish the runs waiting on `leader`, which this process has just ended as succeeded
    (so its result's reference is known): one UPDATE, no look-up of the leader."""
    from labs.runs.models import Run

    waiting = Run.objects.filter(same_as=leader, status=Run.Status.QUEUED)
    return waiting.update(**_succeeded_like(leader, timezone.now()))


def _succeeded_like(leader, now) -> dict:
    """A follower's fields once its leader succeeded: its stored result, referenced."""
    from labs.runs.models import Run

    return dict(
        status=Run.Status.SUCCEEDED,
        **leader.result_fields(),  # the stored result, referenced: never copied
        started_at=now,
        finished_at=now,
        error="",
        error_code="",
        error_args={},
    )


def settle_followers(leader_ids) -> int:
    """Finish the runs waiting on `leader_ids` the way their leader finished.

    A follower of a succeeded leader points at its stored result; of a failed one, gets
    its error. Called
    wherever a leader ends (the task, the sweeps), so no follower waits on a finished run.
    """
    from labs.runs.models import Run

    settled = 0
    now = timezone.now()
    leaders = Run.objects.filter(pk__in=list(leader_ids), status__in=Run.FINISHED)
    fields = ("pk", "status", "own_result", "stored_result", "error", "error_code", "error_args")
    for leader in leaders.only(*fields):
        waiting = Run.objects.filter(same_as=leader, status=Run.Status.QUEUED)
        if leader.status == Run.Status.SUCCEEDED:
            done = waiting.update(**_succeeded_like(leader, now))
            if done:
                succeeded.tell([leader.pk])  # its followers succeeded
            settled += done
        else:
            settled += waiting.update(
                status=Run.Status.FAILED,
                error=leader.error,
                error_code=leader.error_code,
                error_args=leader.error_args,
                finished_at=now,
            )
    return settled
