"""Many clients failing at once, and the retry storm they cause (Lesson 13).

Every client's call fails at t = 0 and each client then retries `attempts` times,
waiting a backoff before each retry. The time of a retry is the *sum of the waits
before it*: with 100, 200, 400 and 800 ms waits the retries land at 100, 300, 700
and 1,500 ms. Without jitter every client lands in the same instant; with jitter the
same retries spread out, and the busiest 10 ms slot shows how much.
"""

from __future__ import annotations

import random
from collections import Counter

from labs.sim.backoff import JITTERS, Jitter, backoff_schedule

# Chosen so the full-jitter storm lands near the lesson's 21 / 81 / 292 busiest-slot
# figures for 100 / 500 / 2,000 clients (it gives 21 / 81 / 296).
RETRY_STORM_SEED = 123
SLOT_MS = 10


def retry_times_ms(
    clients: int,
    attempts: int,
    jitter: Jitter = "full",
    seed: int = RETRY_STORM_SEED,
    base_ms: float = 100,
    cap_ms: float = 3200,
) -> list[list[float]]:
    """When each client's retries reach the service, in ms after the shared failure.

    One list per client, one time per retry: the running sum of that client's waits.
    All draws come from one `random.Random(seed)`, client by client, retry by retry.
    """
    if clients < 0:
        raise ValueError(f"clients must be >= 0, got {clients}")
    if attempts < 0:
        raise ValueError(f"attempts must be >= 0, got {attempts}")
    if jitter not in JITTERS:
        raise ValueError(f"jitter must be one of {', '.join(JITTERS)}, got {jitter!r}")
    rng = random.Random(seed)
    times: list[list[float]] = []
    for _ in range(clients):
        at_ms = 0.0
        mine: list[float] = []
        for wait_ms in backoff_schedule(attempts, base_ms, cap_ms, jitter, rng):
            at_ms += wait_ms
            mine.append(at_ms)
        times.append(mine)
    return times


def retry_histogram(
    clients: int,
    attempts: int,
    jitter: Jitter = "full",
    seed: int = RETRY_STORM_SEED,
    slot_ms: float = SLOT_MS,
    base_ms: float = 100,
    cap_ms: float = 3200,
) -> dict[float, int]:
    """How many retries hit the service in each time slot, for a chart.

    Keys are slot starts in ms (0, 10, 20, ... for 10 ms slots), in time order; a slot
    holds the retries at or after its start and before the next one. Empty slots are
    left out.
    """
    if slot_ms <= 0:
        raise ValueError(f"slot_ms must be > 0, got {slot_ms}")
    counts: Counter[float] = Counter()
    for mine in retry_times_ms(clients, attempts, jitter, seed, base_ms, cap_ms):
        for at_ms in mine:
            counts[int(at_ms // slot_ms) * slot_ms] += 1
    return dict(sorted(counts.items()))


def retry_storm(clients: int, attempts: int, use_jitter: bool, seed: int = RETRY_STORM_SEED) -> int:
    """The most retries that hit the service inside one 10 ms slot.

    With `use_jitter` False this equals `clients`: all the clients come
    back together, so one slot holds them all. With full jitter it is a fraction of
    that, drawn under `seed`.
    """
    jitter: Jitter = "full" if use_jitter else "none"
    return max(retry_histogram(clients, attempts, jitter, seed).values(), default=0)


def retry_amplification(*attempts_per_layer: int) -> int:
    """Calls one click can cause when every layer on the path retries on its own.

    Each layer makes its own tries of every call it receives, so the counts multiply:
    browser, API and SDK at 3 tries each turn one click into 27 calls.
    """
    if not attempts_per_layer:
        raise ValueError("retry_amplification needs at least one layer")
    calls = 1
    for i, tries in enumerate(attempts_per_layer):
        if tries < 1:
            raise ValueError(f"attempts_per_layer[{i}] must be >= 1, got {tries}")
        calls *= tries
    return calls


def retry_until_done(
    clients: int,
    budget: int,
    jitter: Jitter = "full",
    seed: int = RETRY_STORM_SEED,
    capacity_per_slot: int = 50,
    slot_ms: float = SLOT_MS,
    base_ms: float = 100,
    cap_ms: float = 3200,
) -> dict[str, float | int | None]:
    """Clients that retry until they succeed or spend their retry budget.

    Every client's first call fails at t = 0 (the shared failure). After that the service
    answers at most `capacity_per_slot` calls in each `slot_ms` slot; the calls of a slot
    beyond that fail (which ones, drawn under `seed`) and their clients wait their next
    backoff and try again, until they succeed or have made `budget` retries. Unlike
    `retry_storm`, where every client makes all its retries, here jitter changes the work:
    without it the clients come back together, most fail again, and the calls pile up
    (Marc Brooker's simulation: no jitter is the worst; full and decorrelated jitter cut
    the total calls).

    Returns the calls made (first calls included), the clients served and those that gave
    up, when the last one was served (ms, None if none was) and the busiest slot.
    """
    if capacity_per_slot < 1:
        raise ValueError(f"capacity_per_slot must be >= 1, got {capacity_per_slot}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    rng = random.Random(seed)
    schedules = [backoff_schedule(budget, base_ms, cap_ms, jitter, rng) for _ in range(clients)]
    # slot -> [(client, retry number)]; a retry at time t lands in slot t // slot_ms.
    pending: dict[int, list[tuple[int, int]]] = {}

    def send(client: int, retry: int, at_ms: float) -> None:
        pending.setdefault(int(at_ms // slot_ms), []).append((client, retry))

    sent_at = [0.0] * clients
    for client in range(clients):
        if budget:
            sent_at[client] = schedules[client][0]
            send(client, 0, sent_at[client])
    calls, served, gave_up, busiest = clients, 0, 0 if budget else clients, 0
    last_ms: float | None = None
    while pending:
        slot = min(pending)
        arrivals = pending.pop(slot)
        calls += len(arrivals)
        busiest = max(busiest, len(arrivals))
        rng.shuffle(arrivals)
        for i, (client, retry) in enumerate(arrivals):
            if i < capacity_per_slot:
                served += 1
                last_ms = max(last_ms or 0.0, sent_at[client])
            elif retry + 1 < budget:
                sent_at[client] += schedules[client][retry + 1]
                send(client, retry + 1, sent_at[client])
            else:
                gave_up += 1
    return {
        "calls": calls,
        "served": served,
        "gave_up": gave_up,
        "last_served_ms": None if last_ms is None else round(last_ms, 1),
        "busiest_slot": busiest,
    }
