"""A class experiment's live channel, measured: 100 phones and a projector, two channels.

Starts the site twice on loopback, as the two channels need it: gunicorn (gthread, as
`./dev serve` runs it) for polling `state.json` once a second, and uvicorn (ASGI, Django's
async view fed by Redis pub/sub) for Server-Sent Events. Makes one class experiment in the
database given (`DATABASE_URL`, migrated), then for each channel: N phones and one
projector follow the live state while the bench publishes a state change every 2 s (as the
teacher's control view does: `classlab.live.publish`), and each client notes when it
first sees each change. Prints per channel: change → phone and → projector p50/p95/max,
the web server's CPU (seconds of CPU per second of wall time, from /proc), and the p95 of
a lab page fetched by "another class" at the same time against the same page with no
experiment running. Usage:

    .venv/bin/python bench/class_experiment.py --phones 100 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

import django  # noqa: E402

django.setup()

import logging  # noqa: E402

import httpx  # noqa: E402

logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise

from classlab import live  # noqa: E402
from classlab.models import Experiment  # noqa: E402
from classlab.storm import Storm  # noqa: E402
from labs.runs.redis_clients import experiments  # noqa: E402
from tests.base import make_user  # noqa: E402

OTHER_PAGE = "/"  # what another class keeps loading while the experiment runs


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of `pid` and its children still running (from /proc)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(c) for c in children.read_text().split()]
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def serve(kind: str, port: int) -> subprocess.Popen:
    env = {**os.environ, "DJANGO_DEBUG": "0"}
    if kind == "gunicorn":
        cmd = [
            sys.executable,
            "-m",
            "gunicorn",
            "school.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--worker-class",
            "gthread",
            "--threads",
            "8",
            "--keep-alive",
            "5",
            "--log-level",
            "warning",
        ]
    else:
        cmd = [
            sys.executable,
            "-m",
            "uvicorn",
            "school.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--log-level",
            "warning",
        ]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)


async def wait_up(url: str) -> None:
    async with httpx.AsyncClient() as c:
        for _ in range(200):
            try:
                await c.get(url + "/healthz")
                return
            except httpx.HTTPError:
                await asyncio.sleep(0.1)
    raise RuntimeError(f"{url} did not start")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def run_channel(
    kind: str, base: str, exp: Experiment, phones: int, seconds: float, server: subprocess.Popen
) -> dict:
    r = experiments("bench")
    published: dict[int, float] = {}
    seen: dict[str, list[float]] = {"phone": [], "projector": []}
    stop = asyncio.Event()

    def note(who: str, state: dict) -> None:
        seq = state.get("bench_seq")
        if seq in published and state.get(f"_seen_{who}") is None:
            seen["projector" if who == "projector" else "phone"].append(
                time.monotonic() - published[seq]
            )

    # A client counts only the changes published after it was following: the state a
    # stream replays when it connects (or a poller's first answer) is no delivery latency.
    # Counting those made the first SSE run's p95 equal the publish interval.
    connected: list[float] = []

    async def poller(who: str) -> None:
        last = -1
        ready = float("inf")
        async with httpx.AsyncClient(base_url=base, timeout=10) as c:
            while not stop.is_set():
                try:
                    state = (await c.get(f"/x/{exp.code}/state.json")).json()
                except (httpx.HTTPError, ValueError):
                    state = {}
                if ready == float("inf") and state:
                    ready = time.monotonic()
                    connected.append(ready)
                    last = state.get("bench_seq", -1)
                if (
                    state.get("bench_seq", -1) != last
                    and state.get("bench_seq") in published
                    and published[state["bench_seq"]] >= ready
                ):
                    last = state["bench_seq"]
                    seen["projector" if who == "projector" else "phone"].append(
                        time.monotonic() - published[last]
                    )
                await asyncio.sleep(1.0)

    async def streamer(who: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=None) as c:  # noqa: SIM117
            async with c.stream("GET", f"/x/{exp.code}/stream/") as answer:
                ready = time.monotonic()
                connected.append(ready)
                async for line in answer.aiter_lines():
                    if stop.is_set():
                        return
                    if line.startswith("data: "):
                        state = json.loads(line[6:])
                        seq = state.get("bench_seq")
                        if seq in published and published[seq] >= ready:
                            seen["projector" if who == "projector" else "phone"].append(
                                time.monotonic() - published[seq]
                            )

    follow = poller if kind == "polling" else streamer
    tasks = [asyncio.create_task(follow(f"p{n}")) for n in range(phones)]
    tasks.append(asyncio.create_task(follow("projector")))
    other: list[float] = []

    async def other_class() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as c:
            while not stop.is_set():
                t0 = time.monotonic()
                await c.get(OTHER_PAGE)
                other.append(time.monotonic() - t0)
                await asyncio.sleep(0.5)

    tasks.append(asyncio.create_task(other_class()))
    t_open = time.monotonic()
    for _ in range(300):  # everyone following (at most 30 s)
        if len(connected) >= phones + 1:
            break
        await asyncio.sleep(0.1)
    all_in = time.monotonic() - t_open
    cpu0, wall0 = cpu_s(server.pid), time.monotonic()
    seq = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        seq += 1
        published[seq] = time.monotonic()
        state = live.current(r, exp.run_key) or {}
        live.publish(r, exp.run_key, {**state, "bench_seq": seq}, status="running")
        await asyncio.sleep(2)
    await asyncio.sleep(1.5)
    cpu = (cpu_s(server.pid) - cpu0) / (time.monotonic() - wall0)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "phone": seen["phone"],
        "projector": seen["projector"],
        "cpu": cpu,
        "other": other,
        "changes": seq,
        "following": len(connected),
        "all_in_s": all_in,
    }


async def baseline(base: str, n: int = 20) -> list[float]:
    out = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as c:
        for _ in range(n):
            t0 = time.monotonic()
            await c.get(OTHER_PAGE)
            out.append(time.monotonic() - t0)
            await asyncio.sleep(0.2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    args = parser.parse_args()
    teacher = make_user(f"bench-teacher-{time.time_ns()}", teacher=True)
    exp = Experiment.objects.create(teacher=teacher, scenario="storm", status="running")
    r = experiments("bench")
    Storm(r, live.namespace(exp.run_key)).setup({})
    live.publish(r, exp.run_key, {"t": 0}, status="running")
    print(f"load before: {os.getloadavg()}  cores: {os.cpu_count()}")
    rows = []
    try:
        for kind, server_kind, port in (("polling", "gunicorn", 8471), ("sse", "uvicorn", 8472)):
            server = serve(server_kind, port)
            base = f"http://127.0.0.1:{port}"
            try:
                asyncio.run(wait_up(base))
                quiet = asyncio.run(baseline(base))
                result = asyncio.run(
                    run_channel(kind, base, exp, args.phones, args.seconds, server)
                )
            finally:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=30)
            rows.append((kind, server_kind, result, quiet))
    finally:
        live.namespace(exp.run_key).cleanup(r)
        exp.delete()
        teacher.delete()
    print(f"load after: {os.getloadavg()}")
    print(
        f"{'channel':8} {'server':9} {'seen':>5} {'phone p50':>9} {'p95':>6} {'max':>6} "
        f"{'proj p95':>8} {'CPU/s':>6} {'other p95 (quiet)':>18}"
    )
    for kind, server_kind, res, quiet in rows:
        ph = res["phone"]
        p50, high = (statistics.median(ph), max(ph)) if ph else (0.0, 0.0)
        print(
            f"{kind:8} {server_kind:9} {len(ph):5} {p50:9.3f} {pct(ph, 0.95):6.3f} {high:6.3f} "
            f"{pct(res['projector'], 0.95):8.3f} {res['cpu']:6.2f} "
            f"{pct(res['other'], 0.95):8.3f} ({pct(quiet, 0.95):.3f})"
        )
    print(f"changes published per channel: {rows[0][2]['changes']}, phones {args.phones}")
    for kind, _server, res, _quiet in rows:
        print(f"{kind}: {res['following']} clients following after {res['all_in_s']:.1f} s")


if __name__ == "__main__":
    main()
