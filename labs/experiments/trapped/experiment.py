"""The capstone's trapped service on a real Redis: callers, a queue, workers, an operator.

`trapped_live(seed, time_scale=..., **params)` plays the model's scenario
(`labs.sim.capstone.trapped_service`, same params) with real parts: a caller thread with
real timeouts and retries, a bounded request queue on Redis, worker threads that really
spend the service time, a payments ledger on Redis, and a control channel the operator
writes to while the run goes. It returns the model's figures (so the capstone's report,
criteria and gradebook read it unchanged), the model's prediction beside them, and the
timeline of every control switched with how long it took to act.

The run's parts, each a thread with its own Redis connection:

- callers (`callers.py`): Poisson arrivals, a deadline per attempt, backoff with jitter;
- workers (`servers.py`): ordinary ones take the oldest request, reserved ones the newest;
- control (`_control_loop`): a blocking read of the command stream, applied at once;
- reconciler (`_settle_loop`): hears the provider's answer for payments it owns;
- the main loop here: the trigger, the scheduled controls, one row per model second.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any

from labs.experiments.context import LOCAL, ExperimentContext
from labs.experiments.harness import ExperimentSession, finish
from labs.experiments.metrics import OnSample
from labs.experiments.namespace import connect
from labs.experiments.trapped.callers import Callers
from labs.experiments.trapped.controls import (
    Command,
    ControlState,
    channel_key,
    entry_ms,
    open_channel,
    parse_command,
    read_commands,
    send_command,
)
from labs.experiments.trapped.scaled_params import DEFAULT_TIME_SCALE, check_time_scale, live_params
from labs.experiments.trapped.servers import Servers
from labs.experiments.trapped.service import ServiceQueue
from labs.experiments.trapped.tally import Tally, percentile
from labs.sim.capstone.engine import SERIES, _snapshot
from labs.sim.capstone.latency import PERCENTILES, percentiles_ms
from labs.sim.capstone.obligations import STATES
from labs.sim.capstone.specs import check_seed
from labs.sim.capstone.summary import drain_reasons, summarize
from labs.sim.capstone.trapped import trapped_service
from labs.sim.capstone.trapped_params import TrappedParams

DEFAULT_SEED = 5
CONTROL_BLOCK_MS = 50  # the control thread's blocking read; it checks the stop signal between
SETTLE_EVERY_S = 0.05
LATENCY_SERIES = tuple(
    f"{prefix}_p{p}_ms" for prefix in ("latency", "call_latency") for p in PERCENTILES
)
LIVE_SERIES = SERIES + LATENCY_SERIES
MODEL_SERIES = ("backlog", "useful", "oldest_age_s", "retries", "wasted")
CONTROL_FLAGS = (
    "admission_limit",
    "limit_retries",
    "drop_expired",
    "reconcile_payments",
    "drop_payments",
    "reserve",
    "reopen_ramp",
)
# The params that switch controls at recover_at_s, as the model does, and their commands.
SCHEDULED = (
    ("admission_limit", "admission_limit", "admit_rps"),
    ("limit_retries", "retry_budget", "retry_budget"),
    ("drop_expired", "drop_expired", None),
    ("reconcile_payments", "reconcile_payments", None),
    ("drop_payments", "drop_payments", None),
)


def trapped_live(
    seed: int = DEFAULT_SEED,
    *,
    time_scale: float = DEFAULT_TIME_SCALE,
    context: ExperimentContext = LOCAL,
    **params: Any,
) -> dict[str, Any]:
    """Run the trapped service live; `params` are the model's (see `params.LIVE_DEFAULTS`).

    `context` says where the keys live, where live samples go (one per simulated second)
    and when to stop; its sample interval is not used.
    """
    p = live_params(params)
    scale = check_time_scale(p, time_scale)
    check_seed(seed)
    with context.run(seed) as run:
        # This lab runs longer than the other experiments' 60 s: its own cap is checked by
        # `check_time_scale`, and the margin covers start-up and the last second's reading.
        run.max_wall_s = p.horizon_s * scale + 10.0
        service = LiveService(run, p, scale, seed, context.on_sample, context.redis_url)
        result = service.play()
    return finish(run, result)


class LiveService:
    """One live run: starts the parts, keeps the clock, the rows and the control timeline."""

    def __init__(
        self,
        run: ExperimentSession,
        p: TrappedParams,
        time_scale: float,
        seed: int,
        on_sample: OnSample | None,
        url: str | None,
    ) -> None:
        self.run = run
        self.p = p
        self.scale = time_scale
        self.seed = seed
        self.on_sample = on_sample
        self.url = url
        self.queue = ServiceQueue(run.redis, run.ns)
        self.tally = Tally()
        self.state = ControlState(
            admit_rps=p.admit_rps,
            retry_budget=p.retry_budget,
            reserve_share=p.reserve_share or 0.25,
            reopen_ramp_s=p.reopen_ramp_s,
        )
        self.slow = 1.0
        self.lost_now = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.timeline: list[dict[str, Any]] = []
        self.refused: list[dict[str, Any]] = []
        self.rows: dict[str, list[Any]] = {name: [] for name in LIVE_SERIES}
        self.t_s: list[float] = []
        self.waits: dict[str, list[list[float]]] = {"attempt": [], "call": []}
        self.snapshot: dict[str, Any] = {}
        self.ever_on: set[str] = set()
        self.drained_at: int | None = None
        self.reopen_from: int | None = None
        self.t0 = time.monotonic()
        self._pending_switches: list[str] = []

    # -- the clock ---------------------------------------------------------------------------

    def model_now(self) -> float:
        return (time.monotonic() - self.t0) / self.scale

    def controls(self) -> ControlState:
        return self.state

    # -- the run -----------------------------------------------------------------------------

    def play(self) -> dict[str, Any]:
        p, run = self.p, self.run
        self.channel_after = open_channel(run.redis, run.ns)
        self.t0 = time.monotonic()
        self.servers = run.own(
            Servers(self.queue, p, time_scale=self.scale, seed=self.seed,
                    controls=self.controls, slowdown=lambda: self.slow, tally=self.tally,
                    url=self.url)
        )  # fmt: skip
        self.callers = run.own(
            Callers(self.queue, p, time_scale=self.scale, seed=self.seed,
                    controls=self.controls, tally=self.tally, t0=self.t0, url=self.url)
        )  # fmt: skip
        threads = [
            threading.Thread(target=self._loop, args=(self._control_step, "control"), daemon=True),
            threading.Thread(target=self._loop, args=(self._settle_step, "settle"), daemon=True),
        ]
        run.own(_Joiner(self._stop, threads))
        self.servers.start()
        self.servers.wait_ready()
        self.t0 = self.callers.t0 = time.monotonic()
        self.callers.start()
        for thread in threads:
            thread.start()
        self._main_loop()
        self.callers.stop()
        self.servers.stop()
        self._stop.set()
        for thread in threads:
            thread.join(5.0)
        return self._result()

    def _main_loop(self) -> None:
        p, run = self.p, self.run
        tick_s = min(0.02, self.scale / 5)
        trigger_on = trigger_off = scheduled = False
        second = 0
        while not run.stopped():
            now = self.model_now()
            if not trigger_on and now >= p.trigger_start_s:
                trigger_on = True
                self._trigger(on=True)
            if trigger_on and not trigger_off and now >= p.trigger_end_s:
                trigger_off = True
                self._trigger(on=False)
            if not scheduled and now >= p.recover_at_s and p.recover_at_s < p.horizon_s:
                scheduled = True
                for command in scheduled_commands(p):
                    send_command(run.redis, run.ns, command)
            while second + 1 <= min(now, p.horizon_s):
                second += 1
                self._close_second(second)
            if second >= p.horizon_s:
                return
            time.sleep(tick_s)

    def _trigger(self, *, on: bool) -> None:
        """The trigger's slowdown and lost workers (the spike is in the callers' arrivals)."""
        self.slow = self.p.slowdown_factor if on else 1.0
        self.lost_now = self.p.workers_lost if on else 0
        with self._lock:
            self._resize(self.state)

    def _resize(self, state: ControlState) -> None:
        """Split the workers present between ordinary ones and the reserve. Holds the lock."""
        present = self.p.workers - self.lost_now
        reserve = 0
        if state.reserve and present > 1:
            reserve = min(present - 1, max(1, round(state.reserve_share * self.p.workers)))
        self.servers.resize(present - reserve, reserve)

    # -- the operator's channel --------------------------------------------------------------

    def _loop(self, step: Callable[[Any], None], name: str) -> None:
        r = connect(self.url, name=f"{self.run.ns.prefix}{name}")
        try:
            while not self._stop.is_set():
                try:
                    step(r)
                except Exception as error:  # keep going: the operator must stay heard
                    self.refused.append({"control": name, "error": repr(error)})
                    time.sleep(0.05)
        finally:
            r.close()

    def _control_step(self, r: Any) -> None:
        for entry_id, fields in read_commands(r, self.run.ns, self.channel_after, CONTROL_BLOCK_MS):
            self.channel_after = entry_id
            if fields.get("control") == "_open":
                continue
            try:
                command = parse_command(
                    fields.get("control"), fields.get("on"), fields.get("value"),
                    fields.get("source", "operator"),
                )  # fmt: skip
            except ValueError as error:
                self.refused.append({"entry": entry_id, "error": str(error)})
                continue
            self.apply(command, entry_ms(entry_id), r)

    def apply(self, command: Command, sent_ms: int | None, r: Any) -> None:
        """Switch a control now and stamp it on the timeline with how long it took."""
        with self._lock:
            before = self.state
            after = before.with_command(command)
            if after.reserve != before.reserve or after.reserve_share != before.reserve_share:
                self._resize(after)
            if after.admit_epoch != before.admit_epoch:
                self.reopen_from = None
            self.state = after
        if after.reconcile_payments and not before.reconcile_payments:
            self.queue.ledger.with_client(r).reconcile_all(self._delay_ms())
        seconds, micros = r.time()
        applied_ms = int(seconds) * 1000 + int(micros) // 1000
        self._stamp(command.label(), command.source, command, sent_ms, applied_ms, after)

    def _stamp(
        self,
        label: str,
        source: str,
        command: Command | None,
        sent_ms: int | None,
        applied_ms: int | None,
        after: ControlState,
    ) -> None:
        now = self.model_now()
        if command is not None and command.on and not self.snapshot:
            self._take_snapshot(now, after)
        for flag in CONTROL_FLAGS:
            if getattr(after, flag):
                self.ever_on.add(flag)
        self.timeline.append(
            {
                "t_s": round(now, 3),
                "control": command.control if command else "admission_limit",
                "on": command.on if command else False,
                "value": command.value if command else None,
                "source": source,
                "label": label,
                "version": after.version,
                "sent_ms": sent_ms,
                "latency_ms": None if sent_ms is None or applied_ms is None
                else applied_ms - sent_ms,
            }
        )  # fmt: skip
        self._pending_switches.append(label)

    def _settle_step(self, r: Any) -> None:
        self.queue.ledger.with_client(r).settle_due()
        time.sleep(SETTLE_EVERY_S)

    def _delay_ms(self) -> int:
        return round(self.p.reconcile_delay_s * 1000 * self.scale)

    # -- one row a model second --------------------------------------------------------------

    def _close_second(self, second: int) -> None:
        counts, waits, call_waits = self.tally.close_second()
        self.waits["attempt"].append(waits)
        self.waits["call"].append(call_waits)
        # The channel is written only by commands: keep it alive as long as the run is.
        self.run.redis.pexpire(channel_key(self.run.ns), self.run.ns.ttl_ms)
        stats = self.queue.stats()
        ledger = self.queue.ledger.counts()
        state = self.state
        row: dict[str, Any] = {name: counts.get(name, 0) for name in SERIES}
        row |= {
            "shed": 0,
            "backlog": stats.backlog,
            "queued": stats.queued,
            "oldest_age_s": round(stats.oldest_age_ms / 1000.0 / self.scale, 3),
            "work_queued": float(stats.queued),
            "admit_limit_rps": round(state.admit_now_rps, 3) if state.admission_limit else 0.0,
        }
        for prefix, values in (("latency", waits), ("call_latency", call_waits)):
            row |= {f"{prefix}_p{p}_ms": ms for p, ms in percentiles_ms(values).items()}
        row |= {f"payments_{s}": ledger.counts[s] for s in STATES}
        for name in LIVE_SERIES:
            self.rows[name].append(row[name])
        self.t_s.append(round(time.monotonic() - self.t0, 3))
        self._after_second(second, stats.queued)
        if self.on_sample is not None:
            switches, self._pending_switches = self._pending_switches, []
            sample = {"t_s": self.t_s[-1], "second": second} | row
            sample |= {f"ctl_{flag}": int(getattr(self.state, flag)) for flag in CONTROL_FLAGS}
            sample |= {
                "ctl_admit_rps": self.state.admit_rps,
                "ctl_retry_budget": self.state.retry_budget,
                "ctl_reserve_share": self.state.reserve_share,
                "ctl_reopen_ramp_s": self.state.reopen_ramp_s,
                "switched": "; ".join(switches),
            }
            self.on_sample(sample)

    def _after_second(self, second: int, queued: int) -> None:
        """Notice the drain, and raise the admission limit while the service reopens."""
        p = self.p
        if self.snapshot and self.drained_at is None and queued <= p.workers:
            self.drained_at = second
        state = self.state
        if not (state.admission_limit and state.reopen_ramp) or second < p.trigger_end_s:
            return
        if self.reopen_from is None:
            if queued > p.workers:
                return
            self.reopen_from = second
        ramp = state.reopen_ramp_s
        share = (second - self.reopen_from) / ramp if ramp > 0 else 1.0
        with self._lock:
            if self.state.admit_epoch != state.admit_epoch or not self.state.admission_limit:
                return  # the operator changed the limit meanwhile: theirs wins
            if share >= 1.0 or state.admit_rps >= p.capacity_rps:
                self.state = dataclasses.replace(self.state, admission_limit=False)
                lifted = True
            else:
                rate = state.admit_rps + (p.capacity_rps - state.admit_rps) * share
                self.state = dataclasses.replace(self.state, admit_now_rps=rate)
                lifted = False
        if lifted:
            self._stamp("admission_limit off (reopened)", "ramp", None, None, None, self.state)

    def _take_snapshot(self, now: float, state: ControlState) -> None:
        """What the operator knew when the first control went on: the drain estimate's inputs."""
        stats = self.queue.stats()
        p_now = self._effective_params(now, state)
        self.snapshot = _snapshot(p_now, now, stats.backlog, float(stats.queued), self.rows)

    def _effective_params(self, at_s: float, state: ControlState) -> TrappedParams:
        """The model's params with the controls as they were switched in this run."""
        return dataclasses.replace(
            self.p,
            recover_at_s=min(float(self.p.horizon_s), round(at_s, 3)),
            admission_limit="admission_limit" in self.ever_on or state.admission_limit,
            admit_rps=state.admit_rps,
            limit_retries="limit_retries" in self.ever_on or state.limit_retries,
            retry_budget=state.retry_budget,
            drop_expired="drop_expired" in self.ever_on or state.drop_expired,
            reconcile_payments=state.reconcile_payments,
            drop_payments=state.drop_payments and not state.reconcile_payments,
            reserve_share=state.reserve_share if "reserve" in self.ever_on else 0.0,
            reopen_ramp_s=state.reopen_ramp_s,
        )

    # -- the result --------------------------------------------------------------------------

    def _result(self) -> dict[str, Any]:
        p, scale = self.p, self.scale
        ledger = self.queue.ledger
        counts = ledger.counts()
        first = next((e["t_s"] for e in self.timeline if e["on"]), None)
        p_eff = self._effective_params(p.horizon_s if first is None else first, self.state)
        raw = {
            "series": self.rows,
            "events": sum(self.rows["admitted"]) + sum(self.rows["rejected"]),
            "ledger": counts,
            "snapshot": self.snapshot,
            "drained_at_s": self.drained_at,
            "work": self.tally.work(),
            "waits_s": self.waits,
        }
        summary = summarize(p_eff, raw)
        seconds, micros = self.run.redis.time()
        now_ms = int(seconds) * 1000 + int(micros) // 1000
        self._effects()
        latencies = [e["latency_ms"] for e in self.timeline if e["latency_ms"] is not None]
        summary |= {
            "time_scale": scale,
            "recover_at_s": p_eff.recover_at_s if first is not None else None,
            "latency_p50_ms": percentile(self.tally.all_latencies, 50),
            "latency_p99_ms": percentile(self.tally.all_latencies, 99),
            "controls_switched": len([e for e in self.timeline if e["source"] != "ramp"]),
            "control_latency_ms_p50": percentile(latencies, 50),
            "control_latency_ms_p95": percentile(latencies, 95),
            "control_latency_ms_max": max(latencies, default=None),
            "commands_refused": len(self.refused),
            "worker_errors": len(self.servers.errors),
            "caller_errors": len(self.callers.errors),
        }
        model = trapped_service(self.seed, **dataclasses.asdict(p))
        summary |= _model_figures(model["summary"])
        series: dict[str, list[Any]] = {"second": list(range(len(self.t_s))), "t_s": self.t_s}
        series |= self.rows
        for name in MODEL_SERIES:
            series[f"model_{name}"] = model["series"][name][: len(self.t_s)]
        summary |= self.run.footer()
        return {
            "summary": summary,
            "series": series,
            "tables": {
                "obligations": ledger.table(now_ms, 1000.0 * scale),
                "drain_reasons": drain_reasons(p_eff, raw),
                "timeline": self.timeline,
                "refused": self.refused[:50],
                "errors": (self.servers.errors + self.callers.errors)[:20],
            },
        }

    def _effects(self) -> None:
        """When each command first acted: a worker's first step under it (Redis ms - sent).

        A busy worker sees new controls when it finishes its current request, so this is
        the applied stamp plus up to one service time. For "drop expired" switched on, also
        the first expired request actually thrown away.
        """
        steps, discards = self.servers.first_step_ms, self.servers.first_discard_ms
        for event in self.timeline:
            version, sent = event["version"], event.pop("sent_ms")
            # A command superseded before any worker stepped acted with the next one.
            step = min((ms for v, ms in steps.items() if v >= version), default=None)
            discard = min((ms for v, ms in discards.items() if v >= version), default=None)
            event["effect_ms"] = step - sent if step and sent else None
            dropping = event["control"] == "drop_expired" and event["on"]
            event["first_discard_ms"] = discard - sent if dropping and discard and sent else None


def scheduled_commands(p: TrappedParams) -> list[Command]:
    """The commands the params switch on at recover_at_s (the before/after report's runs)."""
    commands = []
    for flag, control, value in SCHEDULED:
        if getattr(p, flag):
            v = None if value is None else getattr(p, value)
            commands.append(parse_command(control, True, v, "schedule"))
    if p.reserve_share > 0:
        commands.append(
            parse_command("reserve_share", True, max(0.05, p.reserve_share), "schedule")
        )
    return commands


def _model_figures(model: dict[str, Any]) -> dict[str, Any]:
    names = (
        "recovered",
        "recovered_at_s",
        "peak_backlog",
        "final_backlog",
        "goodput_before_rps",
        "goodput_after_rps",
        "amplification",
        "wasted_share",
        "obligations_lost",
        "obligations_unknown",
        "obligations_reconciled",
    )
    return {f"model_{name}": model[name] for name in names}


class _Joiner:
    """Stops the run's own threads (control, reconciler) when the run ends, however it ends."""

    def __init__(self, stop: threading.Event, threads: list[threading.Thread]) -> None:
        self._stop = stop
        self._threads = threads

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            if thread.is_alive():
                thread.join(5.0)
