"""When not to queue (Lesson 07): a read the user waits for, answered directly or queued."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, within_limits
from labs.interface.progress import Progress
from labs.sim.queued_read import LIMITS, ReadSetup, ReadWaits, answer_directly, through_the_queue
from labs.text import gettext, gettext_noop, num

LOAD = gettext_noop("The reads")
QUEUE = gettext_noop("Through the queue")


def _bounded(name: str, label: str, default: int, help_text: str, **more: Any) -> Param:
    return within_limits(LIMITS, name, label, "int", default, help_text, **more)


PARAMS = (
    _bounded(
        "reads_per_s",
        gettext_noop("Reads each second"),
        40,
        gettext_noop("Students opening their marks, evenly spaced."),
        group=LOAD,
        unit=gettext_noop("req/s"),
    ),
    _bounded(
        "read_ms",
        gettext_noop("Time one read takes"),
        40,
        gettext_noop("The database read itself, the same whichever way it is asked for."),
        group=LOAD,
        unit=gettext_noop("ms"),
    ),
    _bounded(
        "servers",
        gettext_noop("Web threads, or workers"),
        4,
        gettext_noop(
            "Directly, this many web threads do the reads; through the queue, this many "
            "workers do. The same number, so both ways can do the same reads a second."
        ),
        group=LOAD,
    ),
    _bounded(
        "duration_s",
        gettext_noop("Seconds to watch"),
        30,
        gettext_noop("How long the reads keep arriving."),
        group=LOAD,
        unit=gettext_noop("s"),
    ),
    _bounded(
        "enqueue_ms",
        gettext_noop("Time to put the job on the queue"),
        10,
        gettext_noop("The request queues the read and answers 'accepted'."),
        group=QUEUE,
        unit=gettext_noop("ms"),
    ),
    _bounded(
        "store_ms",
        gettext_noop("Time to store the answer"),
        5,
        gettext_noop("The worker saves what it read where the page can fetch it."),
        group=QUEUE,
        unit=gettext_noop("ms"),
    ),
    _bounded(
        "poll_ms",
        gettext_noop("The page asks for its answer every"),
        500,
        gettext_noop("After 'accepted' the page asks this often whether the answer is ready."),
        group=QUEUE,
        unit=gettext_noop("ms"),
    ),
)


def _setup(params: Mapping[str, Any]) -> ReadSetup:
    return ReadSetup(**{p.name: params[p.name] for p in PARAMS})


def _mean(values: list[int]) -> float:
    return round(sum(values) / len(values), 1) if values else 0.0


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the same reads both ways; no randomness, so the seed is not used."""
    setup = _setup(params)
    direct = answer_directly(setup)
    progress.update(1, 2)
    queued = through_the_queue(setup)
    progress.update(2, 2)
    direct_mean, direct_worst = direct.per_second(setup.duration_s)
    queued_mean, queued_worst = queued.per_second(setup.duration_s)
    return {
        "summary": figures(setup, direct, queued),
        "series": {
            "second": list(range(setup.duration_s)),
            "direct_mean_ms": direct_mean,
            "queued_mean_ms": queued_mean,
            "direct_worst_ms": direct_worst,
            "queued_worst_ms": queued_worst,
        },
        "tables": {},
    }


def figures(setup: ReadSetup, direct: ReadWaits, queued: ReadWaits) -> dict[str, Any]:
    """The user's wait both ways, and what the queue's wait is made of."""
    direct_median, queued_median = direct.median_ms(), queued.median_ms()
    return {
        "reads": len(direct.wait_ms),
        "direct_median_ms": direct_median,
        "direct_p99_ms": direct.p99_ms(),
        "queued_median_ms": queued_median,
        "queued_p99_ms": queued.p99_ms(),
        "added_median_ms": queued_median - direct_median,
        "times_longer": round(queued_median / direct_median, 1),
        "capacity_per_s": round(setup.servers * 1000 / setup.read_ms, 1),
        "queue_capacity_per_s": round(setup.servers * 1000 / (setup.read_ms + setup.store_ms), 1),
        "direct_for_thread_ms": _mean(direct.for_server_ms),
        "queued_for_worker_ms": _mean(queued.for_server_ms),
        "queued_for_ask_ms": _mean(queued.for_ask_ms),
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    words = {
        "rate": num(p["reads_per_s"]),
        "direct": num(s["direct_median_ms"]),
        "queued": num(s["queued_median_ms"]),
        "added": num(s["added_median_ms"]),
        "times": num(s["times_longer"]),
        "read": num(p["read_ms"]),
        "enqueue": num(p["enqueue_ms"]),
        "worker": num(s["queued_for_worker_ms"]),
        "store": num(p["store_ms"]),
        "ask": num(s["queued_for_ask_ms"]),
        "thread": num(s["direct_for_thread_ms"]),
        "capacity": num(s["capacity_per_s"]),
        "queue_capacity": num(s["queue_capacity_per_s"]),
        "direct_p99": num(s["direct_p99_ms"]),
        "queued_p99": num(s["queued_p99_ms"]),
    }
    if s["added_median_ms"] > 0:
        first = gettext(
            "At %(rate)s reads a second the user waited %(direct)s ms for a read answered "
            "directly and %(queued)s ms for the same read through the queue (medians): "
            "%(added)s ms longer, %(times)s times the wait."
        )
    else:
        first = gettext(
            "At %(rate)s reads a second the user waited %(direct)s ms for a read answered "
            "directly and %(queued)s ms through the queue (medians): the queue saved nothing."
        )
    lines = [
        first % words,
        gettext(
            "Through the queue the same %(read)s ms read comes with the queue's own steps: "
            "%(enqueue)s ms to put the job on it, %(worker)s ms on average until a worker "
            "took it, %(store)s ms to store the answer and %(ask)s ms on average until the "
            "page asked again."
        )
        % words,
    ]
    if p["reads_per_s"] > s["capacity_per_s"]:
        lines.append(
            gettext(
                "The threads can do %(capacity)s reads a second and the workers "
                "%(queue_capacity)s; %(rate)s arrive, so both ways also wait in line: 99%% of "
                "the reads were answered within %(direct_p99)s ms directly and %(queued_p99)s "
                "ms through the queue."
            )
            % words
        )
    elif p["reads_per_s"] > s["queue_capacity_per_s"]:
        lines.append(
            gettext(
                "The threads keep up with %(rate)s reads a second, but the workers, which "
                "also store every answer, can do only %(queue_capacity)s: the jobs wait in "
                "line on the queue, and 99%% of the reads through it were answered within "
                "%(queued_p99)s ms."
            )
            % words
        )
    else:
        lines.append(
            gettext(
                "The threads can do %(capacity)s reads a second and the workers "
                "%(queue_capacity)s, more than arrive: on average a read waited %(thread)s ms "
                "for a thread and %(worker)s ms for a worker."
            )
            % words
        )
    lines.append(
        gettext(
            "A queue helps with work the user does not wait for; a read they are waiting "
            "for must still be done before they see it, so a queue can only add to the wait."
        )
    )
    return lines


FIGURES = (
    Figure("reads", gettext_noop("Reads"), "int"),
    Figure(
        "direct_median_ms",
        gettext_noop("Median wait for a read answered directly"),
        "float",
        gettext_noop("ms"),
    ),
    Figure(
        "direct_p99_ms",
        gettext_noop("99th percentile wait, answered directly"),
        "float",
        gettext_noop("ms"),
    ),
    Figure(
        "queued_median_ms",
        gettext_noop("Median wait for a read through the queue"),
        "float",
        gettext_noop("ms"),
    ),
    Figure(
        "queued_p99_ms",
        gettext_noop("99th percentile wait, through the queue"),
        "float",
        gettext_noop("ms"),
    ),
    Figure(
        "added_median_ms",
        gettext_noop("Wait the queue added (medians)"),
        "float",
        gettext_noop("ms"),
    ),
    Figure("times_longer", gettext_noop("Times the direct wait, through the queue"), "float"),
    Figure(
        "capacity_per_s",
        gettext_noop("Reads a second the threads can do"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "queue_capacity_per_s",
        gettext_noop("Reads a second the workers can do, storing each answer"),
        "float",
        gettext_noop("req/s"),
    ),
    Figure(
        "direct_for_thread_ms",
        gettext_noop("Average wait for a web thread"),
        "float",
        gettext_noop("ms"),
    ),
    Figure(
        "queued_for_worker_ms",
        gettext_noop("Average wait on the queue for a worker"),
        "float",
        gettext_noop("ms"),
    ),
    Figure(
        "queued_for_ask_ms",
        gettext_noop("Average wait for the page's next ask"),
        "float",
        gettext_noop("ms"),
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
)
