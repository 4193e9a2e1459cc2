"""The lessons' "Try it" snippets, rewritten against `labs.sim`, print the lessons' lines.

Expected text is the output the lessons print under "Verify — what you should see";
the code producing it is ours. Only the full-jitter storm figures differ by design:
they come from a random draw and are checked against a tolerance.
"""

from __future__ import annotations

import re

from labs.sim import (
    CircuitBreaker,
    backoff_ms,
    busy_backlog,
    call_with_timeout,
    clear_time_s,
    consume,
    deliver_at_least_once,
    fanout_time_min,
    littles_law,
    parallel,
    play_breaker,
    process,
    redrive,
    retry_storm,
    serial,
)


def lines(text: str) -> list[str]:
    return text.strip("\n").split("\n")


LESSON_07_DEMO = """
    10 workers × 50 SMS/s → all 5M sent in  166.7 min
    50 workers × 50 SMS/s → all 5M sent in   33.3 min
   200 workers × 50 SMS/s → all 5M sent in    8.3 min
"""

LESSON_07_SNIPPET = """
 50 workers × 50 SMS/s →   33.3 min
 50 workers × 25 SMS/s →   66.7 min
100 workers × 50 SMS/s →   16.7 min
 50 workers ×  5 SMS/s →  333.3 min
backlog after 60 s: 30,000 jobs waiting · cleared 12 s after the rush
delivered 4 · sent 3 ['sms-1', 'sms-2', 'sms-3']
"""

LESSON_13_FIRST_SNIPPET = """
latency   120 ms, timeout 1,000 ms → ('ok', 120)
latency   900 ms, timeout 1,000 ms → ('ok', 900)
latency  1500 ms, timeout 1,000 ms → ('timeout', 1000)
latency 30000 ms, timeout 1,000 ms → ('timeout', 1000)
2,000 req/s, each caller waits up to   30 s →  60,000 requests stuck at worst
2,000 req/s, each caller waits up to    1 s →   2,000 requests stuck at worst
2,000 req/s, each caller waits up to  0.2 s →     400 requests stuck at worst
backoff (no jitter): [100, 200, 400, 800, 1600, 3200, 3200] ms
 100 clients, 4 retries → busiest 10 ms:  100 without jitter,  21 with full jitter
 500 clients, 4 retries → busiest 10 ms:  500 without jitter,  81 with full jitter
2000 clients, 4 retries → busiest 10 ms: 2000 without jitter, 292 with full jitter
"""

LESSON_13_SECOND_SNIPPET = """
breaker  5 failures, open 10 s → reached the sick service  7 · failed fast 27 · first ok at 34 s
breaker  3 failures, open 10 s → reached the sick service  5 · failed fast 27 · first ok at 32 s
breaker  5 failures, open  2 s → reached the sick service 17 · failed fast 13 · first ok at 30 s
breaker 10 failures, open 30 s → reached the sick service 10 · failed fast 29 · first ok at 39 s
7 deliveries of 4 payments → plain 7 charges · idempotent 4
maxReceiveCount 1 → made 8, DLQ ['pdf-3', 'pdf-7'], receives 10
maxReceiveCount 3 → made 8, DLQ ['pdf-3', 'pdf-7'], receives 14
maxReceiveCount 5 → made 8, DLQ ['pdf-3', 'pdf-7'], receives 18
one AZ 99.0% → two 99.9900% · three 99.999900%
one AZ 99.5% → two 99.9975% · three 99.999988%
chain of 3 at 99.9% → 99.70% · chain of 6 → 99.40% · 6 links each on 3 AZs → 99.999999%
"""

LESSON_13_DEMO = """
   latency    120 ms, timeout 1,000 ms → ('ok', 120)
   latency  30000 ms, timeout 1,000 ms → ('timeout', 1000)
   no jitter   → busiest 10 ms:  500 retries hit the database together
   calls that reached the sick service: 7 · failed fast without waiting: 27 · state at 40 s: closed
── at-least-once: 4 deliveries for 3 payments → plain worker charges 4, idempotent worker charges 3
── a poison message: 9 PDFs made, ['pdf-7'] moved to the DLQ after 3 receives (12 receives in total)
── multi-AZ: one AZ at 99.5% → two AZs 99.9975% · three AZs 99.999988%
   a chain API 99.9% × Redis 99.9% × database 99.95% = 99.75% — every dependency lowers the total
"""

JITTER_FIGURE = re.compile(r"(\d+) with full jitter$")


def test_it_prints_lesson_07s_queues_demo():
    printed = [
        f"   {workers:>3} workers × 50 SMS/s → all 5M sent in "
        f"{fanout_time_min(5_000_000, workers, 50):6.1f} min"
        for workers in (10, 50, 200)
    ]
    assert printed == lines(LESSON_07_DEMO)


def test_it_prints_lesson_07s_snippet():
    printed = [
        f"{workers:>3} workers × {rate:>2} SMS/s → "
        f"{fanout_time_min(5_000_000, workers, rate):6.1f} min"
        for workers, rate in ((50, 50), (50, 25), (100, 50), (50, 5))
    ]
    backlog = busy_backlog(3_000, 2_500, 60)
    printed.append(
        f"backlog after 60 s: {backlog:,} jobs waiting · "
        f"cleared {clear_time_s(backlog, 2_500):.0f} s after the rush"
    )
    deliveries = ["sms-1", "sms-2", "sms-2", "sms-3"]
    sent = consume(deliveries, idempotent=True)
    printed.append(f"delivered {len(deliveries)} · sent {len(sent)} {sent}")
    assert printed == lines(LESSON_07_SNIPPET)


def test_it_prints_lesson_13s_first_snippet():
    printed = [
        f"latency {latency:>5} ms, timeout 1,000 ms → {call_with_timeout(latency, 1000)}"
        for latency in (120, 900, 1500, 30000)
    ]
    printed += [
        f"2,000 req/s, each caller waits up to {wait:>4} s → "
        f"{littles_law(2000, wait):>7,.0f} requests stuck at worst"
        for wait in (30, 1, 0.2)
    ]
    printed.append(f"backoff (no jitter): {[backoff_ms(a) for a in range(7)]} ms")
    printed += [
        f"{clients:>4} clients, 4 retries → busiest 10 ms: "
        f"{retry_storm(clients, 4, False):>4} without jitter, "
        f"{retry_storm(clients, 4, True):>3} with full jitter"
        for clients in (100, 500, 2000)
    ]
    expected = lines(LESSON_13_FIRST_SNIPPET)
    assert printed[:8] == expected[:8]
    for ours, theirs in zip(printed[8:], expected[8:], strict=True):
        # Same line up to the jittered figure, which must land within 15%.
        assert JITTER_FIGURE.sub("", ours) == JITTER_FIGURE.sub("", theirs)
        our_figure = int(JITTER_FIGURE.search(ours).group(1))
        lesson_figure = int(JITTER_FIGURE.search(theirs).group(1))
        assert abs(our_figure - lesson_figure) <= 0.15 * lesson_figure


def test_it_prints_lesson_13s_second_snippet():
    printed = []
    for threshold, open_s in ((5, 10), (3, 10), (5, 2), (10, 30)):
        breaker = CircuitBreaker(threshold, open_s)
        log = [breaker.call(t, t >= 30) for t in range(40)]
        printed.append(
            f"breaker {threshold:>2} failures, open {open_s:>2} s → "
            f"reached the sick service {log.count('failed'):>2} · "
            f"failed fast {log.count('fast-fail'):>2} · first ok at {log.index('ok')} s"
        )
    payments = deliver_at_least_once(
        ["pay-1", "pay-2", "pay-3", "pay-4"], ["pay-2", "pay-4", "pay-4"]
    )
    printed.append(
        f"{len(payments)} deliveries of 4 payments → "
        f"plain {process(payments, False)} charges · idempotent {process(payments, True)}"
    )
    pdfs = [f"pdf-{i}" for i in range(10)]
    for max_receives in (1, 3, 5):
        done, dlq, receives = redrive(pdfs, {"pdf-3", "pdf-7"}, max_receives=max_receives)
        printed.append(
            f"maxReceiveCount {max_receives} → made {len(done)}, DLQ {dlq}, receives {receives}"
        )
    for one_az in (0.99, 0.995):
        printed.append(
            f"one AZ {one_az:.1%} → two {parallel(one_az, 2):.4%} · three {parallel(one_az, 3):.6%}"
        )
    printed.append(
        f"chain of 3 at 99.9% → {serial(0.999, 0.999, 0.999):.2%} · "
        f"chain of 6 → {serial(*[0.999] * 6):.2%} · "
        f"6 links each on 3 AZs → {serial(*[parallel(0.999, 3)] * 6):.6%}"
    )
    assert printed == lines(LESSON_13_SECOND_SNIPPET)


def test_it_prints_lesson_13s_resilience_demo_lines():
    run = play_breaker(threshold=5, open_s=10, down_from_s=0, down_until_s=30, duration_s=40)
    payments = deliver_at_least_once(["pay-1", "pay-2", "pay-3"], ["pay-2"])
    done, dlq, receives = redrive([f"pdf-{i}" for i in range(10)], {"pdf-7"}, max_receives=3)
    printed = [
        *(
            f"   latency {latency:>6} ms, timeout 1,000 ms → {call_with_timeout(latency, 1000)}"
            for latency in (120, 30000)
        ),
        f"   no jitter   → busiest 10 ms: {retry_storm(500, 4, False):>4} retries hit the "
        "database together",
        f"   calls that reached the sick service: {run.failed} · failed fast without waiting: "
        f"{run.fast_fail} · state at 40 s: {run.final_state}",
        f"── at-least-once: {len(payments)} deliveries for 3 payments → plain worker charges "
        f"{process(payments, False)}, idempotent worker charges {process(payments, True)}",
        f"── a poison message: {len(done)} PDFs made, {dlq} moved to the DLQ after 3 receives "
        f"({receives} receives in total)",
        f"── multi-AZ: one AZ at 99.5% → two AZs {parallel(0.995, 2):.4%} · "
        f"three AZs {parallel(0.995, 3):.6%}",
        f"   a chain API 99.9% × Redis 99.9% × database 99.95% = "
        f"{serial(0.999, 0.999, 0.9995):.2%} — every dependency lowers the total",
    ]
    assert printed == lines(LESSON_13_DEMO)
    assert littles_law(2000, 30) == 60_000
    assert abs(retry_storm(500, 4, True) - 81) <= 0.15 * 81
