"""A client that times out and retries a payment, with and without an idempotency key (Lesson 13).

A late answer is not a failed charge. The provider has taken the money; only its answer
reaches the client after the client stopped waiting. The client then tries again:
- **without a key** the provider cannot tell the retry from a new payment and charges
  again, so one payment becomes two charges (or more);
- **with a key** (the payment's own id, sent on every try) the provider finds the key it
  has already finished and returns that first answer, the same charge, without charging.

The rules, for each payment on its own clock of whole milliseconds:
- the k-th call of payment n has its answer late when n is listed at least k times in
  `late`; a late answer comes after `timeout_ms`, so the client gives up on that call,
  pauses `pause_ms` and calls again, at most `retries` more times;
- an answer in time takes `provider_ms`, and the client stops there;
- every call reaches the provider: without a key each is a charge, with a key only the
  first is, and every later one is answered with the first charge.

Deterministic: no seed, no randomness.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

LIMITS: dict[str, tuple[int, int]] = {
    "payments": (1, 200),
    "timeout_ms": (100, 30_000),
    "provider_ms": (10, 10_000),
    "retries": (0, 10),
    "pause_ms": (0, 10_000),
}


@dataclass(frozen=True)
class Call:
    """One call the client made, and what the provider did with it each way."""

    payment: int
    attempt: int  # 1 for the first try
    late: bool  # its answer came after the client's timeout
    charge_without_key: str  # a new charge every call
    charge_with_key: str  # the first call's charge, whichever call it answers

    @property
    def charged_with_key(self) -> bool:
        return self.attempt == 1


@dataclass(frozen=True)
class Payment:
    number: int
    calls: int
    told_ok: bool  # an answer in time reached the client
    waited_ms: int  # from the first call to the answer, or to giving up

    @property
    def charges_without_key(self) -> int:
        return self.calls

    @property
    def charges_with_key(self) -> int:
        return 1


@dataclass(frozen=True)
class RetriedPayments:
    calls: list[Call]
    payments: list[Payment]

    @property
    def charges_without_key(self) -> int:
        return sum(p.charges_without_key for p in self.payments)

    @property
    def charges_with_key(self) -> int:
        return sum(p.charges_with_key for p in self.payments)

    @property
    def late_answers(self) -> int:
        return sum(c.late for c in self.calls)

    @property
    def answered_from_key(self) -> int:
        """Retries the key answered in time with the first charge, charging nothing."""
        return sum(1 for c in self.calls if c.attempt > 1 and not c.late)


def _check(name: str, value: int) -> None:
    low, high = LIMITS[name]
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")


def play_payments(
    *,
    payments: int = 4,
    late: Iterable[int] = (2, 4, 4),
    timeout_ms: int = 1_000,
    provider_ms: int = 200,
    retries: int = 3,
    pause_ms: int = 200,
) -> RetriedPayments:
    """Every payment's calls, tried until an answer comes in time or the retries run out."""
    for name, value in (
        ("payments", payments),
        ("timeout_ms", timeout_ms),
        ("provider_ms", provider_ms),
        ("retries", retries),
        ("pause_ms", pause_ms),
    ):
        _check(name, value)
    if provider_ms >= timeout_ms:
        raise ValueError(
            f"provider_ms must be below timeout_ms ({timeout_ms}), got {provider_ms}: "
            "an answer in time has to come before the client gives up"
        )
    late_calls = Counter(late)
    unknown = sorted(n for n in late_calls if not 1 <= n <= payments)
    if unknown:
        raise ValueError(f"late must name payments 1 to {payments}, got {unknown}")
    calls: list[Call] = []
    played: list[Payment] = []
    for n in range(1, payments + 1):
        waited_ms, attempt, told_ok = 0, 0, False
        while attempt <= retries:
            attempt += 1
            is_late = attempt <= late_calls[n]
            calls.append(Call(n, attempt, is_late, f"ch-{n}-{attempt}", f"ch-{n}-1"))
            if not is_late:
                waited_ms += provider_ms
                told_ok = True
                break
            waited_ms += timeout_ms
            if attempt <= retries:
                waited_ms += pause_ms
        played.append(Payment(n, attempt, told_ok, waited_ms))
    return RetriedPayments(calls, played)
