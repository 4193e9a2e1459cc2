"""How copies raise availability and chains of dependencies lower it (Lesson 13).

Both rules hold only while no two parts can break for the same reason. When one cause
(the same faulty release, one shared dependency) can take down several parts at once,
the true availability is lower than these formulas say.
"""

from __future__ import annotations

HOURS_PER_YEAR = 365 * 24  # a 365-day year, as availability tables usually use
MINUTES_PER_MONTH = 30 * 24 * 60  # a 30-day month


def _check(name: str, a: float) -> None:
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, got {a}")


def parallel(a: float, copies: int) -> float:
    """Availability of `copies` independent copies, any one of which can serve.

    The whole is down only when every copy is down at once: 1 - (1 - a) ** copies.
    Two zones at 99.0% each give 99.99%.
    """
    _check("a", a)
    if copies < 1:
        raise ValueError(f"copies must be >= 1, got {copies}")
    return 1.0 - (1.0 - a) ** copies


def parallel_sharing(a: float, copies: int, shared: float) -> float:
    """Copies that all need one shared dependency (one database, one NAT gateway).

    The copies still fail independently of each other, but when the shared part fails
    they all fail at once: up = shared × (1 - (1 - a) ** copies). Two zones at 99.9% give
    99.9999% on their own and 99.8999% with a 99.9% dependency that both need: never more
    than the shared part, however many copies are added.
    """
    _check("shared", shared)
    return shared * parallel(a, copies)


def serial(*a: float) -> float:
    """Availability of a chain that works only when every link works: a1 × a2 × ...

    Each extra hard dependency lowers the total below its weakest link.
    """
    if not a:
        raise ValueError("serial needs at least one availability")
    total = 1.0
    for i, link in enumerate(a):
        _check(f"a[{i}]", link)
        total *= link
    return total


def downtime_per_year_h(a: float) -> float:
    """Hours a year the service is down at availability `a` (99.9% is about 8.8 h)."""
    _check("a", a)
    return (1.0 - a) * HOURS_PER_YEAR


def downtime_per_month_min(a: float) -> float:
    """Minutes a 30-day month the service is down at availability `a` (99.9% is 43.2 min)."""
    _check("a", a)
    return (1.0 - a) * MINUTES_PER_MONTH
