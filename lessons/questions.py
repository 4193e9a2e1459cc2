"""Each unit's self-check: a few questions whose answers come from the labs' own models.

No answer is typed in here: every number is computed by `labs.sim` from the question's
inputs, so a question and the lab that teaches it can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from labs.sim import (
    backoff_ms,
    busy_backlog,
    clear_time_s,
    consume,
    deliver_at_least_once,
    drain,
    drain_summary,
    fanout_time_min,
    fixed,
    littles_law,
    parallel,
    per_backlog,
    play_breaker,
    redrive,
    retry_storm,
    serial,
)
from labs.sim.capstone.summary import drain_estimate_s
from labs.sim.fifo import measure, poison_job
from labs.sim.fifo import simulate as simulate_queue
from labs.sim.retention import simulate as simulate_retention

NUMBER = "number"
CHOICE = "choice"

# Lesson 12's ten-second burst (messages arriving in each second).
BURST = [50, 800, 800, 800, 200, 50, 50, 50, 50, 50]


@dataclass(frozen=True)
class Question:
    """One question: its text, the right answer and why it is right.

    `prompt` and `why` are translatable templates filled from `values` when shown, so
    the same question reads in the student's language with the same figures.
    """

    key: str
    prompt: Promise
    why: Promise
    answer: Any  # a number for NUMBER, a choice value for CHOICE
    kind: str = NUMBER
    values: dict[str, Any] = field(default_factory=dict)
    choices: tuple[tuple[str, Promise], ...] = ()
    tolerance: float = 0.0  # absolute slack accepted on a numeric answer

    def text(self) -> str:
        return str(self.prompt) % self.values

    def explanation(self) -> str:
        return str(self.why) % {**self.values, "answer": self.shown_answer()}

    def shown_answer(self) -> str:
        if self.kind == CHOICE:
            return str(dict(self.choices)[self.answer])
        return f"{self.answer:,}" if float(self.answer).is_integer() else f"{self.answer:,.2f}"


def _round(value: float, places: int) -> float | int:
    rounded = round(value, places)
    return int(rounded) if float(rounded).is_integer() else rounded


YES_NO = (("yes", _("Yes")), ("no", _("No")))


def _lesson_07() -> tuple[Question, ...]:
    rush = busy_backlog(4_000, 3_000, 30)
    texts = deliver_at_least_once(["t1", "t2", "t3"], ["t2", "t3"])
    return (
        Question(
            "fanout-minutes",
            _(
                "A school sends 3,000,000 SMS. 40 workers each send 50 SMS a second. "
                "How many minutes until all are sent? (one decimal)"
            ),
            _(
                "Time = jobs ÷ (workers × rate) = 3,000,000 ÷ (40 × 50) seconds, "
                "which is %(answer)s minutes."
            ),
            _round(fanout_time_min(3_000_000, 40, 50), 1),
            tolerance=0.05,
        ),
        Question(
            "rush-backlog",
            _(
                "For 30 seconds, 4,000 jobs arrive each second and the workers finish "
                "3,000 a second. How many jobs are waiting at the end?"
            ),
            _("1,000 are left over every second, for 30 seconds: %(answer)s jobs."),
            _round(rush, 0),
        ),
        Question(
            "rush-clear",
            _(
                "After that rush no new jobs arrive. How many seconds do the same "
                "workers need to empty the queue?"
            ),
            _("The backlog ÷ what the workers finish each second = %(answer)s seconds."),
            _round(clear_time_s(rush, 3_000), 1),
            tolerance=0.05,
        ),
        Question(
            "idempotent-sends",
            _(
                "Three SMS are queued; two of them are delivered twice. How many SMS "
                "does an idempotent consumer actually send?"
            ),
            _(
                "It receives %(deliveries)s deliveries but skips any it has already "
                "done, so it sends %(answer)s."
            ),
            len(consume(texts, idempotent=True)),
            values={"deliveries": len(texts)},
        ),
        Question(
            "visibility-timeout",
            _("How long should the visibility timeout be?"),
            _(
                "%(answer)s: otherwise a job that is fine reappears before its worker has "
                "finished, and a second worker does it too."
            ),
            "longer",
            kind=CHOICE,
            choices=(
                ("shorter", _("Shorter than the slowest normal job")),
                ("longer", _("Longer than the slowest normal job")),
                ("zero", _("Zero, so jobs are never hidden")),
            ),
        ),
        Question(
            "front-waits",
            _("With a queue, does the person who pressed “send” wait until every SMS is out?"),
            _(
                "%(answer)s: the front records the job and replies at once; the workers "
                "do the sending afterwards."
            ),
            "no",
            kind=CHOICE,
            choices=YES_NO,
        ),
        Question(
            "provider-down",
            _(
                "The SMS provider stops answering for 10 minutes. What happens to a teacher "
                "who posts a notice during those minutes?"
            ),
            _(
                "%(answer)s. The front only writes the job to the queue; an alarm on the age "
                "of the oldest job tells the operators."
            ),
            "answered",
            kind=CHOICE,
            choices=(
                ("answered", _("Gets the answer at once; the job waits in the queue")),
                ("fails", _("Gets an error until the provider is back")),
                ("waits", _("Waits until the provider answers")),
            ),
        ),
    )


def _lesson_12() -> tuple[Question, ...]:
    fixed_4 = drain_summary(drain(BURST, 100, fixed(4)))
    keen = drain_summary(drain(BURST, 100, per_backlog(50, 1, 10)))
    _done, _dlq, receives = redrive(["a", "b", "c"], {"b"}, max_receives=4)
    # A poison message parked after a day in a standard queue, in a DLQ that keeps 4 days.
    parked = simulate_retention(outage_from_h=0, outage_h=24, dlq_retention_h=96, horizon_h=48)
    log, accepted = simulate_queue("fifo", max_receives=5, visibility_timeout_s=0.3)
    held_s = measure(log, accepted, poison_job(True))[0]["blocked_s"]
    return (
        Question(
            "fixed-4-peak",
            _(
                "Lesson 12's burst (50, then 800 for three seconds, 200, then 50 a second) "
                "meets 4 fixed workers of 100 messages a second each. What is the peak backlog?"
            ),
            _("Run the Drain lab with 4 fixed workers: the backlog peaks at %(answer)s."),
            fixed_4["peak_backlog"],
        ),
        Question(
            "fixed-4-left",
            _("With those 4 fixed workers, how many messages are still waiting after 10 seconds?"),
            _("Play the burst second by second (the Drain lab does): %(answer)s are left."),
            fixed_4["left_at_end"],
        ),
        Question(
            "keen-most-workers",
            _(
                "Same burst, but one worker per 50 messages waiting, at most 10. What is "
                "the most workers the rule runs at once?"
            ),
            _("The backlog ÷ 50, kept between 1 and 10, is largest at %(answer)s workers."),
            keen["most_workers"],
        ),
        Question(
            "poison-receives",
            _(
                "Three messages, one of them poison, with maxReceiveCount 4. How many "
                "receives does the queue make in total before it is empty?"
            ),
            _("Two good messages are received once each; the poison one 4 times: %(answer)s."),
            receives,
        ),
        Question(
            "scaler-lag",
            _("Why does some backlog always form in the first second of a burst?"),
            _(
                "%(answer)s. The rule decides from the backlog at the end of the previous "
                "second, before the burst was seen."
            ),
            "lag",
            kind=CHOICE,
            choices=(
                ("lag", _("The scaler still sees the quiet backlog of the second before")),
                ("slow", _("Workers work more slowly when the queue is long")),
                ("dlq", _("The burst goes to the DLQ first")),
            ),
        ),
        Question(
            "oldest-age",
            _("Which figure warns you early that messages may soon pass their retention period?"),
            _("%(answer)s: it grows long before any message is deleted for being too old."),
            "oldest",
            kind=CHOICE,
            choices=(
                ("oldest", _("The age of the oldest message")),
                ("workers", _("The number of workers")),
                ("dlq", _("The size of each message")),
            ),
        ),
        Question(
            "dlq-days-left",
            _(
                "A poison message waits 1 day in a standard queue before it is moved to a "
                "DLQ whose retention is 4 days. How many days does it stay in the DLQ?"
            ),
            _(
                "The DLQ counts from the day the message was first sent, not from the move: "
                "4 − 1 = %(answer)s days. Give the DLQ a longer retention than its queue."
            ),
            _round(parked.parked[0].left_in_dlq_h / 24, 2),
        ),
        Question(
            "fifo-group-held",
            _(
                "On a FIFO queue, one student's update fails every time. The visibility "
                "timeout is 0.3 s and maxReceiveCount is 5. For how many seconds are that "
                "student's later updates held back? (one decimal)"
            ),
            _(
                "It is received 5 times, each followed by a 0.3 s visibility timeout, and "
                "then goes to the DLQ: %(answer)s s. The other students' updates are not held."
            ),
            _round(held_s, 1),
            tolerance=0.05,
        ),
    )


def _lesson_13() -> tuple[Question, ...]:
    breaker = play_breaker(4, 10, down_from_s=0, down_until_s=30, duration_s=40)
    return (
        Question(
            "littles-law",
            _(
                "500 requests arrive each second and each waits 4 seconds for a stuck "
                "service. How many are held at once?"
            ),
            _("Little's law: rate × wait = 500 × 4 = %(answer)s."),
            _round(littles_law(500, 4), 0),
        ),
        Question(
            "cascade-threads",
            _(
                "A dependency hangs. 50 requests a second call it, each caller tries 3 times "
                "in all, and a 1 s timeout ends every call. How many threads do these calls "
                "hold at once?"
            ),
            _(
                "Retries are calls too: 50 × 3 = 150 calls a second, each holding its thread "
                "for 1 s, hold %(answer)s threads. With a pool of 120 the pages that never "
                "call the dependency wait as well (the cascade lab)."
            ),
            _round(littles_law(50 * 3, 1), 0),
        ),
        Question(
            "fifth-backoff",
            _(
                "Backoff starts at 100 ms, doubles each time and is capped at 3,200 ms. "
                "How many ms before the 5th retry (no jitter)?"
            ),
            _("100, 200, 400, 800, then %(answer)s ms."),
            _round(backoff_ms(4), 0),
        ),
        Question(
            "storm-no-jitter",
            _(
                "300 clients fail together and retry with backoff but no jitter. How many "
                "retries land in the busiest 10 ms?"
            ),
            _("Without jitter they all wait the same time, so all %(answer)s arrive together."),
            retry_storm(300, 4, use_jitter=False),
        ),
        Question(
            "breaker-reached",
            _(
                "A breaker opens after 4 failures in a row, for 10 s. The service is down "
                "for the first 30 s; we call once a second for 40 s. How many calls reach "
                "the broken service?"
            ),
            _(
                "4 to open it, then one failed trial every 10 s while it is down: "
                "%(answer)s. The other calls during the outage are refused at once."
            ),
            breaker.failed,
        ),
        Question(
            "two-copies",
            _(
                "One copy is up 99%% of the time. What availability do two independent copies "
                "give, in %%?"
            ),
            _("Down only when both are down: 1 − 0.01 × 0.01 = %(answer)s%%."),
            _round(parallel(0.99, 2) * 100, 4),
            tolerance=0.00005,
        ),
        Question(
            "chain-of-four",
            _(
                "A request needs 4 services in a row, each up 99.9%%. What is its availability, "
                "in %%? (two decimals)"
            ),
            _("0.999 × 0.999 × 0.999 × 0.999 = %(answer)s%%, lower than any one link."),
            _round(serial(*[0.999] * 4) * 100, 2),
            tolerance=0.005,
        ),
        Question(
            "half-open",
            _("What does a breaker do when it is half-open?"),
            _("%(answer)s: if the trial works the breaker closes, if not it opens again."),
            "trial",
            kind=CHOICE,
            choices=(
                ("trial", _("Lets one trial call through")),
                ("half", _("Lets half of the calls through")),
                ("all", _("Lets every call through again")),
            ),
        ),
    )


def _assignment_05() -> tuple[Question, ...]:
    estimate = drain_estimate_s(900, 30, 60)
    return (
        Question(
            "drain-estimate",
            _(
                "900 requests wait, the workers can do 60 a second and 30 a second arrive. "
                "Estimate the seconds until the queue is empty."
            ),
            _("Net capacity is 60 − 30 = 30 a second; 900 ÷ 30 = %(answer)s seconds."),
            _round(estimate or 0, 1),
            tolerance=0.05,
        ),
        Question(
            "never-drains",
            _("Same queue, but now 70 requests a second arrive. Does it ever empty?"),
            _("%(answer)s: the net capacity is negative, so the queue only grows."),
            "yes" if drain_estimate_s(900, 70, 60) is not None else "no",
            kind=CHOICE,
            choices=YES_NO,
        ),
        Question(
            "capacity",
            _(
                "8 workers each spend 80 ms on a request. How many requests a second can "
                "they finish together?"
            ),
            _("One worker does 1,000 ÷ 80 = 12.5 a second; 8 of them do %(answer)s."),
            _round(8 * 1000 / 80, 1),
        ),
        Question(
            "trigger",
            _("The spike ended at second 90 but the queue stayed full. What keeps it full?"),
            _(
                "%(answer)s: callers time out and retry, and the abandoned requests are "
                "still served, so the queue never shrinks."
            ),
            "loop",
            kind=CHOICE,
            choices=(
                ("loop", _("Retries and wasted work on requests nobody waits for")),
                ("spike", _("The spike, which is still going on")),
                ("slow", _("Workers that became slower")),
            ),
        ),
        Question(
            "payments",
            _("What should happen to a payment whose caller timed out?"),
            _(
                "%(answer)s: it may already have moved money, so it is checked by its "
                "operation id, never silently dropped."
            ),
            "reconcile",
            kind=CHOICE,
            choices=(
                ("drop", _("Drop it with the other expired work")),
                ("retry", _("Charge it again straight away")),
                ("reconcile", _("Send it to reconciliation")),
            ),
        ),
        Question(
            "pool-wait",
            _(
                "Callers give up after 1 s, but the connection pool lets a request wait 30 s "
                "for a connection. The database is fast again, yet no caller gets an answer. "
                "Which change frees the pool soonest?"
            ),
            _(
                "%(answer)s: a request then leaves the line while its caller still waits, so "
                "no connection is spent on a caller who has gone (the pool-trap lab)."
            ),
            "short_wait",
            kind=CHOICE,
            choices=(
                ("short_wait", _("A wait for a connection shorter than the caller's timeout")),
                ("more_retries", _("Let each caller retry more often")),
                ("longer_wait", _("A longer wait for a connection")),
            ),
        ),
        Question(
            "reopen",
            _("Once the queue is short again, how should the admission limit go back up?"),
            _("%(answer)s: opening at once can refill the queue and start the loop again."),
            "ramp",
            kind=CHOICE,
            choices=(
                ("ramp", _("Step by step, over some seconds")),
                ("now", _("All at once, to full capacity")),
            ),
        ),
    )


SELF_CHECKS: dict[str, tuple[Question, ...]] = {
    "lesson-07": _lesson_07(),
    "lesson-12": _lesson_12(),
    "lesson-13": _lesson_13(),
    "assignment-05": _assignment_05(),
}


def questions_for(unit_slug: str) -> tuple[Question, ...]:
    return SELF_CHECKS.get(unit_slug, ())
