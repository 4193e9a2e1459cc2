"""Lesson 07's title idea: answer the teacher at once and send the texts later, or not."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import outage_errors
from labs.sim.answer_fast import FanoutRun, FanoutSetup, play_fanout
from labs.text import gettext, gettext_noop, num

POSTS = gettext_noop("Posts and texts")
PROVIDER = gettext_noop("The SMS provider")
SERVERS = gettext_noop("Web threads and workers")
MAX_POSTS = 20_000  # posts × seconds: a run of a few tenths of a second at worst

PARAMS = (
    Param(
        "send",
        gettext_noop("Where the texts are sent"),
        "choice",
        "request",
        gettext_noop(
            "Inside the request: the post's web thread calls the provider for every batch "
            "before it answers. Queued: the post saves the notice, queues one job and answers."
        ),
        choices=(
            ("request", gettext_noop("inside the request")),
            ("queue", gettext_noop("queued, sent by workers")),
        ),
        group=POSTS,
    ),
    Param(
        "posts_per_s",
        gettext_noop("Notices posted each second"),
        "float",
        1.0,
        gettext_noop("Teachers across the district posting urgent notices, evenly spaced."),
        min=0.1,
        max=20,
        group=POSTS,
        unit=gettext_noop("posts/s"),
    ),
    Param(
        "recipients",
        gettext_noop("Parents per notice"),
        "int",
        2_000,
        gettext_noop("One text to each; the provider takes them in batches of 500."),
        min=1,
        max=50_000,
        group=POSTS,
    ),
    Param(
        "duration_s",
        gettext_noop("Seconds to watch"),
        "int",
        120,
        gettext_noop("How long teachers keep posting."),
        min=10,
        max=1_800,
        group=POSTS,
        unit=gettext_noop("s"),
    ),
    Param(
        "trouble",
        gettext_noop("What goes wrong with the provider"),
        "choice",
        "down",
        gettext_noop("Nothing, slow (every call takes the time below), or down (nothing answers)."),
        choices=(
            ("none", gettext_noop("nothing")),
            ("slow", gettext_noop("slow")),
            ("down", gettext_noop("down")),
        ),
        group=PROVIDER,
    ),
    Param(
        "down_from_s",
        gettext_noop("Trouble starts at second"),
        "int",
        20,
        gettext_noop("The second the provider turns slow or stops answering."),
        min=0,
        max=1_800,
        group=PROVIDER,
        unit=gettext_noop("s"),
    ),
    Param(
        "down_until_s",
        gettext_noop("Provider healthy again at second"),
        "int",
        80,
        gettext_noop("The first second it answers normally again."),
        min=0,
        max=1_800,
        group=PROVIDER,
        unit=gettext_noop("s"),
    ),
    Param(
        "provider_ms",
        gettext_noop("One call to a healthy provider"),
        "int",
        250,
        gettext_noop("How long the provider takes to accept one batch of texts."),
        min=1,
        max=5_000,
        group=PROVIDER,
        unit=gettext_noop("ms"),
    ),
    Param(
        "slow_ms",
        gettext_noop("One call to a slow provider"),
        "int",
        4_000,
        gettext_noop("Used only when the provider is slow."),
        min=1,
        max=60_000,
        group=PROVIDER,
        unit=gettext_noop("ms"),
    ),
    Param(
        "call_timeout_ms",
        gettext_noop("Longest wait for one call"),
        "int",
        5_000,
        gettext_noop(
            "After this the sender gives up on the call; a down provider costs this much."
        ),
        min=10,
        max=60_000,
        group=PROVIDER,
        unit=gettext_noop("ms"),
    ),
    Param(
        "web_threads",
        gettext_noop("Web threads"),
        "int",
        8,
        gettext_noop(
            "Requests the site serves at once; a post that finds no web thread free waits."
        ),
        min=1,
        max=500,
        group=SERVERS,
    ),
    Param(
        "sms_workers",
        gettext_noop("Workers sending texts"),
        "int",
        4,
        gettext_noop("Only for the queued way: each sends one batch at a time."),
        min=1,
        max=500,
        group=SERVERS,
    ),
)

# The web gateway's limit, as a load balancer in front of the site has one: 30 s, then 504.
GATEWAY_TIMEOUT_MS = 30_000


def check(params: Mapping[str, Any]) -> dict[str, str]:
    """The trouble must lie inside the run, and the run must stay small."""
    errors = {}
    if params["trouble"] != "none":
        errors = outage_errors(params)
    posts = params["posts_per_s"] * params["duration_s"]
    if posts > MAX_POSTS:
        errors["posts_per_s"] = gettext(
            "That is %(posts)s posts (posts a second × seconds); the lab allows %(limit)s."
        ) % {"posts": num(round(posts)), "limit": num(MAX_POSTS)}
    return errors


def _setup(params: Mapping[str, Any]) -> FanoutSetup:
    return FanoutSetup(
        posts_per_s=params["posts_per_s"],
        duration_s=params["duration_s"],
        recipients=params["recipients"],
        provider_ms=params["provider_ms"],
        trouble=params["trouble"],
        trouble_from_s=params["down_from_s"],
        trouble_until_s=max(params["down_from_s"], params["down_until_s"]),
        slow_ms=params["slow_ms"],
        call_timeout_ms=params["call_timeout_ms"],
        web_threads=params["web_threads"],
        gateway_timeout_ms=GATEWAY_TIMEOUT_MS,
        sms_workers=params["sms_workers"],
    )


def _figures(run: FanoutRun, prefix: str) -> dict[str, Any]:
    return {
        f"{prefix}p50_ms": run.percentile_ms(50),
        f"{prefix}p95_ms": run.percentile_ms(95),
        f"{prefix}p99_ms": run.percentile_ms(99),
        f"{prefix}failed_posts": run.failed,
        f"{prefix}notices_complete": run.notices_complete,
        f"{prefix}texts_sent": run.texts_sent,
        f"{prefix}slowest_delivery_s": round(max(run.delivery_s), 1) if run.delivery_s else None,
    }


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the same posts both ways; nothing is random."""
    setup = _setup(params)
    inside = play_fanout(setup, "request")
    progress.update(1, 2)
    queued = play_fanout(setup, "queue")
    progress.update(2, 2)
    mine = inside if params["send"] == "request" else queued
    summary = {
        "failed_posts": mine.failed,  # the key figure: what a teacher posting feels
        "posts": setup.posts,
        **_figures(mine, ""),
        **_figures(inside, "request_"),
        **_figures(queued, "queue_"),
        "queue_oldest_wait_s": round(queued.oldest_wait_s, 1),
        "busiest_web_threads": max(r.busy for r in inside.seconds),
    }
    return {
        "summary": summary,
        "series": {
            "second": [r.second for r in inside.seconds],
            "posts": [r.posts for r in inside.seconds],
            "request_worst_ms": inside.worst_answer_ms(),
            "queue_worst_ms": queued.worst_answer_ms(),
            "request_failed": [r.failed for r in inside.seconds],
            "queue_failed": [r.failed for r in queued.seconds],
            "request_texts": [r.texts_sent for r in inside.seconds],
            "queue_texts": [r.texts_sent for r in queued.seconds],
            "request_threads_busy": [r.busy for r in inside.seconds],
            "request_posts_waiting": [r.waiting for r in inside.seconds],
            "queue_jobs_waiting": [r.waiting for r in queued.seconds],
        },
    }


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{num(round(value))} ms"


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    trouble = {
        "none": gettext("The provider stays healthy."),
        "slow": gettext(
            "The provider is slow (%(ms)s ms a call) from second %(start)s to %(end)s."
        ),
        "down": gettext("The provider is down from second %(start)s to %(end)s."),
    }[p["trouble"]] % {"ms": num(p["slow_ms"]), "start": p["down_from_s"], "end": p["down_until_s"]}
    words = {
        "p50": _ms(s["request_p50_ms"]),
        "p99": _ms(s["request_p99_ms"]),
        "failed": num(s["request_failed_posts"]),
        "posts": num(s["posts"]),
    }
    lines = [
        trouble,
        gettext(
            "Texts sent inside the request: teachers waited %(p50)s (median), %(p99)s at p99; "
            "%(failed)s of %(posts)s posts got an error."
        )
        % words,
        gettext(
            "Queued: 99%% of posts were answered within %(p99)s; %(failed)s failed; the oldest "
            "job waited %(wait)s s for a worker."
        )
        % {
            "p99": _ms(s["queue_p99_ms"]),
            "failed": num(s["queue_failed_posts"]),
            "wait": num(s["queue_oldest_wait_s"]),
        },
        gettext(
            "Notices that reached every parent within the run: %(inside)s inside the request, "
            "%(queued)s queued."
        )
        % {
            "inside": num(s["request_notices_complete"]),
            "queued": num(s["queue_notices_complete"]),
        },
    ]
    if s["busiest_web_threads"] >= p["web_threads"]:
        lines.append(
            gettext(
                "Inside the request the provider held all %(threads)s web threads at once, so "
                "posts waited in line before they even started."
            )
            % {"threads": num(p["web_threads"])}
        )
    return lines


FIGURES = (
    Figure("failed_posts", gettext_noop("Posts answered with an error"), "int"),
    Figure("posts", gettext_noop("Notices posted"), "int"),
    Figure(
        "p50_ms",
        gettext_noop("Median answer to a post"),
        "float",
        gettext_noop("ms"),
        True,
    ),
    Figure(
        "p95_ms",
        gettext_noop("p95 answer to a post"),
        "float",
        gettext_noop("ms"),
        True,
    ),
    Figure(
        "p99_ms",
        gettext_noop("p99 answer to a post"),
        "float",
        gettext_noop("ms"),
        True,
    ),
    Figure("notices_complete", gettext_noop("Notices every parent got"), "int"),
    Figure("texts_sent", gettext_noop("Texts sent"), "int"),
    Figure(
        "slowest_delivery_s",
        gettext_noop("Longest time for a notice to reach every parent"),
        "float",
        gettext_noop("s"),
        True,
    ),
    Figure(
        "request_p50_ms",
        gettext_noop("Median answer, inside the request"),
        "float",
        gettext_noop("ms"),
        True,
    ),
    Figure(
        "request_p95_ms",
        gettext_noop("p95 answer, inside the request"),
        "float",
        gettext_noop("ms"),
        True,
    ),
    Figure(
        "request_p99_ms",
        gettext_noop("p99 answer, inside the request"),
        "float",
        gettext_noop("ms"),
        True,
    ),
    Figure("request_failed_posts", gettext_noop("Posts with an error, inside the request"), "int"),
    Figure(
        "request_notices_complete",
        gettext_noop("Notices every parent got, inside the request"),
        "int",
    ),
    Figure("request_texts_sent", gettext_noop("Texts sent, inside the request"), "int"),
    Figure(
        "request_slowest_delivery_s",
        gettext_noop("Longest time for a notice to reach every parent, inside the request"),
        "float",
        gettext_noop("s"),
        True,
    ),
    Figure(
        "queue_p50_ms", gettext_noop("Median answer, queued"), "float", gettext_noop("ms"), True
    ),
    Figure("queue_p95_ms", gettext_noop("p95 answer, queued"), "float", gettext_noop("ms"), True),
    Figure("queue_p99_ms", gettext_noop("p99 answer, queued"), "float", gettext_noop("ms"), True),
    Figure("queue_failed_posts", gettext_noop("Posts with an error, queued"), "int"),
    Figure("queue_notices_complete", gettext_noop("Notices every parent got, queued"), "int"),
    Figure("queue_texts_sent", gettext_noop("Texts sent, queued"), "int"),
    Figure(
        "queue_slowest_delivery_s",
        gettext_noop("Longest time for a notice to reach every parent, queued"),
        "float",
        gettext_noop("s"),
        True,
    ),
    Figure(
        "queue_oldest_wait_s",
        gettext_noop("Longest a queued job waited for a worker"),
        "float",
        gettext_noop("s"),
    ),
    Figure("busiest_web_threads", gettext_noop("Most web threads busy, inside the request"), "int"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
