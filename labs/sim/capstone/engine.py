"""The event loop of the trapped service: callers, a queue, workers, and the controls.

Why a hand-written loop: a student's click runs this, and the phase map runs it a
hundred times, so it has to be quick (bench/bench_capstone.py compares it with the same
model in SimPy). Events are plain tuples `(time_s, kind, obj)` on a heap; requests are
small lists indexed by position; there are no per-event objects or method calls on the
hot path. Two streams skip the heap because they come in time order by themselves: new
callers (one pending arrival at a time) and deadlines (every attempt has the same
timeout, so deadlines fall in the order attempts were sent and wait in a plain FIFO).

What happens to one call:

1. A caller sends an attempt. Admission may refuse it at once (429), or the queue may be
   full (503); otherwise it is queued with a deadline = now + client timeout.
2. If no answer has come by the deadline the caller gives up on that attempt, waits a
   backoff (doubling, optionally jittered) and sends the next one, until it runs out of
   attempts or of retry budget. The abandoned attempt STAYS in the queue.
3. A worker takes a queued attempt. If its caller is still waiting when the work ends,
   the completion is useful; if not, the worker's time was wasted.

With the queue delay past the timeout every attempt fails, each call sends all its
attempts, and the offered load stays several times the normal one: the spike has ended
but the service cannot drain. That feedback loop is what the lab is about.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from labs.sim.capstone.obligations import LIVE, STATES, Ledger, Untracked
from labs.sim.capstone.streams import ARRIVALS, RETRIES, SERVICE, stream
from labs.sim.capstone.trapped_params import TrappedParams

# Event kinds. At equal times the lower number runs first.
END, CONTROL, FAIL, ATTEMPT, DONE, DONE_RESERVED = range(6)
# Where the next event comes from.
HEAP, NEW_CALLER, DEADLINE = range(3)
# What a CONTROL event does.
TRIGGER_ON, TRIGGER_OFF, RECOVER = range(3)
# A message (one attempt in the queue) is a list: [sent_s, deadline_s, call, state, service_s].
# Its state: waiting for an answer, answered, or shed by CoDel with a fast 503.
WAITING, ANSWERED, SHED = range(3)
# A worker event with no message (a worker freed after a discard, or arriving): an empty
# list rather than 0, so that it still compares with a message list at an equal time.
NO_MSG: list[Any] = []
# A call (one caller's request, across its attempts) is a list:
# [call_id, cost, attempts_sent, payment, first_sent_s]. The id comes first so that two
# events at the same time compare by id and never reach a None.

CODEL_TARGET_S = 0.005  # CoDel: once the queue has not been empty for the interval,
CODEL_INTERVAL_S = 0.100  # anything that waited longer than the target is shed.
ADMISSION_BURST_S = 0.2  # the admission bucket holds this many seconds of admit_rps
RETRY_WINDOW_S = 10.0  # the retry budget holds this many seconds of deposits

SERIES = (
    "arrivals",
    "retries",
    "admitted",
    "rejected",
    "completions",
    "useful",
    "wasted",
    "expired_dropped",
    "shed",
    "gave_up",
    "backlog",
    "queued",
    "oldest_age_s",
    "work_queued",
    "admit_limit_rps",
) + tuple(f"payments_{s}" for s in STATES)


def simulate(
    p: TrappedParams,
    seed: int,
    *,
    draws: Mapping[str, Callable[[], float]] | None = None,
    trace: list[tuple[Any, ...]] | None = None,
    lean: bool = False,
) -> dict[str, Any]:
    """Run one scenario; return per-second series and the facts the report needs.

    `lean` keeps no payments ledger (its counts stay at zero) and no per-answer waits
    (`waits_s` empty), for a reader of the queue's figures only (the phase map's hundred
    runs): every other figure is the same as without it.

    `draws` replaces a named stream by a function giving the next number in [0, 1), so a
    test can script a tiny scenario by hand; `trace`, when given, receives every step of every
    call as `(time_s, what, call_id, ...)`: "send" (with the attempt number), "start",
    "answer", "wasted", "timeout", "rejected", "dropped", "shed" and "gave_up".
    """
    # Common random numbers: callers, service times and retry jitter each have a stream,
    # so the controls (which change how much service and jitter is drawn) never move a caller.
    draws = draws or {}
    arrival_draw = draws.get(ARRIVALS) or stream(seed, ARRIVALS).random
    service_draw = draws.get(SERVICE) or stream(seed, SERVICE).random
    jitter_draw = draws.get(RETRIES) or stream(seed, RETRIES).random
    log = math.log
    push = heapq.heappush
    pop = heapq.heappop
    inf = math.inf

    horizon = float(p.horizon_s)
    base_rps = p.base_rps
    spike_rps = p.spike_rps
    t_on = p.trigger_start_s
    t_off = p.trigger_end_s
    timeout_s = p.client_timeout_ms / 1000.0
    service_s = p.service_ms / 1000.0
    unit_s = service_s  # mean service time now (the trigger may slow it down)
    expo = p.service_dist == "exponential"
    spread = p.cost_spread
    varied = spread > 1.0
    # Job cost is log-uniform between 1 and `spread` work units, scaled to a mean of 1.
    mean_cost = (spread - 1.0) / log(spread) if varied else 1.0
    pay_share = p.payment_share
    qlimit = p.queue_limit
    fifo = p.discipline != "lifo"
    codel = p.discipline == "codel"
    attempts_per_call = p.attempts_per_call
    # waits[n]: the backoff after the n-th attempt failed, before jitter.
    waits = [0.0] + [
        min(p.backoff_cap_ms, p.backoff_base_ms * 2.0 ** (n - 1)) / 1000.0
        for n in range(1, attempts_per_call + 1)
    ]
    jitter = p.jitter == "full"
    drop_s = p.drop_cost_ms / 1000.0
    workers = p.workers

    keep = Untracked if lean else Ledger
    ledger = keep(p.reconcile_delay_s, keep_unknown=p.reconcile_payments and p.recover_at_s > 0)
    ledger_new = ledger.new
    served = ledger.served
    discarded = ledger.discarded
    counts = ledger.counts

    # Controls: all off until RECOVER runs.
    admit_on = False
    admit_now = 0.0
    tokens = 0.0
    tokens_t = 0.0
    reopen_from = -1.0  # second the admission limit started to rise, once drained
    dropping = False
    pay_discard = False  # may a worker discard a payment message?
    budget_on = False  # the clients' shared retry budget
    budget_tokens = budget_cap = 0.0

    dq: deque[list[Any]] = deque()
    timeouts: deque[list[Any]] = deque()
    heap: list[tuple[float, int, Any]] = [(horizon, END, 0)]
    next_arrival = 0.0
    redraw = True  # the first "arrival" only draws the time of the real first one
    for at, what in ((t_on, TRIGGER_ON), (t_off, TRIGGER_OFF), (p.recover_at_s, RECOVER)):
        if at < horizon:
            heap.append((at, CONTROL, what))
    heapq.heapify(heap)

    idle = workers
    idle_reserved = 0
    retire = 0  # workers to take away as they finish (workers_lost)
    to_reserve = 0  # workers to move to the reserve as they finish
    in_service = 0
    last_empty = 0.0
    work_queued = 0.0

    out: dict[str, list[Any]] = {name: [] for name in SERIES}
    outs = [out[name] for name in SERIES]
    n_arr = n_retry = n_adm = n_rej = n_done = n_useful = n_wasted = 0
    n_expired = n_shed = n_gave_up = 0
    useful_work = wasted_work = drop_work = 0.0
    events = 0
    n_calls = 0
    next_sec = 1.0
    snapshot: dict[str, Any] = {}
    drained_at = -1.0
    # How long each caller answered this second waited: for its last attempt, and for the
    # whole call since its first attempt (retries and backoff included). One list a second.
    answered_waits: list[float] = []
    call_waits: list[float] = []
    waits_by_second: list[list[float]] = []
    call_waits_by_second: list[list[float]] = []

    while True:
        # The next event is the earliest of the heap's top, the next new caller and the
        # oldest deadline. New callers and deadlines each come in time order on their own,
        # so they need no heap.
        t = heap[0][0]
        src = HEAP
        if next_arrival < t:
            t = next_arrival
            src = NEW_CALLER
        if timeouts and timeouts[0][1] <= t:
            t = timeouts[0][1]
            src = DEADLINE
        if t >= next_sec:
            # Close every whole second before t. Rare next to events, so clarity first.
            while t >= next_sec and next_sec <= horizon:
                ledger.settle_due(next_sec)
                queued = len(dq)
                row = (
                    n_arr,
                    n_retry,
                    n_adm,
                    n_rej,
                    n_done,
                    n_useful,
                    n_wasted,
                    n_expired,
                    n_shed,
                    n_gave_up,
                    queued + in_service,
                    queued,
                    round(next_sec - dq[0][0], 3) if queued else 0.0,
                    round(work_queued, 3) if queued else 0.0,
                    round(admit_now, 3) if admit_on else 0.0,
                ) + tuple(counts[s] for s in STATES)
                for series, value in zip(outs, row, strict=True):
                    series.append(value)
                if not lean:
                    waits_by_second.append(answered_waits)
                    call_waits_by_second.append(call_waits)
                answered_waits = []
                call_waits = []
                n_arr = n_retry = n_adm = n_rej = n_done = n_useful = n_wasted = 0
                n_expired = n_shed = n_gave_up = 0
                if snapshot and queued <= workers:
                    if drained_at < 0:
                        drained_at = next_sec
                    if admit_on and reopen_from < 0 and next_sec >= t_off:
                        reopen_from = next_sec
                if reopen_from >= 0 and admit_on:
                    # Reopen gradually: from admit_rps up to full capacity, then lift.
                    ramp = p.reopen_ramp_s
                    done_share = (next_sec - reopen_from) / ramp if ramp > 0 else 1.0
                    top = p.capacity_rps
                    if done_share >= 1.0 or p.admit_rps >= top:
                        admit_on = False
                    else:
                        admit_now = p.admit_rps + (top - p.admit_rps) * done_share
                next_sec += 1.0
            if t >= horizon:
                break

        events += 1
        if src == DEADLINE:
            # A caller's deadline. If its attempt got an answer, nothing happens.
            msg = timeouts.popleft()
            if msg[3]:
                events -= 1  # not an event: the answer came first
                continue
            call = msg[2]
            send = False
            if trace is not None:
                trace.append((t, "timeout", call[0]))
        elif src == NEW_CALLER:
            # Draw the next arrival; a rate change restarts the draw (Poisson is memoryless).
            if t < t_on:
                rate, switch = base_rps, t_on
            elif t < t_off:
                rate, switch = spike_rps, t_off
            else:
                rate, switch = base_rps, inf
            nxt = t - log(1.0 - arrival_draw()) / rate if rate > 0.0 else inf
            real = not redraw
            redraw = nxt >= switch
            next_arrival = switch if redraw else nxt
            if not real:
                continue
            n_arr += 1
            n_calls += 1
            call = [
                n_calls,
                spread ** arrival_draw() / mean_cost if varied else 1.0,
                1,
                ledger_new(t) if pay_share and arrival_draw() < pay_share else None,
                t,
            ]
            if budget_on:
                budget_tokens += p.retry_budget
                if budget_tokens > budget_cap:
                    budget_tokens = budget_cap
            send = True
        else:
            t, kind, obj = pop(heap)
            if kind >= DONE:
                if obj:
                    # A worker finished a request: useful only if its caller still waits.
                    in_service -= 1
                    n_done += 1
                    call = obj[2]
                    if t <= obj[1]:
                        obj[3] = ANSWERED
                        n_useful += 1
                        useful_work += obj[4]
                        if not lean:
                            answered_waits.append(t - obj[0])
                            call_waits.append(t - call[4])
                        if trace is not None:
                            trace.append((t, "answer", call[0]))
                        if call[3]:
                            served(call[3], t, True)
                    else:
                        n_wasted += 1
                        wasted_work += obj[4]
                        if trace is not None:
                            trace.append((t, "wasted", call[0]))
                        if call[3]:
                            served(call[3], t, False)
                if kind == DONE_RESERVED:
                    # A reserved worker only takes the newest request, and only if fresh.
                    if dq and t < dq[-1][1]:
                        msg = dq.pop()
                        call = msg[2]
                        work_queued -= call[1]
                        svc = unit_s * call[1]
                        if expo:
                            svc *= -log(1.0 - service_draw())
                        msg[4] = svc
                        in_service += 1
                        push(heap, (t + svc, DONE_RESERVED, msg))
                        if trace is not None:
                            trace.append((t, "start", call[0]))
                    else:
                        idle_reserved += 1
                    continue
                if retire or to_reserve:
                    if retire:
                        retire -= 1  # this worker leaves (workers_lost)
                    else:
                        to_reserve -= 1
                        push(heap, (t, DONE_RESERVED, NO_MSG))
                    continue
                # Take the next job; discard the ones the controls say are worthless.
                while dq:
                    msg = dq.popleft() if fifo else dq.pop()
                    call = msg[2]
                    work_queued -= call[1]
                    if codel and t - last_empty > CODEL_INTERVAL_S and t - msg[0] > CODEL_TARGET_S:
                        if t < msg[1]:
                            # The caller is still waiting: a fast 503 lets it decide now.
                            msg[3] = SHED
                            n_shed += 1
                            if trace is not None:
                                trace.append((t, "shed", call[0]))
                            if call[3]:
                                discarded(call[3], t, True)
                            push(heap, (t, FAIL, call))
                        elif not call[3] or pay_discard:
                            n_expired += 1
                            if trace is not None:
                                trace.append((t, "dropped", call[0]))
                            if call[3]:
                                discarded(call[3], t, False)
                        else:
                            break  # an expired payment that may not be dropped: serve it
                    elif dropping and t >= msg[1] and (not call[3] or pay_discard):
                        n_expired += 1
                        if trace is not None:
                            trace.append((t, "dropped", call[0]))
                        if call[3]:
                            discarded(call[3], t, False)
                    else:
                        break
                    # Checking and discarding costs the worker a little time.
                    drop_work += drop_s
                    msg = None
                    if drop_s > 0.0:
                        push(heap, (t + drop_s, DONE, NO_MSG))
                        break
                else:
                    idle += 1  # the queue is empty: this worker waits
                    last_empty = t
                    continue
                if msg is None:
                    continue  # busy discarding
                svc = unit_s * call[1]
                if expo:
                    svc *= -log(1.0 - service_draw())
                msg[4] = svc
                in_service += 1
                push(heap, (t + svc, DONE, msg))
                if trace is not None:
                    trace.append((t, "start", call[0]))
                if not dq:
                    last_empty = t
                continue
            if kind == ATTEMPT:
                call = obj
                call[2] += 1
                n_retry += 1
                send = True
            elif kind == FAIL:
                call = obj  # shed by CoDel with a 503
                send = False
            else:  # CONTROL: rare, so written for reading rather than speed
                if obj == TRIGGER_ON:
                    unit_s = service_s * p.slowdown_factor
                    taken = min(idle, p.workers_lost)
                    idle -= taken
                    retire += p.workers_lost - taken
                elif obj == TRIGGER_OFF:
                    unit_s = service_s
                    cancelled = min(retire, p.workers_lost)
                    retire -= cancelled
                    for _ in range(p.workers_lost - cancelled):
                        push(heap, (t, DONE, NO_MSG))  # a returning worker looks for work
                else:
                    snapshot = _snapshot(p, t, len(dq) + in_service, work_queued, out)
                    if p.admission_limit:
                        admit_on = True
                        admit_now = p.admit_rps
                        tokens = admit_now * ADMISSION_BURST_S
                        tokens_t = t
                    if p.limit_retries:
                        budget_on = True
                        budget_cap = max(1.0, p.retry_budget * base_rps * RETRY_WINDOW_S)
                        budget_tokens = budget_cap
                    dropping = p.drop_expired
                    pay_discard = p.drop_payments or p.reconcile_payments
                    ledger.drop_payments = p.drop_payments
                    if p.reconcile_payments:
                        ledger.start_reconciling(t)
                    if p.reserve_share > 0.0 and workers > 1:
                        k = min(workers - 1, max(1, round(p.reserve_share * workers)))
                        taken = min(idle, k)
                        idle -= taken
                        to_reserve += k - taken
                        for _ in range(taken):
                            push(heap, (t, DONE_RESERVED, NO_MSG))
                continue

        if send:
            # Send one attempt: admission first, then the queue's own limit.
            if trace is not None:
                trace.append((t, "send", call[0], call[2]))
            if admit_on:
                tokens += (t - tokens_t) * admit_now
                tokens_t = t
                cap = admit_now * ADMISSION_BURST_S
                if tokens > cap:
                    tokens = cap if cap > 1.0 else 1.0
                if tokens >= 1.0:
                    tokens -= 1.0
                    ok = len(dq) < qlimit
                else:
                    ok = False
            else:
                ok = len(dq) < qlimit
            if ok:
                n_adm += 1
                msg = [t, t + timeout_s, call, WAITING, 0.0]
                if call[3]:
                    call[3][LIVE] += 1
                if idle:
                    idle -= 1
                    kind = DONE
                elif idle_reserved:
                    idle_reserved -= 1
                    kind = DONE_RESERVED
                else:
                    dq.append(msg)
                    timeouts.append(msg)
                    work_queued += call[1]
                    continue
                svc = unit_s * call[1]
                if expo:
                    svc *= -log(1.0 - service_draw())
                if svc > timeout_s:
                    timeouts.append(msg)  # it cannot finish in time: the caller will give up
                msg[4] = svc
                in_service += 1
                last_empty = t
                push(heap, (t + svc, kind, msg))
                if trace is not None:
                    trace.append((t, "start", call[0]))
                continue
            n_rej += 1  # refused at once (429 or 503): the caller knows now
            if trace is not None:
                trace.append((t, "rejected", call[0]))

        # The attempt failed (timed out, refused or shed): back off and retry, or give up.
        n = call[2]
        if n < attempts_per_call and (not budget_on or budget_tokens >= 1.0):
            if budget_on:
                budget_tokens -= 1.0
            push(heap, (t + waits[n] * jitter_draw() if jitter else t + waits[n], ATTEMPT, call))
        else:
            n_gave_up += 1
            if call[3]:
                ledger.gave_up(call[3], t)
            if trace is not None:
                trace.append((t, "gave_up", call[0]))

    return {
        "series": out,
        "events": events,
        "ledger": ledger,
        "snapshot": snapshot,
        "drained_at_s": drained_at if drained_at >= 0 else None,
        "work": {"useful_s": useful_work, "wasted_s": wasted_work, "drop_s": drop_work},
        "waits_s": {"attempt": waits_by_second, "call": call_waits_by_second},
    }


def _snapshot(
    p: TrappedParams, t: float, backlog: int, work_units: float, out: dict[str, list[Any]]
) -> dict[str, Any]:
    """What an operator knows when the controls go on: the inputs of the drain estimate."""
    in_trigger = p.trigger_start_s <= t < p.trigger_end_s
    workers = p.workers - (p.workers_lost if in_trigger else 0)
    slow = p.slowdown_factor if in_trigger else 1.0
    capacity = workers * 1000.0 / (p.service_ms * slow)
    new_rps = p.spike_rps if in_trigger else p.base_rps
    # Retries per new request, as measured over the last 10 seconds (or the budget).
    recent = slice(-10, None)
    originals = sum(out["arrivals"][recent])
    measured = sum(out["retries"][recent]) / originals if originals else 0.0
    retry_ratio = min(measured, p.retry_budget) if p.limit_retries else measured
    arrivals = new_rps * (1.0 + retry_ratio)
    if p.admission_limit:
        arrivals = min(arrivals, p.admit_rps)
    return {
        "at_s": t,
        "backlog": backlog,
        "work_units": work_units,
        "capacity_rps": capacity,
        "arrivals_rps": arrivals,
        "retry_ratio": measured,
    }
