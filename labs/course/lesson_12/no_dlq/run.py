"""Lesson 12's missing case: poison messages in a queue with no dead-letter queue at all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param, within_limits
from labs.interface.progress import Progress
from labs.sim.no_dlq import LIMITS, play
from labs.text import gettext, gettext_noop, ngettext, num

QUEUE = gettext_noop("The queue")
POISON = gettext_noop("Poison messages")
POLICY = gettext_noop("Redrive policy")


def _bounded(name: str, label: str, kind: Any, default: Any, help_text: str, **more: Any) -> Param:
    return within_limits(LIMITS, name, label, kind, default, help_text, **more)


PARAMS = (
    _bounded(
        "workers",
        gettext_noop("Workers"),
        "int",
        4,
        gettext_noop("Each worker holds one message at a time."),
        group=QUEUE,
    ),
    _bounded(
        "work_s",
        gettext_noop("Time a good message holds a worker"),
        "float",
        0.5,
        gettext_noop("4 workers at 0.5 s each finish 8 good messages a second."),
        group=QUEUE,
        unit=gettext_noop("s"),
    ),
    _bounded(
        "arrive_per_s",
        gettext_noop("Good messages arriving each second"),
        "int",
        6,
        gettext_noop("They arrive together at the start of every second."),
        group=QUEUE,
        unit=gettext_noop("messages/s"),
    ),
    _bounded(
        "poison",
        gettext_noop("Poison messages"),
        "int",
        20,
        gettext_noop("Messages whose processing fails on every receive."),
        group=POISON,
    ),
    _bounded(
        "poison_at_s",
        gettext_noop("Second the poison messages arrive"),
        "int",
        30,
        gettext_noop("They all arrive in this second, after its good messages."),
        group=POISON,
        unit=gettext_noop("s"),
    ),
    _bounded(
        "fail_after_s",
        gettext_noop("Time a poison message holds a worker before it fails"),
        "float",
        10.0,
        gettext_noop("The worker is busy this long, then gives up on the message."),
        group=POISON,
        unit=gettext_noop("s"),
    ),
    _bounded(
        "visibility_s",
        gettext_noop("Visibility timeout"),
        "float",
        30.0,
        gettext_noop(
            "A received message is hidden this long from its receive; a failed one is "
            "then visible again."
        ),
        group=POLICY,
        unit=gettext_noop("s"),
    ),
    _bounded(
        "max_receives",
        gettext_noop("maxReceiveCount (0: no DLQ)"),
        "int",
        0,
        gettext_noop(
            "After this many failed receives a message moves to the dead-letter queue "
            "(DLQ). 0 means there is no DLQ: it comes back for ever."
        ),
        group=POLICY,
    ),
    Param(
        "fifo",
        gettext_noop("FIFO queue (one message group)"),
        "bool",
        False,
        gettext_noop(
            "Tick for a FIFO queue with every message in one group: nothing behind an "
            "earlier message that is with a worker or hidden is delivered."
        ),
        group=POLICY,
    ),
    _bounded(
        "duration_s",
        gettext_noop("Seconds to watch"),
        "int",
        900,
        gettext_noop("How long the lab plays the queue."),
        group=QUEUE,
        unit=gettext_noop("s"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The rules between fields the model refuses, said next to the field to change."""
    errors = {}
    if params["poison"] and params["poison_at_s"] >= params["duration_s"]:
        errors["poison_at_s"] = gettext(
            "The poison messages must arrive within the run: before second %(end)s."
        ) % {"end": params["duration_s"]}
    if params["fail_after_s"] > params["visibility_s"]:
        errors["fail_after_s"] = gettext(
            "A poison message must fail within its visibility timeout (%(vis)s s), or it "
            "would be visible again while a worker still holds it."
        ) % {"vis": num(params["visibility_s"])}
    if params["work_s"] > params["visibility_s"]:
        errors["work_s"] = gettext(
            "A good message must be done within the visibility timeout (%(vis)s s)."
        ) % {"vis": num(params["visibility_s"])}
    return errors


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the queue second by second; no randomness, so the seed is not used."""
    played = play(**{p.name: params[p.name] for p in PARAMS})
    duration = params["duration_s"]
    poison_span_s = duration - params["poison_at_s"] if params["poison"] else 0
    worker_s = params["workers"] * poison_span_s
    parked_all = params["poison"] and played.in_dlq[-1] == params["poison"]
    progress.update(1, 1)
    return {
        "summary": {
            "peak_backlog": max(played.backlog),
            "final_backlog": played.backlog[-1],
            "good_done": played.good_done[-1],
            "oldest_age_end_s": played.oldest_age_s[-1],
            "last_good_done_s": _last_rise(played.second, played.good_done),
            "poison_receives": played.poison_receives[-1],
            "poison_worker_share": round(sum(played.poison_worker_s) / worker_s, 4)
            if worker_s
            else 0.0,
            "in_dlq": played.in_dlq[-1],
            "poison_gone_at_s": played.in_dlq.index(params["poison"]) + 1 if parked_all else None,
            "drained": played.backlog[-1] == 0,
        },
        "series": {
            "second": played.second,
            "backlog": played.backlog,
            "good_done": played.good_done,
            "oldest_age_s": played.oldest_age_s,
            "poison_receives": played.poison_receives,
            "poison_worker_s": played.poison_worker_s,
            "in_dlq": played.in_dlq,
        },
        "tables": {},
    }


def _last_rise(seconds: list[int], counts: list[int]) -> int | None:
    """The last second in which `counts` went up (None: it never did)."""
    before = 0
    last = None
    for second, count in zip(seconds, counts, strict=True):
        if count > before:
            last = second
        before = count
    return last


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    lines = []
    if p["poison"]:
        words = {
            "n": num(p["poison"]),
            "receives": num(s["poison_receives"]),
            "share": num(round(100 * s["poison_worker_share"], 1)),
            "from": p["poison_at_s"],
            "mr": p["max_receives"],
            "dlq": num(s["in_dlq"]),
            "gone": s["poison_gone_at_s"],
        }
        n = p["poison"]
        if not p["max_receives"]:
            first = ngettext(
                "With no DLQ, the poison message was received %(receives)s times and could "
                "not leave the queue: %(share)s%% of the workers' time from second %(from)s "
                "went to it.",
                "With no DLQ, the %(n)s poison messages were received %(receives)s times and "
                "none could leave the queue: %(share)s%% of the workers' time from second "
                "%(from)s went to them.",
                n,
            )
        elif s["poison_gone_at_s"] is not None:
            first = ngettext(
                "With maxReceiveCount %(mr)s, the poison message was received %(receives)s "
                "times and was in the DLQ by second %(gone)s: %(share)s%% of the workers' "
                "time from second %(from)s went to it.",
                "With maxReceiveCount %(mr)s, the %(n)s poison messages were received "
                "%(receives)s times and all were in the DLQ by second %(gone)s: %(share)s%% "
                "of the workers' time from second %(from)s went to them.",
                n,
            )
        else:
            first = ngettext(
                "With maxReceiveCount %(mr)s, the poison message was received %(receives)s "
                "times and was still in the queue at the end: %(share)s%% of the workers' "
                "time from second %(from)s went to it.",
                "With maxReceiveCount %(mr)s, the %(n)s poison messages were received "
                "%(receives)s times and %(dlq)s of them were in the DLQ at the end: "
                "%(share)s%% of the workers' time from second %(from)s went to them.",
                n,
            )
        lines.append(first % words)
    backlog = {
        "peak": num(s["peak_backlog"]),
        "final": num(s["final_backlog"]),
        "age": num(s["oldest_age_end_s"]),
        "done": num(s["good_done"]),
    }
    if s["peak_backlog"] == 0:
        lines.append(
            gettext("At the end of every second no good message was waiting; %(done)s were done.")
            % backlog
        )
    elif s["drained"]:
        lines.append(
            gettext(
                "The backlog of good messages peaked at %(peak)s and was empty at the end; "
                "%(done)s good messages were done."
            )
            % backlog
        )
    else:
        lines.append(
            gettext(
                "The backlog of good messages peaked at %(peak)s; at the end %(final)s were "
                "waiting, the oldest for %(age)s s, and %(done)s had been done."
            )
            % backlog
        )
        last = s["last_good_done_s"]
        if last is not None and last < p["duration_s"]:
            lines.append(
                gettext("No good message was done after second %(last)s.") % {"last": last}
            )
    return lines


FIGURES = (
    Figure("peak_backlog", gettext_noop("Peak backlog"), "int", gettext_noop("messages")),
    Figure(
        "final_backlog",
        gettext_noop("Good messages waiting at the end"),
        "int",
        gettext_noop("messages"),
    ),
    Figure("good_done", gettext_noop("Good messages done"), "int", gettext_noop("messages")),
    Figure(
        "oldest_age_end_s",
        gettext_noop("Age of the oldest waiting message at the end"),
        "int",
        gettext_noop("s"),
    ),
    Figure(
        "last_good_done_s",
        gettext_noop("Last second a good message was done"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure("poison_receives", gettext_noop("Receives of poison messages"), "int"),
    Figure(
        "poison_worker_share",
        gettext_noop("Share of the workers' time spent on poison messages"),
        "float",
    ),
    Figure("in_dlq", gettext_noop("Messages in the DLQ"), "int"),
    Figure(
        "poison_gone_at_s",
        gettext_noop("Second the last poison message was in the DLQ"),
        "int",
        gettext_noop("s"),
        nullable=True,
    ),
    Figure("drained", gettext_noop("Backlog empty at the end"), "bool"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
