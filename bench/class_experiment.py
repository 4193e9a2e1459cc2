"""A class experiment, measured live: 100 phones, a projector, and another class's lab.

Starts the site as `./dev serve` runs it (nginx; gunicorn; uvicorn for the live streams;
the quick and heavy Celery workers; the sweeper: `burst.Site`), on the PostgreSQL database
given (`DATABASE_URL` or `--database-url`, of the bench's own; migrated as it starts), on
Celery queues of its own. For each channel (polling `state.json` once a second, answered by
gunicorn; or Server-Sent Events, answered by uvicorn) it runs a real storm experiment: the
teacher signs in and starts one, N phones join as guests, follow the live state over that
channel and, once the teacher presses Go, call the server once a second with a tap now and
then, as phone.js does; the heavy worker turns the service and publishes a sample a
second; the teacher switches the spike on and off every few seconds; the projector follows
too and fetches its charts again on each change. Meanwhile a student of another class
presses Run on a quick lab (trapped-service, a seed of its own each time, so the result
store cannot answer) every 2 s and waits for the result, as its page does; the same
presses with no experiment running, just before, are the baseline. Prints per channel:
change → phone and → projector p50/p95/max (each published state against the moment each
screen showed it, `class_latency`), the teacher's move → phone, the site's CPU by role
(`role_cpu`), the bench's own CPU and event-loop lag, and the other class's Run → result
against the baseline. Usage:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/classbench \\
        .venv/bin/python bench/class_experiment.py --phones 100 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

import logging  # noqa: E402

import django  # noqa: E402
from burst import PASSWORD, Site, Student  # noqa: E402
from class_clients import Phone, Projector, Teacher  # noqa: E402
from class_latency import PublishLog, Screen, delays, move_delays  # noqa: E402
from class_report import report  # noqa: E402
from machine import describe  # noqa: E402
from other_class import other_class, presses_for, warm_up  # noqa: E402
from role_cpu import RoleClock, per_second  # noqa: E402

TEACHER = "bench-cx-teacher"
OTHER_STUDENT = "bench-cx-other"
JOINING_AT_ONCE = 20


def accounts() -> None:
    """The teacher and the other class's student, signed in over HTTP like anyone."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import Group

    from labs.roles import TEACHERS_GROUP

    hashed = make_password(PASSWORD)
    users = get_user_model().objects
    teacher, _ = users.update_or_create(username=TEACHER, defaults={"password": hashed})
    teacher.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    users.update_or_create(username=OTHER_STUDENT, defaults={"password": hashed})


def own_cpu_s() -> float:
    """The bench's own CPU seconds so far (its clients, its threads): a share of the
    machine the site did not get."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return used.ru_utime + used.ru_stime


async def loop_lag(stop: asyncio.Event, out: list[float]) -> None:
    """How late the bench's own event loop wakes: time its clients wait before they run."""
    while not stop.is_set():
        asked = time.monotonic()
        await asyncio.sleep(0.1)
        out.append(time.monotonic() - asked - 0.1)


async def until(check, give_up_s: float) -> float:
    started = time.monotonic()
    while not check() and time.monotonic() - started < give_up_s:
        await asyncio.sleep(0.1)
    return time.monotonic() - started


async def join_all(phones: list[Phone]) -> float:
    """Every phone joins, JOINING_AT_ONCE at a time (a class scanning the QR code); seconds."""
    gate = asyncio.Semaphore(JOINING_AT_ONCE)

    async def join(phone: Phone) -> None:
        async with gate:
            await phone.join()

    started = time.monotonic()
    await asyncio.gather(*(join(p) for p in phones))
    return time.monotonic() - started


async def experiment(site: Site, channel: str, args, other: Student) -> dict[str, Any]:
    """One storm experiment over `channel`, measured from Go for `args.seconds`."""
    from classlab import live
    from classlab.models import Experiment
    from labs.experiments.namespace import redis_url

    teacher = Teacher(site.url)
    await teacher.log_in(TEACHER, PASSWORD)
    exp_id = await teacher.start(minutes=min(10, math.ceil((args.seconds + 180) / 60)))
    exp = await asyncio.to_thread(Experiment.objects.get, pk=exp_id)
    log = PublishLog(redis_url(), live.channel(exp.run_key))
    phones = [
        Phone(site.url, exp.code, f"phone {i:03d}", args.taps_per_min) for i in range(args.phones)
    ]
    joined_s = await join_all(phones)
    projector = Projector(teacher, exp.code)
    stop = asyncio.Event()
    tasks = [asyncio.create_task(p.follow(channel, stop)) for p in phones]
    tasks += [asyncio.create_task(projector.follow(channel, stop))]
    tasks += [asyncio.create_task(projector.redraw(stop))]
    screens = [p.screen for p in phones] + [projector.screen]
    following_s = await until(lambda: all(s.ready < math.inf for s in screens), 60)

    lag: list[float] = []
    tasks.append(asyncio.create_task(loop_lag(stop, lag)))
    await teacher.go()
    since = time.monotonic()
    for phone in phones:
        tasks.append(asyncio.create_task(phone.call_while_running(stop)))
        tasks.append(asyncio.create_task(phone.tap_now_and_then(stop)))
    other_stop, other_timings = threading.Event(), []
    pressing = asyncio.create_task(
        asyncio.to_thread(other_class, other, args.every, other_stop, other_timings)
    )
    # Read at the start and the end only: a poller's CPU would be the bench's own.
    clock, bench_before = RoleClock(site.sessions(), every_s=None).start(), own_cpu_s()
    moves: list[tuple[float, str, Any]] = []
    spike = False
    while time.monotonic() + args.move_every < since + args.seconds:
        await asyncio.sleep(args.move_every)
        spike = not spike
        pressed = time.monotonic()
        await teacher.move("spike_on" if spike else "spike_off")
        moves.append((pressed, "spike", 3 if spike else 1))
    await asyncio.sleep(max(0.0, since + args.seconds - time.monotonic()))
    upto = time.monotonic()
    cpu = per_second(clock.stop(), upto - since)
    bench_cpu = (own_cpu_s() - bench_before) / (upto - since)
    other_stop.set()
    await pressing
    await teacher.end()
    await until(lambda: all(p.status == "ended" for p in phones), 30)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    log.close()
    for browser in [teacher, *phones]:
        await browser.close()

    return {
        **latencies(log.states, phones, projector, moves, since, upto),
        "moves": len(moves),
        "ticks": [t for p in phones for t in p.ticks],
        "cpu": cpu,
        "bench_cpu": bench_cpu,
        "lag": lag,
        "other": other_timings,
        "joined_s": joined_s,
        "following": sum(1 for s in screens if s.ready < math.inf),
        "following_s": following_s,
        "streams_refused": Counter(status for s in screens for status in s.refused),
        "streams_reopened": sum(s.reopened for s in screens),
        "wall_s": upto - since,
    }


def latencies(
    published: list, phones: list[Phone], projector: Projector, moves: list, since, upto
) -> dict[str, Any]:
    """Each screen's delays for the changes published in [since, upto] (`class_latency`)."""
    phone_s, missed = [], 0
    for phone in phones:
        seconds, not_shown = delays(published, phone.screen, since, upto)
        phone_s += seconds
        missed += not_shown
    charts = Screen(projector.screen.ready, projector.charts.shown)
    return {
        "phone": phone_s,
        "missed": missed,
        "move_phone": [s for p in phones for s in move_delays(published, p.screen, moves)],
        "projector": delays(published, projector.screen, since, upto)[0],
        "charts": delays(published, charts, since, upto)[0],
        "chart_failures": projector.fetch_failures,
        "changes": sum(1 for at, _b in published if since <= at <= upto),
    }


def forget_experiments() -> None:
    from classlab.models import Experiment

    Experiment.objects.filter(teacher__username=TEACHER).delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phones", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30, help="measured, from Go")
    parser.add_argument("--channel", choices=("polling", "sse", "both"), default="both")
    parser.add_argument("--every", type=float, default=2.0, help="the other class's presses")
    parser.add_argument("--move-every", type=float, default=4.0, help="the teacher's moves")
    parser.add_argument("--taps-per-min", type=float, default=6.0, help="each phone's taps")
    parser.add_argument(
        "--web-workers", type=int, default=2 * len(os.sched_getaffinity(0)) + 1, help="as ./dev"
    )
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    args = parser.parse_args()
    if not args.database_url:
        parser.error("give the bench a database of its own: DATABASE_URL or --database-url")
    os.environ["DATABASE_URL"] = args.database_url
    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line a request otherwise

    print(f"# {describe()}; {args.phones} phones, {args.seconds:g} s from Go per channel")
    site = Site(args.database_url, args.web_workers)
    site.env |= {
        "VAR_DIR": str(ROOT / "var" / "classbench"),  # static files kept between runs
        "PROXY_CONN_PER_ADDRESS": "0",  # every phone here comes from 127.0.0.1
        "TELEMETRY_PREFIX": f"bench-telemetry-{uuid.uuid4().hex[:6]}",
    }
    channels = ("polling", "sse") if args.channel == "both" else (args.channel,)
    rows = []
    with site:
        try:
            accounts()
            other = Student(site.url, OTHER_STUDENT)
            other.log_in()
            warm_up(other)
            for channel in channels:
                quiet = presses_for(other, args.seconds, args.every)
                before = os.getloadavg()[0]
                result = asyncio.run(experiment(site, channel, args, other))
                rows.append((channel, quiet, result, before, os.getloadavg()[0]))
        finally:
            forget_experiments()
    report(rows, args)


if __name__ == "__main__":
    main()
