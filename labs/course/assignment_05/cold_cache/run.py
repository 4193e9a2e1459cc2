"""Assignment 05, follow-up 1: the cache restarts empty and 1,000 reads/s meet a 100/s origin."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure, latency_figures
from labs.interface.lab_runner import LabRunner
from labs.interface.params import params_from_specs
from labs.interface.progress import Progress
from labs.interface.spread import Spread
from labs.runners.capstone_rules import cold_cache_errors, with_limits
from labs.runners.common import model_errors, table
from labs.sim.capstone import LAB_PARAM_SPECS, cold_cache
from labs.sim.capstone import cost as capstone_cost
from labs.sim.capstone.cold_cache import ColdCacheParams
from labs.sim.capstone.trapped import DEFAULT_SEED as CAPSTONE_SEED
from labs.text import gettext, gettext_noop, listed, num

# How the catalogue runs this lab (declared in `RUNNER` below).
USES_SEED = True
# Over 20 seeds: how much of the result is chance (labs.catalogue.spread).
SPREAD = Spread("hit_share", "second", "origin_fetches", y_label=gettext_noop("origin fetches"))
DEFAULT_SEED = CAPSTONE_SEED

LAYOUT = (
    (
        gettext_noop("Workload"),
        (
            ("horizon_s", gettext_noop("Simulated time")),
            ("offered_rps", gettext_noop("Reads per second")),
            ("keys", gettext_noop("Different keys read")),
            ("key_skew", gettext_noop("How hot the hottest keys are")),
            ("instances", gettext_noop("App instances")),
            ("client_timeout_ms", gettext_noop("Reader's timeout")),
        ),
    ),
    (
        gettext_noop("Origin (the database behind the cache)"),
        (
            ("origin_rps", gettext_noop("Fetches per second it can do")),
            ("origin_ms", gettext_noop("Time for one fetch")),
        ),
    ),
    (
        gettext_noop("Cache"),
        (
            ("ttl_s", gettext_noop("Fresh for")),
            ("ttl_jitter", gettext_noop("TTL jitter")),
        ),
    ),
    (
        gettext_noop("Recovery controller"),
        (
            ("coalescing", gettext_noop("Share one fetch per key")),
            ("origin_budget", gettext_noop("Origin budget")),
            ("budget_rps", gettext_noop("Fetches per second allowed")),
            ("serve_stale", gettext_noop("Serve a bounded-stale copy")),
            ("stale_max_s", gettext_noop("Stale for at most")),
        ),
    ),
)
PARAMS = with_limits(params_from_specs(LAB_PARAM_SPECS["cold_cache"], LAYOUT), "cold_cache")
OUTCOME_WORDS = {
    "hit": gettext_noop("%(n)s fresh hits"),
    "stale": gettext_noop("%(n)s bounded-stale answers"),
    "coalesced": gettext_noop("%(n)s joined a fetch already on its way"),
    "rejected": gettext_noop("%(n)s fast 429s"),
}


# The model's words for the first ten seconds (`labs.sim.capstone.cold_cache` keeps them in
# English, being pure): marked here so the table's cells are said in the reader's language.
MODEL_WORDS = (
    gettext_noop("fetched"),
    gettext_noop("went to the origin itself (within the budget)"),
    gettext_noop("hit"),
    gettext_noop("found a fresh value"),
    gettext_noop("coalesced"),
    gettext_noop("joined a fetch for the same key already in flight"),
    gettext_noop("stale"),
    gettext_noop("got a bounded-stale copy at once"),
    gettext_noop("rejected"),
    gettext_noop("got a fast 429: no safe value and no budget left"),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    return cold_cache_errors(params) or model_errors(ColdCacheParams, params)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the restart; every read ends as exactly one of hit, stale, coalesced, fetched, 429."""
    result = cold_cache(seed=seed, **params)
    first = result["tables"]["first_10s"]
    result["tables"]["first_10s_table"] = table(
        gettext_noop("The first 10 seconds: where each read per second went"),
        [gettext_noop("outcome"), gettext_noop("reads/s"), gettext_noop("what happened")],
        [[row["outcome"], num(row["reads_per_s"]), row["meaning"]] for row in first],
    )
    progress.update(1, 1)
    return result


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    offered = s["first_10s_offered_rps"]
    fetched = s["first_10s_fetched_rps"]
    rest = [
        gettext(words) % {"n": num(s[f"first_10s_{o}_rps"])}
        for o, words in OUTCOME_WORDS.items()
        if s[f"first_10s_{o}_rps"]
    ]
    took = {
        "offered": num(offered),
        "fetched": num(fetched),
        "peak": num(s["origin_peak_rps"]),
        "budget": num(s["origin_budget_rps"]),
        "capacity": num(s["origin_capacity_rps"]),
    }
    if p["origin_budget"]:
        first = gettext(
            "In the first 10 s the cache got %(offered)s reads/s. The origin took %(fetched)s/s "
            "on average (peak %(peak)s/s, budget %(budget)s/s)."
        )
    else:
        first = gettext(
            "In the first 10 s the cache got %(offered)s reads/s. The origin took %(fetched)s/s "
            "on average (peak %(peak)s/s, no budget, capacity %(capacity)s/s)."
        )
    lines = [
        first % took,
        gettext("The other %(n)s/s: %(rest)s.")
        % {
            "n": num(round(offered - fetched, 1)),
            "rest": listed(rest, gettext("and")) or gettext("none"),
        },
    ]
    if s["every_read_accounted"]:
        lines.append(
            gettext(
                "Every read, every second, was exactly one of: hit, stale, joined, fetched, 429."
            )
        )
    else:
        lines.append(gettext("Some reads are not accounted for: this is a bug in the model."))
    if p["origin_budget"]:
        lines.append(
            gettext("The origin stayed within its budget.")
            if s["origin_within_budget"]
            else gettext("The origin went over its budget.")
        )
    elif not s["origin_within_capacity"]:
        lines.append(
            gettext(
                "With no budget the origin was asked for %(peak)s fetches in one second: more "
                "than the %(capacity)s/s it can do."
            )
            % took
        )
    first_ttl = int(p["ttl_s"] * (1 - p["ttl_jitter"]))  # the model's "first expiry" second
    if first_ttl < p["horizon_s"]:
        expiry = {
            "t": first_ttl,
            "n": num(s["origin_peak_after_first_ttl_rps"]),
            "jitter": num(round(100 * p["ttl_jitter"])),
        }
        if p["ttl_jitter"]:
            line = gettext(
                "Once the first copies expired (from %(t)s s), the origin's busiest second had "
                "%(n)s fetches (TTL jitter of ±%(jitter)s%% spread the expiries)."
            )
        else:
            line = gettext(
                "Once the first copies expired (from %(t)s s), the origin's busiest second had "
                "%(n)s fetches."
            )
        lines.append(line % expiry)
    if p["keys"] == 1:
        lines.append(
            _hot_key(s, p)
            if first_ttl < p["horizon_s"]
            else gettext(
                "One hot key expires at one moment whatever its TTL: make the run longer "
                "than %(t)s s to see what its expiry sends to the origin."
            )
            % {"t": first_ttl}
        )
    if s["timed_out_total"]:
        lines.append(
            gettext("%(n)s reads gave up waiting for a fetch.") % {"n": num(s["timed_out_total"])}
        )
    return lines


def _hot_key(s: Mapping[str, Any], p: Mapping[str, Any]) -> str:
    """What one hot key's expiry did in this run: a warning only where it flooded the origin."""
    words = {
        "n": num(s["origin_peak_after_first_ttl_rps"]),
        "capacity": num(s["origin_capacity_rps"]),
        "ms": num(p["origin_ms"]),
    }
    if s["origin_peak_after_first_ttl_rps"] > s["origin_capacity_rps"]:
        return (
            gettext(
                "One hot key expires at one moment whatever its TTL: here its expiry sent "
                "%(n)s fetches to the origin in one second, more than the %(capacity)s/s it can "
                "do. Only shared fetches, stale copies and the budget stand between it and the "
                "origin."
            )
            % words
        )
    return (
        gettext(
            "One hot key expires at one moment whatever its TTL, but here its expiry sent at "
            "most %(n)s fetches in one second, within the origin's %(capacity)s/s: the key is "
            "missing only while one fetch takes (%(ms)s ms). A slower fetch keeps it missing "
            "longer."
        )
        % words
    )


FIGURES = (
    Figure("offered_total", gettext_noop("Reads offered"), "int"),
    Figure("hit_total", gettext_noop("Cache hits"), "int"),
    Figure("stale_total", gettext_noop("Stale answers"), "int"),
    Figure("coalesced_total", gettext_noop("Reads coalesced"), "int"),
    Figure("fetched_total", gettext_noop("Reads fetched from the origin"), "int"),
    Figure("rejected_total", gettext_noop("Reads rejected (429)"), "int"),
    Figure("timed_out_total", gettext_noop("Reads timed out"), "int"),
    Figure("every_read_accounted", gettext_noop("Every read accounted for"), "bool"),
    Figure("not_fetched_total", gettext_noop("Reads that never reached the origin"), "int"),
    Figure(
        "first_10s_offered_rps",
        gettext_noop("Reads offered, first 10 s"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure("first_10s_hit_rps", gettext_noop("Hits, first 10 s"), "float", gettext_noop("req/s")),
    Figure(
        "first_10s_stale_rps",
        gettext_noop("Stale answers, first 10 s"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "first_10s_coalesced_rps",
        gettext_noop("Coalesced, first 10 s"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "first_10s_fetched_rps", gettext_noop("Fetched, first 10 s"), "float", gettext_noop("req/s")
    ),
    Figure(
        "first_10s_rejected_rps",
        gettext_noop("Rejected, first 10 s"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "first_10s_origin_rps",
        gettext_noop("Origin load, first 10 s"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure("origin_peak_rps", gettext_noop("Origin peak"), "float", gettext_noop("req/s")),
    Figure("origin_capacity_rps", gettext_noop("Origin capacity"), "float", gettext_noop("req/s")),
    Figure("origin_budget_rps", gettext_noop("Origin budget"), "float", gettext_noop("req/s")),
    Figure("origin_within_budget", gettext_noop("Origin stayed within budget"), "bool"),
    Figure("origin_within_capacity", gettext_noop("Origin stayed within capacity"), "bool"),
    Figure(
        "origin_peak_after_first_ttl_rps",
        gettext_noop("Origin peak after the first TTL"),
        "float",
        gettext_noop("req/s"),
        nullable=True,
    ),
    Figure("hit_share", gettext_noop("Share of hits"), "float"),
    Figure("timed_out_share", gettext_noop("Share timed out"), "float"),
    *latency_figures((("", gettext_noop("whole run")), ("first_10s", gettext_noop("first 10 s")))),
)


# The bound on a run's worker time, checked against the budget before it is queued.
cost = capstone_cost.cold_cache_cost


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
    uses_seed=USES_SEED,
    default_seed=DEFAULT_SEED,
    cost=cost,
    spread=SPREAD,
)
