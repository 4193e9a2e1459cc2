"""Follow-up 1: the cache restarts empty and 1,000 reads/s meet an origin that takes 100/s.

If every miss went to the origin, the origin would get ten times what it can do. A
recovery controller in front of it decides, for each read that finds no fresh value:

1. a bounded-stale copy may be served at once (and refreshed in the background);
2. a fetch for the same key already in flight may be joined (coalescing), within a
   stated scope: none, per instance, or global;
3. a new fetch may start only if the global origin budget allows it;
4. otherwise the read gets a fast 429.

Every offered read ends in exactly one of: hit, stale, coalesced, fetched, rejected, so
the 900/s the origin does not see are accounted for one by one. TTL jitter spreads the
expiry of many keys filled together, but it cannot help one hot key: that key still
expires at one moment, and only coalescing or stale answers protect the origin then.

The origin is a FIFO that finishes one fetch every 1 / origin_rps seconds, plus a fixed
network latency. Its fetches finish in the order they started, so no heap is needed.
"""

from __future__ import annotations

import bisect
import math
from array import array
from dataclasses import dataclass
from typing import Any

from labs.sim.capstone.latency import PERCENTILES, WaitHistogram, percentiles_ms
from labs.sim.capstone.specs import build, check_bounds, check_seed, param, param_specs
from labs.sim.capstone.streams import ARRIVALS, EXPIRY, stream
from labs.sim.capstone.trapped_params import gettext_noop

DEFAULT_SEED = 5
MAX_READS_PER_RUN = 1_000_000  # 1 to 4 s of CPU on the 2-core machines, at most ~200 MB
OUTCOMES = ("hit", "stale", "coalesced", "fetched", "rejected")
BUDGET_BURST_SHARE = 0.1


@dataclass(frozen=True)
class ColdCacheParams:
    """A cache restart in front of a small origin, and the controller's choices."""

    horizon_s: int = param(
        60, gettext_noop("Simulated seconds after the cache restarts empty."), min=5, max=3600
    )
    offered_rps: float = param(
        1000.0, gettext_noop("Reads per second (Poisson)."), min=1, max=50000
    )
    origin_rps: float = param(
        100.0, gettext_noop("Fetches per second the origin can do."), min=1, max=10000
    )
    origin_ms: float = param(
        50.0, gettext_noop("Network latency of one fetch, on top of its queue."), min=0, max=60000
    )
    keys: int = param(
        1000, gettext_noop("Distinct keys read (1 = one hot key)."), min=1, max=100000
    )
    key_skew: float = param(
        1.0, gettext_noop("Zipf exponent of key popularity (0 = all keys alike)."), min=0, max=3
    )
    instances: int = param(10, gettext_noop("App instances reads are spread over."), min=1, max=200)
    coalescing: str = param(
        "global",
        gettext_noop("Who shares one in-flight fetch per key."),
        choices=("none", "instance", "global"),
    )
    origin_budget: bool = param(True, gettext_noop("Cap the fetches started per second (global)."))
    budget_rps: float = param(
        100.0, gettext_noop("Fetches per second the budget allows."), min=1, max=100000
    )
    serve_stale: bool = param(
        True,
        gettext_noop("Keep serving an expired copy until it is older than “Stale for at most”."),
    )
    stale_max_s: float = param(
        60.0, gettext_noop("How long past its TTL a copy may still be served."), min=0, max=86400
    )
    ttl_s: float = param(
        30.0, gettext_noop("How long a fetched value stays fresh."), min=0.1, max=86400
    )
    ttl_jitter: float = param(
        0.0,
        gettext_noop("Each copy stays fresh for “Fresh for” × (1 ± this), drawn at random."),
        min=0,
        max=0.9,
    )
    client_timeout_ms: float = param(
        1000.0,
        gettext_noop("A read waiting on a fetch gives up after this long."),
        min=10,
        max=60000,
    )

    def __post_init__(self) -> None:
        check_bounds(self)
        reads = self.offered_rps * self.horizon_s
        if reads > MAX_READS_PER_RUN:
            raise ValueError(
                f"offered_rps * horizon_s must be <= {MAX_READS_PER_RUN:,}, got {reads:,.0f}"
            )


PARAM_SPECS = param_specs(ColdCacheParams)
SERIES = (
    "offered",
    *OUTCOMES,
    "origin_fetches",
    "background_refreshes",
    "timed_out",
    "origin_delay_ms",
    "keys_filled",
)


def cold_cache(seed: int = DEFAULT_SEED, **params: Any) -> dict[str, Any]:
    """Play a cache restart; return per-second outcomes, origin load and the accounting."""
    p = build(ColdCacheParams, params)
    seed = check_seed(seed)
    # Common random numbers: the reads (time, key, instance) come from their own stream,
    # so changing a control never changes which reads arrive; TTL jitter has another.
    arrival_draw = stream(seed, ARRIVALS).random
    expiry_draw = stream(seed, EXPIRY).random
    log = math.log

    # Key popularity: Zipf weights, sampled with a binary search on their running sum.
    cum = []
    total_w = 0.0
    for k in range(p.keys):
        total_w += 1.0 / (k + 1) ** p.key_skew
        cum.append(total_w)
    pick = bisect.bisect_left

    fresh_until: dict[int, float] = {}
    stale_until: dict[int, float] = {}
    # Fetches in start order, which is also finish order, as parallel arrays (40 bytes a
    # fetch; a list per fetch was ten times that, and a slow origin can have every one of
    # a million fetches in flight at once). `head` is the next to finish. The reads waiting
    # on a fetch are a chain through `w_arrived` / `w_next` (16 bytes a read).
    f_done, f_key, f_scope = array("d"), array("q"), array("q")  # f_scope -1: not shared
    f_first, f_last = array("q"), array("q")  # its chain of waiting reads, -1 if none
    w_arrived, w_next = array("d"), array("q")
    head = 0
    in_flight: dict[int, int] = {}  # scope code -> the fetch others may join
    origin_free = 0.0
    per_fetch_s = 1.0 / p.origin_rps
    latency_s = p.origin_ms / 1000.0
    timeout_s = p.client_timeout_ms / 1000.0
    # The budget is a token bucket that can never start more than budget_rps fetches in
    # any one-second window: it holds a tenth of the budget and refills at nine tenths.
    bucket_max = max(1.0, BUDGET_BURST_SHARE * p.budget_rps)
    refill_rps = max(0.0, p.budget_rps - bucket_max)
    tokens = bucket_max
    tokens_t = 0.0
    scope = p.coalescing

    out: dict[str, list[Any]] = {name: [] for name in SERIES}
    now: dict[str, float] = dict.fromkeys(SERIES, 0)
    horizon = float(p.horizon_s)
    next_sec = 1.0
    t = -log(1.0 - arrival_draw()) / p.offered_rps
    delay_sum = 0.0
    # How long each answered read waited, by the second its answer came: a hit or a stale
    # copy at once (0 s), a fetched or joined read when its fetch is done, unless it gave up.
    # Each second's waits become that second's percentiles when it closes; the run's and
    # the first ten seconds' are counted in histograms, so no list grows with the run.
    waits: list[float] = []
    later_waits: dict[int, list[float]] = {}  # second -> waits of fetches done then
    latency: dict[str, list[float | None]] = {f"latency_p{q}_ms": [] for q in PERCENTILES}
    whole, first_10s = WaitHistogram(timeout_s), WaitHistogram(timeout_s)

    def wait_on(fetch: int, arrived: float) -> None:
        w = len(w_arrived)
        w_arrived.append(arrived)
        w_next.append(-1)
        if f_last[fetch] < 0:
            f_first[fetch] = w
        else:
            w_next[f_last[fetch]] = w
        f_last[fetch] = w

    def fill(fetch: int) -> None:
        done_s, key, code = f_done[fetch], f_key[fetch], f_scope[fetch]
        ttl = p.ttl_s * (1.0 + p.ttl_jitter * (2.0 * expiry_draw() - 1.0))
        fresh_until[key] = done_s + ttl
        stale_until[key] = done_s + ttl + p.stale_max_s
        if code >= 0 and in_flight.get(code) == fetch:
            del in_flight[code]
        w = f_first[fetch]
        while w >= 0:
            arrived = w_arrived[w]
            if done_s - arrived > timeout_s:
                now["timed_out"] += 1
            else:
                later_waits.setdefault(int(done_s), []).append(done_s - arrived)
            w = w_next[w]

    def start_fetch(key: int, code: int, arrived: float | None) -> None:
        nonlocal origin_free, tokens, delay_sum
        begin = max(t, origin_free)
        origin_free = begin + per_fetch_s
        done = origin_free + latency_s
        delay_sum += done - t
        fetch = len(f_done)
        f_done.append(done)
        f_key.append(key)
        f_scope.append(code)
        f_first.append(-1)
        f_last.append(-1)
        if arrived is not None:
            wait_on(fetch, arrived)
        if code >= 0:
            in_flight[code] = fetch
        now["origin_fetches"] += 1
        if p.origin_budget:
            tokens -= 1.0

    while True:
        # Finish fetches due before this read, then close the seconds it has passed.
        while head < len(f_done) and f_done[head] <= t:
            fill(head)
            head += 1
        while t >= next_sec and next_sec <= horizon:
            n = now["origin_fetches"]
            now["origin_delay_ms"] = round(1000.0 * delay_sum / n, 1) if n else 0.0
            now["keys_filled"] = len(fresh_until)
            for name in SERIES:
                out[name].append(now[name])
                now[name] = 0
            waits.extend(later_waits.pop(int(next_sec) - 1, ()))
            for q, value in percentiles_ms(waits).items():
                latency[f"latency_p{q}_ms"].append(value)
            whole.add(waits)
            if next_sec <= 10:
                first_10s.add(waits)
            waits = []
            delay_sum = 0.0
            next_sec += 1.0
        if t >= horizon:
            break

        now["offered"] += 1
        key = pick(cum, arrival_draw() * total_w) if p.keys > 1 else 0
        # Drawn for every read, used only by per-instance coalescing: the reads stay the
        # same whichever coalescing scope is chosen.
        instance = int(arrival_draw() * p.instances) if p.instances > 1 else 0
        if fresh_until.get(key, -1.0) > t:
            now["hit"] += 1
            waits.append(0.0)
        else:
            code = -1 if scope == "none" else key if scope == "global" else instance * p.keys + key
            joinable = in_flight.get(code) if code >= 0 else None
            if p.origin_budget:
                tokens = min(bucket_max, tokens + (t - tokens_t) * refill_rps)
                tokens_t = t
                budget_ok = tokens >= 1.0
            else:
                budget_ok = True
            if p.serve_stale and stale_until.get(key, -1.0) > t:
                # Answer now from the old copy; refresh it if nobody is and the budget allows.
                now["stale"] += 1
                waits.append(0.0)
                if joinable is None and budget_ok:
                    now["background_refreshes"] += 1
                    start_fetch(key, code, None)
            elif joinable is not None:
                now["coalesced"] += 1
                wait_on(joinable, t)
            elif budget_ok:
                now["fetched"] += 1
                start_fetch(key, code, t)
            else:
                now["rejected"] += 1  # 429: no safe answer and no budget to fetch one
        t -= log(1.0 - arrival_draw()) / p.offered_rps

    series = {
        "second": list(range(len(out["offered"]))),
        **out,
        **latency,
    }
    summary = _summary(p, out)
    # Over the whole run and over the cold first ten seconds.
    for suffix, histogram in (("", whole), ("_first_10s", first_10s)):
        for q, value in histogram.percentiles_ms().items():
            summary[f"p{q}_ms{suffix}"] = value
    first_10s_rows = [
        {"outcome": outcome, "reads_per_s": summary[f"first_10s_{outcome}_rps"], "meaning": why}
        for outcome, why in (
            ("fetched", "went to the origin itself (within the budget)"),
            ("hit", "found a fresh value"),
            ("coalesced", "joined a fetch for the same key already in flight"),
            ("stale", "got a bounded-stale copy at once"),
            ("rejected", "got a fast 429: no safe value and no budget left"),
        )
    ]
    return {"summary": summary, "series": series, "tables": {"first_10s": first_10s_rows}}


def _summary(p: ColdCacheParams, out: dict[str, list[Any]]) -> dict[str, Any]:
    """Totals, the per-second accounting of the reads the origin did not serve, peaks."""
    secs = len(out["offered"])
    totals = {name: sum(out[name]) for name in ("offered", *OUTCOMES, "timed_out")}
    origin = out["origin_fetches"]
    first = slice(0, min(10, secs))
    n_first = max(1, min(10, secs))
    accounted = all(out["offered"][i] == sum(out[o][i] for o in OUTCOMES) for i in range(secs))
    first_ttl = int(p.ttl_s * (1.0 - p.ttl_jitter))
    later = origin[first_ttl:] if first_ttl < secs else []
    budget = p.budget_rps if p.origin_budget else None
    return {
        **{f"{name}_total": value for name, value in totals.items()},
        "every_read_accounted": accounted,
        "not_fetched_total": totals["offered"] - totals["fetched"],
        # The cold first ten seconds, per second on average: offered = fetched + the rest.
        "first_10s_offered_rps": round(sum(out["offered"][first]) / n_first, 1),
        **{f"first_10s_{o}_rps": round(sum(out[o][first]) / n_first, 1) for o in OUTCOMES},
        "first_10s_origin_rps": round(sum(origin[first]) / n_first, 1),
        "origin_peak_rps": max(origin, default=0),
        "origin_capacity_rps": p.origin_rps,
        "origin_budget_rps": budget if budget is not None else 0,
        "origin_within_budget": budget is None or max(origin, default=0) <= budget,
        "origin_within_capacity": max(origin, default=0) <= p.origin_rps,
        "origin_peak_after_first_ttl_rps": max(later, default=0),
        "hit_share": round(totals["hit"] / totals["offered"], 4) if totals["offered"] else 0.0,
        "timed_out_share": round(totals["timed_out"] / totals["offered"], 4)
        if totals["offered"]
        else 0.0,
    }


__all__ = ["PARAM_SPECS", "ColdCacheParams", "cold_cache"]
