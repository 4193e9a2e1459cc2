"""Assignment 05, follow-up 1: the cache restarts empty and 1,000 reads/s meet a 100/s origin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _

from labs.catalogue.figures import Figure, latency_figures
from labs.catalogue.params import params_from_specs
from labs.runners.common import model_errors, table
from labs.runs.progress import Progress
from labs.sim.capstone import LAB_PARAM_SPECS, cold_cache
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.cold_cache import ColdCacheParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import listed, num

# How the catalogue runs this lab (read by `Lab.from_runner`).
USES_SEED = True
DEFAULT_SEED = CAPSTONE_SEED

LAYOUT = (
    (
        "Workload",
        (
            ("horizon_s", "Simulated time"),
            ("offered_rps", "Reads per second"),
            ("keys", "Different keys read"),
            ("key_skew", "How hot the hottest keys are"),
            ("instances", "App instances"),
            ("client_timeout_ms", "Reader's timeout"),
        ),
    ),
    (
        "Origin (the database behind the cache)",
        (
            ("origin_rps", "Fetches per second it can do"),
            ("origin_ms", "Time for one fetch"),
        ),
    ),
    (
        "Cache",
        (
            ("ttl_s", "Fresh for"),
            ("ttl_jitter", "TTL jitter"),
        ),
    ),
    (
        "Recovery controller",
        (
            ("coalescing", "Share one fetch per key"),
            ("origin_budget", "Origin budget"),
            ("budget_rps", "Fetches per second allowed"),
            ("serve_stale", "Serve a bounded-stale copy"),
            ("stale_max_s", "Stale for at most"),
        ),
    ),
)
PARAMS = params_from_specs(LAB_PARAM_SPECS["cold_cache"], LAYOUT)
OUTCOME_WORDS = {
    "hit": "fresh hits",
    "stale": "bounded-stale answers",
    "coalesced": "joined a fetch already on its way",
    "rejected": "fast 429s",
}


def check(params: Mapping[str, Any]) -> dict[str, str]:
    return model_errors(ColdCacheParams, params)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the restart; every read ends as exactly one of hit, stale, coalesced, fetched, 429."""
    result = cold_cache(seed=seed, **params)
    first = result["tables"]["first_10s"]
    result["tables"]["first_10s_table"] = table(
        "The first 10 seconds: where each read per second went",
        ["outcome", "reads/s", "what happened"],
        [[row["outcome"], num(row["reads_per_s"]), row["meaning"]] for row in first],
    )
    progress.update(1, 1)
    return result


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    offered = s["first_10s_offered_rps"]
    fetched = s["first_10s_fetched_rps"]
    rest = [
        f"{num(s[f'first_10s_{o}_rps'])} {words}"
        for o, words in OUTCOME_WORDS.items()
        if s[f"first_10s_{o}_rps"]
    ]
    budget = (
        f"budget {num(s['origin_budget_rps'])}/s"
        if p["origin_budget"]
        else "no budget, capacity " + f"{num(s['origin_capacity_rps'])}/s"
    )
    lines = [
        f"In the first 10 s the cache got {num(offered)} reads/s. The origin took "
        f"{num(fetched)}/s on average (peak {num(s['origin_peak_rps'])}/s, {budget}).",
        f"The other {num(round(offered - fetched, 1))}/s: " + (listed(rest) or "none") + ".",
    ]
    if s["every_read_accounted"]:
        lines.append(
            "Every read, every second, was exactly one of: hit, stale, joined, fetched, 429."
        )
    else:
        lines.append("Some reads are not accounted for: this is a bug in the model.")
    if p["origin_budget"]:
        lines.append(
            "The origin stayed within its budget."
            if s["origin_within_budget"]
            else "The origin went over its budget."
        )
    elif not s["origin_within_capacity"]:
        lines.append(
            f"With no budget the origin was asked for {num(s['origin_peak_rps'])} fetches in one "
            f"second: more than the {num(s['origin_capacity_rps'])}/s it can do."
        )
    first_ttl = int(p["ttl_s"] * (1 - p["ttl_jitter"]))  # the model's "first expiry" second
    if first_ttl < p["horizon_s"]:
        spread = (
            f" (TTL jitter of ±{num(round(100 * p['ttl_jitter']))}% spread the expiries)"
            if p["ttl_jitter"]
            else ""
        )
        lines.append(
            f"Once the first copies expired (from {first_ttl} s), the origin's busiest second "
            f"had {num(s['origin_peak_after_first_ttl_rps'])} fetches{spread}."
        )
    if p["keys"] == 1:
        lines.append(
            "One hot key expires at one moment whatever its TTL: only shared fetches, stale "
            "copies and the budget stand between it and the origin."
        )
    if s["timed_out_total"]:
        lines.append(f"{num(s['timed_out_total'])} reads gave up waiting for a fetch.")
    return lines


FIGURES = (
    Figure("offered_total", "Reads offered", "int"),
    Figure("hit_total", "Cache hits", "int"),
    Figure("stale_total", "Stale answers", "int"),
    Figure("coalesced_total", "Reads coalesced", "int"),
    Figure("fetched_total", "Reads fetched from the origin", "int"),
    Figure("rejected_total", "Reads rejected (429)", "int"),
    Figure("timed_out_total", "Reads timed out", "int"),
    Figure("every_read_accounted", "Every read accounted for", "bool"),
    Figure("not_fetched_total", "Reads that never reached the origin", "int"),
    Figure("first_10s_offered_rps", "Reads offered, first 10 s", "float", "req/s"),
    Figure("first_10s_hit_rps", "Hits, first 10 s", "float", "req/s"),
    Figure("first_10s_stale_rps", "Stale answers, first 10 s", "float", "req/s"),
    Figure("first_10s_coalesced_rps", "Coalesced, first 10 s", "float", "req/s"),
    Figure("first_10s_fetched_rps", "Fetched, first 10 s", "float", "req/s"),
    Figure("first_10s_rejected_rps", "Rejected, first 10 s", "float", "req/s"),
    Figure("first_10s_origin_rps", "Origin load, first 10 s", "float", "req/s"),
    Figure("origin_peak_rps", "Origin peak", "float", "req/s"),
    Figure("origin_capacity_rps", "Origin capacity", "float", "req/s"),
    Figure("origin_budget_rps", "Origin budget", "float", "req/s"),
    Figure("origin_within_budget", "Origin stayed within budget", "bool"),
    Figure("origin_within_capacity", "Origin stayed within capacity", "bool"),
    Figure(
        "origin_peak_after_first_ttl_rps",
        "Origin peak after the first TTL",
        "float",
        "req/s",
        nullable=True,
    ),
    Figure("hit_share", "Share of hits", "float"),
    Figure("timed_out_share", "Share timed out", "float"),
    *latency_figures((("", _("whole run")), ("first_10s", _("first 10 s")))),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.cold_cache_cost
