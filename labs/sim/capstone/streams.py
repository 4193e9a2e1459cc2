"""Named random streams, so that switching a control on never changes who calls and when.

A model that draws every random number from one generator couples things that should
not be coupled: a control that changes how many service times are drawn shifts every
later arrival, and a before/after pair no longer meets the same callers. Each concern
draws from its own stream instead (the "common random numbers" of simulation studies):

- `arrivals`: when each new request comes, what it costs, whether it is a payment,
  which key it reads and through which instance;
- `service`: how long each piece of work keeps a worker busy;
- `retries`: the jittered wait before each retry;
- `expiry`: the random part of a cache entry's time to live.

Two runs with the same seed and the same load therefore get exactly the same callers,
whatever the recovery controls do; only what happens to them differs.
"""

from __future__ import annotations

import random

ARRIVALS = "arrivals"
SERVICE = "service"
RETRIES = "retries"
EXPIRY = "expiry"
PURPOSES = (ARRIVALS, SERVICE, RETRIES, EXPIRY)


def stream(seed: int, purpose: str) -> random.Random:
    """The generator for one purpose of one seeded run (same seed and purpose, same numbers).

    The seed and the purpose are joined into one string, which `random.Random` hashes with
    SHA-512: stable across processes and Python versions, unlike `hash()`.
    """
    if purpose not in PURPOSES:
        raise ValueError(f"purpose must be one of {', '.join(PURPOSES)}, got {purpose!r}")
    return random.Random(f"{seed}:{purpose}")
