"""How fast the Redis queue acknowledges messages, beside the raw limit of the same server.

Run by hand from the project root:

    .venv/bin/python bench/bench_queue.py            # full run, about 3 minutes
    .venv/bin/python bench/bench_queue.py --quick    # one run each, about 40 s

For 1, 2 and 4 consumer processes, single reads (1 message per receive) and batched reads
(`--batch` per receive), it times draining a pre-filled queue two ways:

- queue: `RedisQueue.receive` + `RedisQueue.ack_many` (two Lua scripts: retention sweep,
  reclaim of timed-out messages, read, counters, TTLs; then XACK + XDEL + SADD done);
- raw: the same core commands from redis-py with no Lua and no bookkeeping: XREADGROUP, then
  one pipeline of XACK + XDEL + SADD.

Both make two round trips per read, so the ratio is the price of the queue's rules. Consumers
are processes, not threads, so Python's GIL does not cap the figures. `redis-benchmark`, if
installed, gives the server's own ceiling for pipelined XADD and PING. Every key lives under
a fresh run prefix and is deleted afterwards; other users of the server add noise.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import redis  # noqa: E402

from bench.machine import describe  # noqa: E402
from labs.experiments.namespace import Namespace, connect, redis_url  # noqa: E402
from labs.experiments.queue import GROUP, RedisQueue  # noqa: E402


def _consume(kind: str, url: str, run_id: str, batch: int, index: int, go, out) -> None:
    r = connect(url)
    ns = Namespace(run_id)
    stream, done_set = ns.key("q"), ns.key("done")
    queue = RedisQueue(r, ns, visibility_timeout_s=3600, create=False)
    consumer = f"c{index}"
    acked = 0
    go.wait()
    while True:
        if kind == "queue":
            messages = queue.receive(consumer, batch)
            if not messages:
                break
            acked += queue.ack_many(messages)
        else:
            reply = r.xreadgroup(GROUP, consumer, {stream: ">"}, count=batch)
            if not reply:
                break
            entries = reply[0][1]
            ids = [eid for eid, _ in entries]
            pipe = r.pipeline(transaction=False)
            pipe.xack(stream, GROUP, *ids)
            pipe.xdel(stream, *ids)
            pipe.sadd(done_set, *[f[b"m"] for _, f in entries])
            acked += pipe.execute()[0]
    out.put(acked)
    r.close()


def drain_once(kind: str, url: str, messages: int, consumers: int, batch: int) -> float:
    """Fill a fresh queue with `messages`, drain it with `consumers` processes; acks per second."""
    r = connect(url)
    ns = Namespace(ttl_s=600)
    try:
        queue = RedisQueue(r, ns, visibility_timeout_s=3600)
        queue.send_many((f"m-{i}", "x" * 32) for i in range(messages))
        ctx = mp.get_context("spawn")
        go, out = ctx.Event(), ctx.Queue()
        procs = [
            ctx.Process(target=_consume, args=(kind, url, ns.run_id, batch, i, go, out))
            for i in range(consumers)
        ]
        for p in procs:
            p.start()
        time.sleep(0.5)  # let every process import and connect before the clock starts
        start = time.perf_counter()
        go.set()
        acked = sum(out.get(timeout=300) for _ in procs)
        elapsed = time.perf_counter() - start
        for p in procs:
            p.join()
        if acked != messages:
            raise RuntimeError(f"{kind}: acked {acked} of {messages}")
        return acked / elapsed
    finally:
        ns.cleanup(r)
        r.close()


def redis_benchmark(url: str, requests: int) -> dict[str, float]:
    """The server's own ceiling: pipelined XADD and PING from redis-benchmark (C, 4 clients)."""
    tool = shutil.which("redis-benchmark")
    if tool is None:
        return {}
    parsed = urlparse(url)
    ns = Namespace(ttl_s=600)
    key = ns.key("rb")
    # The same database as REDIS_URL's: without --dbnum redis-benchmark writes to db 0,
    # and the cleanup below (which runs on REDIS_URL's database) would leave its stream there.
    db = int(parsed.path.lstrip("/") or 0)
    base = [tool, "-h", parsed.hostname or "127.0.0.1", "-p", str(parsed.port or 6379)]
    base += ["--dbnum", str(db), "-q", "-n", str(requests), "-c", "4", "-P", "50"]
    if parsed.password:
        base += ["-a", parsed.password, "--no-auth-warning"]
        if parsed.username:
            base += ["--user", parsed.username]
    rates = {}
    r = connect(url)
    try:
        for label, extra in (
            ("XADD", ["XADD", key, "*", "m", "x" * 32]),
            ("PING", ["-t", "ping_mbulk"]),
        ):
            text = subprocess.run(base + extra, capture_output=True, text=True, check=True).stdout
            found = re.findall(r"([\d.]+) requests per second", text)
            if found:
                rates[label] = float(found[-1])
    finally:
        ns.cleanup(r)
        left = r.exists(key)
        r.close()
    if left:
        raise RuntimeError(f"redis-benchmark's stream {key} is still in db {db}")
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer messages and repeats")
    parser.add_argument("--batch", type=int, default=50, help="messages per batched read")
    parser.add_argument("--reps", type=int, default=3, help="runs per figure; the median is shown")
    args = parser.parse_args()
    url = redis_url()
    single_n, batched_n, reps = (2_000, 20_000, 1) if args.quick else (5_000, 60_000, args.reps)

    info = connect(url).info("server")
    print(describe())
    print("command: python bench/bench_queue.py" + (" --quick" if args.quick else ""))
    print(
        f"Redis {info['redis_version']} at {url} · Python {platform.python_version()} · "
        f"redis-py {redis.__version__} · {os.cpu_count()} CPUs · median of {reps}"
    )
    print()
    print("| read | consumers | messages | queue acks/s | raw pipeline acks/s | queue / raw |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for label, batch, n in (
        ("single", 1, single_n),
        (f"batched ({args.batch})", args.batch, batched_n),
    ):
        for consumers in (1, 2, 4):
            runs: dict[str, list[float]] = {"queue": [], "raw": []}
            for _ in range(reps):  # interleaved, so a busy moment on the server hits both
                for kind in runs:
                    runs[kind].append(drain_once(kind, url, n, consumers, batch))
            figures = {kind: statistics.median(rates) for kind, rates in runs.items()}
            ratio = figures["queue"] / figures["raw"]
            print(
                f"| {label} | {consumers} | {n:,} | {figures['queue']:,.0f} | "
                f"{figures['raw']:,.0f} | {ratio:.2f} |",
                flush=True,
            )
    rates = redis_benchmark(url, 200_000 if not args.quick else 50_000)
    if rates:
        print()
        print(
            "redis-benchmark (4 clients, pipeline 50): "
            + " · ".join(f"{k} {v:,.0f}/s" for k, v in rates.items())
        )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
