"""The cascade lab: its form's limits, its Little's law line and what each tool changes."""

from __future__ import annotations

from labs.catalogue.entries import get_lab
from labs.course.lesson_13.cascade import run as cascade
from labs.interface.progress import SilentProgress


def _run(**changes):
    lab = get_lab("cascade")
    params = {**lab.defaults(), **changes}
    result = lab.run(params, 1, SilentProgress())
    return {**result, "params": params}


def test_it_refuses_a_run_that_could_make_too_many_attempts():
    params = {**get_lab("cascade").defaults(), "rate_per_s": 300, "duration_s": 120}
    errors = cascade.check(params)
    assert "rate_per_s" in errors and "60,000" in errors["rate_per_s"]


def test_its_cost_bound_keeps_the_defaults_on_the_quick_queue():
    lab = get_lab("cascade")
    assert lab.cost is not None
    assert lab.cost(lab.defaults()).seconds < 1  # LAB_HEAVY_FROM_S
    assert cascade.check(lab.defaults()) == {}


def test_the_defaults_need_rate_times_hang_threads():
    # 100 req/s, half of them calling a dependency that hangs 30 s: at least 50 × 30 = 1,500
    # threads wanted, more with the retries (arrivals too: issue 36), against a pool of 120.
    result = _run()
    s = result["summary"]
    assert s["dependency_rate_stall"] > 50
    assert s["threads_needed"] == round(s["dependency_rate_stall"] * 30) > 1_500
    assert s["peak_threads_busy"] == 120
    wanted = f"{s['threads_needed']:,}"
    assert any(wanted in line and "120" in line for line in cascade.headline(result))


def test_with_all_four_tools_every_caller_gets_a_usable_answer():
    bare = _run()
    tools = _run(use_timeout=True, backoff=True, breaker=True, fallback=True)
    assert bare["summary"]["usable_share_stall"] < 0.05
    assert tools["summary"]["usable_share_stall"] == 1.0
    assert tools["summary"]["requests_failed"] == 0
    # Its contrast line is the same traffic with every tool off.
    assert tools["summary"]["bare_usable_share_stall"] == bare["summary"]["usable_share_stall"]
    assert tools["series"]["bare_usable"] == [
        ok + cached
        for ok, cached in zip(bare["series"]["ok"], bare["series"]["fallback"], strict=True)
    ]


def test_a_refused_dependency_holds_no_thread():
    result = _run(stall_kind="down")
    assert result["summary"]["threads_needed"] == 0
    assert result["summary"]["own_pages_share_stall"] == 1.0
