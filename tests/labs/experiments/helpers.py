"""Checks every experiment result must pass: JSON-ready, equal-length series, no keys left."""

from __future__ import annotations

import json
from typing import Any

import redis

from labs.experiments.namespace import KEY_ROOT


def assert_lab_result(r: redis.Redis, result: dict[str, Any]) -> None:
    assert set(result) == {"summary", "series", "tables"}
    json.dumps(result, allow_nan=False)
    lengths = {k: len(v) for k, v in result["series"].items()}
    assert len(set(lengths.values())) == 1, lengths
    assert "t_s" in result["series"]
    summary = result["summary"]
    assert summary["keys_left"] == 0
    run_prefix = f"{KEY_ROOT}:{{{summary['run_id']}}}:"
    assert list(r.scan_iter(match=run_prefix + "*", count=1000)) == []
