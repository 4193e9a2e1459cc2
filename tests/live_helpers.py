"""Real-queue runs for the tests: a progress with a run key, and a kept DLQ made directly."""

from __future__ import annotations

from typing import Any

from labs.experiments.dlq import keep_dead_letters
from labs.experiments.namespace import Namespace, connect, kept_namespace, run_key_for
from labs.experiments.queue import RedisQueue
from labs.interface.progress import SilentProgress

POISON_ERROR = "PoisonMessage('cannot be processed')"


class KeyedProgress(SilentProgress):
    """Progress with the run key the task gives: the runner keeps its keys and DLQ by it."""

    def __init__(self, run_pk: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run_key = run_key_for(run_pk)


def keep_parked(run_pk: Any, ids: list[str], *, max_receives: int = 1) -> None:
    """Park `ids` in a scratch queue and keep its DLQ for run `run_pk`, as an experiment does."""
    r = connect(name="qlab-tests")
    scratch = Namespace(ttl_s=60)
    try:
        q = RedisQueue(r, scratch, visibility_timeout_s=0.05, max_receives=max_receives)
        q.send_many((i, f"certificate {i}") for i in ids)
        for _ in range(max_receives):
            for m in q.receive("w", len(ids)):
                q.fail(m, f"{POISON_ERROR} {m.msg_id}", retry_after_s=0)
        assert q.receive("w", len(ids)) == []
        assert keep_dead_letters(q, kept_namespace(run_key_for(run_pk))) == len(ids)
    finally:
        scratch.cleanup(r)
        r.close()
