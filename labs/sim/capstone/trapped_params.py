"""What a student can change in the trapped-service lab, with defaults that show the trap.

The defaults describe the reading-list service of Assignment 05: 8 workers at 80 ms a
request give 100 requests/s of capacity, normal traffic is 80/s (80% busy), and a
30-second spike to 200/s fills the queue far past the 1-second client timeout. After
the spike every caller times out and retries, so the service keeps receiving about
three times its normal traffic and stays stuck. Every recovery control is off by
default; each one switches on at `recover_at_s`.
"""

from __future__ import annotations

from dataclasses import dataclass

from labs.sim.capstone.specs import check_bounds, param, param_specs


def gettext_noop(message: str) -> str:
    """Marks a help text for the catalogue (by this name); the form translates it."""
    return message


MAX_ATTEMPTS_PER_CALL = 64  # retries at every layer multiply; past this a run gets slow
# New requests one run may expect: enough for the 10x benchmark (about 276,000), and a
# run this size takes a few seconds at most (a default run has about 27,600).
MAX_REQUESTS_PER_RUN = 300_000


@dataclass(frozen=True)
class TrappedParams:
    """One run of the trapped reading-list service: load, trigger, clients and controls."""

    # The service
    horizon_s: int = param(300, gettext_noop("Simulated seconds."), min=10, max=3600)
    base_rps: float = param(
        80.0, gettext_noop("Normal arrival rate of new requests (Poisson)."), min=1, max=20000
    )
    workers: int = param(8, gettext_noop("Servers taking work from the queue."), min=1, max=1000)
    service_ms: float = param(
        80.0, gettext_noop("Mean time one request keeps a worker busy."), min=1, max=10000
    )
    service_dist: str = param(
        "exponential",
        gettext_noop("Spread of service time around its mean."),
        choices=("exponential", "constant"),
    )
    cost_spread: float = param(
        1.0,
        gettext_noop(
            "Most expensive job / cheapest job, in work units (1 = all alike, up to 100)."
        ),
        min=1,
        max=100,
    )
    payment_share: float = param(
        0.05, gettext_noop("Share of requests that are payments (obligations)."), min=0, max=1
    )
    queue_limit: int = param(
        2000,
        gettext_noop("Most requests the queue holds; more are refused with 503."),
        min=1,
        max=200000,
    )
    discipline: str = param(
        "fifo",
        gettext_noop("Which queued request a worker takes next."),
        choices=("fifo", "lifo", "codel"),
    )
    # The trigger
    trigger_start_s: float = param(60.0, gettext_noop("When the trigger starts."), min=0, max=3600)
    trigger_end_s: float = param(90.0, gettext_noop("When the trigger ends."), min=0, max=3600)
    spike_rps: float = param(
        200.0, gettext_noop("Arrival rate of new requests during the trigger."), min=0, max=50000
    )
    slowdown_factor: float = param(
        1.0, gettext_noop("Service time is multiplied by this during the trigger."), min=1, max=20
    )
    workers_lost: int = param(
        0, gettext_noop("Workers missing during the trigger."), min=0, max=999
    )
    # The clients
    client_timeout_ms: float = param(
        1000.0, gettext_noop("How long a caller waits for one attempt."), min=10, max=60000
    )
    max_attempts: int = param(
        3, gettext_noop("Attempts per call at one layer (1 = no retries)."), min=1, max=10
    )
    retry_layers: int = param(
        1,
        gettext_noop("Layers that each retry (browser, gateway, SDK): attempts multiply."),
        min=1,
        max=3,
    )
    backoff_base_ms: float = param(
        100.0, gettext_noop("Wait before the first retry; it doubles each time."), min=0, max=10000
    )
    backoff_cap_ms: float = param(
        3200.0, gettext_noop("Longest wait between retries."), min=0, max=60000
    )
    jitter: str = param(
        "full",
        gettext_noop("full: wait a random time up to the backoff."),
        choices=("none", "full"),
    )
    # Recovery controls: each is off unless switched on, and starts at recover_at_s
    recover_at_s: float = param(
        150.0,
        gettext_noop("When the switched-on controls take effect (0 = from the start)."),
        min=0,
        max=3600,
    )
    admission_limit: bool = param(
        False, gettext_noop("Turn away new requests above “Admit at most” at once, with HTTP 429.")
    )
    admit_rps: float = param(
        90.0, gettext_noop("Requests/s admitted while the limit holds."), min=1, max=100000
    )
    reopen_ramp_s: float = param(
        30.0,
        gettext_noop(
            "Once drained, raise the admission limit to full capacity over this long (0 = at once)."
        ),
        min=0,
        max=3600,
    )
    limit_retries: bool = param(False, gettext_noop("Clients share a retry budget."))
    retry_budget: float = param(
        0.1,
        gettext_noop("Retries allowed per new request (token bucket over ~10 s)."),
        min=0,
        max=1,
    )
    drop_expired: bool = param(
        False, gettext_noop("A worker discards a read whose caller has already given up.")
    )
    drop_cost_ms: float = param(
        1.0,
        gettext_noop("Worker time spent checking and discarding one expired item."),
        min=0,
        max=1000,
    )
    drop_payments: bool = param(
        False,
        gettext_noop("Naive: discarding expired work throws payments away too (they get lost)."),
    )
    reconcile_payments: bool = param(
        False,
        gettext_noop("Timed-out payments go to a reconciliation owner by their operation id."),
    )
    reconcile_delay_s: float = param(
        10.0,
        gettext_noop("Time the reconciliation owner needs for the provider's answer."),
        min=0,
        max=600,
    )
    reserve_share: float = param(
        0.0,
        gettext_noop("Share of workers that only take fresh requests (newest first)."),
        min=0,
        max=0.9,
    )

    def __post_init__(self) -> None:
        check_bounds(self)
        if self.trigger_end_s < self.trigger_start_s:
            raise ValueError(
                f"trigger_end_s must be >= trigger_start_s ({self.trigger_start_s}), "
                f"got {self.trigger_end_s}"
            )
        if self.trigger_end_s > self.horizon_s:
            raise ValueError(
                f"trigger_end_s must be <= horizon_s ({self.horizon_s}), got {self.trigger_end_s}"
            )
        if self.recover_at_s > self.horizon_s:
            raise ValueError(
                f"recover_at_s must be <= horizon_s ({self.horizon_s}), got {self.recover_at_s}"
            )
        if self.workers_lost >= self.workers:
            raise ValueError(
                f"workers_lost must be < workers ({self.workers}), got {self.workers_lost}"
            )
        if self.backoff_cap_ms < self.backoff_base_ms:
            raise ValueError(
                f"backoff_cap_ms must be >= backoff_base_ms ({self.backoff_base_ms}), "
                f"got {self.backoff_cap_ms}"
            )
        if self.attempts_per_call > MAX_ATTEMPTS_PER_CALL:
            raise ValueError(
                f"max_attempts ** retry_layers must be <= {MAX_ATTEMPTS_PER_CALL}, "
                f"got {self.attempts_per_call}"
            )
        if self.drop_payments and self.reconcile_payments:
            raise ValueError("drop_payments and reconcile_payments can't both be on")
        if self.expected_requests > MAX_REQUESTS_PER_RUN:
            raise ValueError(
                "expected new requests (base_rps outside the trigger, spike_rps inside, "
                f"over horizon_s) must be <= {MAX_REQUESTS_PER_RUN:,}, "
                f"got {self.expected_requests:,.0f}"
            )

    @property
    def attempts_per_call(self) -> int:
        """Every layer retries every attempt of the layer above it: 3 x 3 x 3 = 27."""
        return self.max_attempts**self.retry_layers

    @property
    def expected_requests(self) -> float:
        """New requests a run will see on average: what sets how long it takes."""
        trigger_s = self.trigger_end_s - self.trigger_start_s
        return self.base_rps * (self.horizon_s - trigger_s) + self.spike_rps * trigger_s

    @property
    def capacity_rps(self) -> float:
        """Requests/s all workers finish at the mean service time, outside the trigger."""
        return self.workers * 1000.0 / self.service_ms


PARAM_SPECS = param_specs(TrappedParams)
