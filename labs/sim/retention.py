"""Message retention (Lesson 12): a queue deletes what it has kept too long, done or not.

Why a lab: retention is easy to forget because nothing happens for days. A backlog that
outlives the retention period loses its oldest messages without an error anywhere, and a
dead-letter queue with a retention no longer than its source's can drop a parked message
before anyone looks at it: on a standard SQS queue a message keeps its first enqueue time
when it moves to the DLQ, so the time it already spent in the source is gone from its time
in the DLQ. A FIFO queue starts the clock again on the move.

The model steps through whole hours. Each hour's arrivals are one cohort, sent at the start
of that hour; the workers take the oldest cohorts first (what a queue that keeps its order
would do), and poison messages among them fail every receive and are parked at once (their
maxReceiveCount receives take minutes, which an hourly step rounds away). Someone looks at
the DLQ every `review_every_h` hours, starting at hour 0.
"""

from __future__ import annotations

from dataclasses import dataclass

# Amazon SQS's MessageRetentionPeriod: 4 days unless set, from 1 minute up to 14 days.
DEFAULT_RETENTION_H = 4 * 24
MAX_RETENTION_H = 14 * 24
MIN_RETENTION_S = 60
MAX_HORIZON_H = 60 * 24


@dataclass(frozen=True)
class Hour:
    """The queues at the end of one hour."""

    hour: int
    arrived: int
    done: int  # this hour
    backlog: int  # in the source queue, not done
    oldest_age_h: int  # of the oldest message waiting when the workers start the hour
    expired: int  # deleted by the source's retention so far
    dlq_depth: int
    dlq_expired: int  # deleted by the DLQ's retention so far


@dataclass(frozen=True)
class Parked:
    """Poison messages sent in one hour and parked in the DLQ in another."""

    sent_h: int
    parked_h: int
    count: int
    expires_h: int  # when the DLQ deletes them
    first_look_h: int  # the first DLQ review at or after parking

    @property
    def left_in_dlq_h(self) -> int:
        """Hours they stay in the DLQ (0 if they were already too old when parked)."""
        return max(0, self.expires_h - self.parked_h)

    @property
    def seen(self) -> bool:
        """Someone looked at the DLQ while they were still in it."""
        return self.first_look_h < self.expires_h


@dataclass(frozen=True)
class Retention:
    """Hour by hour, every parked cohort, and the totals the lab reports."""

    hours: list[Hour]
    parked: list[Parked]
    sent: int
    done: int
    expired: int  # from the source queue, never done
    expired_poison: int  # poison messages among them, never parked

    @property
    def parked_total(self) -> int:
        return sum(p.count for p in self.parked)

    @property
    def parked_unseen(self) -> int:
        """Parked messages the DLQ deleted before any review saw them."""
        return sum(p.count for p in self.parked if not p.seen)

    @property
    def least_left_in_dlq_h(self) -> int | None:
        return min((p.left_in_dlq_h for p in self.parked), default=None)


def _poison_in(first: int, count: int, every: int) -> int:
    """How many of messages first..first+count-1 are poison: k is when (k + 1) % every == 0."""
    return (first + count) // every - first // every


def _check(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")


def simulate(
    *,
    arrivals_per_h: int = 100,
    capacity_per_h: int = 300,
    outage_from_h: int = 24,
    outage_h: int = 72,
    source_retention_h: int = DEFAULT_RETENTION_H,
    dlq_retention_h: int = MAX_RETENTION_H,
    poison_every: int = 100,
    review_every_h: int = 48,
    horizon_h: int = 10 * 24,
    fifo: bool = False,
) -> Retention:
    """Run the queue and its DLQ for `horizon_h` hours; the workers stop for `outage_h` hours
    from hour `outage_from_h`. Retentions are whole hours, 1 to 336 (SQS's 14 days)."""
    _check("arrivals_per_h", arrivals_per_h, 0, 1_000_000)
    _check("capacity_per_h", capacity_per_h, 0, 10_000_000)
    _check("horizon_h", horizon_h, 1, MAX_HORIZON_H)
    _check("outage_from_h", outage_from_h, 0, MAX_HORIZON_H)
    _check("outage_h", outage_h, 0, MAX_HORIZON_H)
    _check("source_retention_h", source_retention_h, 1, MAX_RETENTION_H)
    _check("dlq_retention_h", dlq_retention_h, 1, MAX_RETENTION_H)
    _check("poison_every", poison_every, 1, 1_000_000)
    _check("review_every_h", review_every_h, 1, MAX_HORIZON_H)

    # Each waiting cohort: [sent hour, index of its next message, messages left].
    waiting: list[list[int]] = []
    parked: list[Parked] = []
    hours: list[Hour] = []
    sent = done_total = expired = expired_poison = 0
    for hour in range(horizon_h):
        # Retention first: a message exactly `source_retention_h` old is gone.
        while waiting and hour - waiting[0][0] >= source_retention_h:
            sent_h, first, left = waiting.pop(0)
            expired += left
            expired_poison += _poison_in(first, left, poison_every)
        if arrivals_per_h:
            waiting.append([hour, sent, arrivals_per_h])
            sent += arrivals_per_h
        oldest_age_h = hour - waiting[0][0] if waiting else 0
        working = not outage_from_h <= hour < outage_from_h + outage_h
        room = capacity_per_h if working else 0
        done = 0
        while room and waiting:
            cohort = waiting[0]
            take = min(room, cohort[2])
            poison = _poison_in(cohort[1], take, poison_every)
            done += take - poison
            if poison:
                # Standard: the DLQ keeps the first enqueue time. FIFO: the clock restarts.
                start = hour if fifo else cohort[0]
                first_look = -(-hour // review_every_h) * review_every_h
                parked.append(Parked(cohort[0], hour, poison, start + dlq_retention_h, first_look))
            cohort[1] += take
            cohort[2] -= take
            room -= take
            if not cohort[2]:
                waiting.pop(0)
        done_total += done
        in_dlq = sum(p.count for p in parked if p.expires_h > hour)
        hours.append(
            Hour(
                hour=hour,
                arrived=arrivals_per_h,
                done=done,
                backlog=sum(c[2] for c in waiting),
                oldest_age_h=oldest_age_h,
                expired=expired,
                dlq_depth=in_dlq,
                dlq_expired=sum(p.count for p in parked) - in_dlq,
            )
        )
    return Retention(hours, parked, sent, done_total, expired, expired_poison)
