"""The operator's controls and the channel they travel on, apart from the failing path.

A drowning service must still hear its operator. So commands never go through the work
queue (full of expired requests) nor through Celery (its worker is busy running this very
experiment): they go on a Redis stream of their own, `ctl`, that a thread of the experiment
reads with a blocking XREAD on its own connection. A command is applied within
milliseconds of being written, however long the request queue is.

Each command switches one control on or off and may set its value; `parse_command` checks
it with a plain-words error, so the site's form and the experiment refuse the same things.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

import redis

from labs.experiments.namespace import Namespace
from labs.text import gettext_noop, phrase

SOURCES = ("operator", "schedule")
STREAM_MAXLEN = 1000  # commands kept on the channel; a run sees a few dozen at most


@dataclass(frozen=True)
class ControlSpec:
    """One switch of the operator panel, and the value it takes (if any) with its bounds."""

    name: str
    label: str
    value_label: str = ""  # "" = a plain on/off switch
    unit: str = ""
    min: float = 0.0
    max: float = 0.0

    @property
    def has_value(self) -> bool:
        return bool(self.value_label)


CONTROLS = (
    ControlSpec("admission_limit", "Admission limit", "Admitted a second", "req/s", 1, 10_000),
    ControlSpec("retry_budget", "Retry budget", "Retries allowed per new request", "", 0, 1),
    ControlSpec("drop_expired", "Drop expired work"),
    ControlSpec("reconcile_payments", "Reconcile payments"),
    ControlSpec("drop_payments", "Drop payments too (naive)"),
    ControlSpec("reserve_share", "Reserve for fresh requests", "Share of workers", "", 0.05, 0.9),
    ControlSpec("reopen_ramp", "Reopen ramp", "Ramp length", "s", 0, 3600),
)  # fmt: skip
CONTROL_NAMES = tuple(c.name for c in CONTROLS)


def control_spec(name: str) -> ControlSpec:
    """The spec of control `name`; ValueError in plain words for an unknown one."""
    for spec in CONTROLS:
        if spec.name == name:
            return spec
    raise ValueError(f"There is no control called {name!r}.")


@dataclass(frozen=True)
class Command:
    """Switch `control` on or off, with a new value if it takes one (None = keep it)."""

    control: str
    on: bool
    value: float | None = None
    source: str = "operator"

    def label(self) -> str:
        """A short line for the timeline: 'drop_expired on', 'admission_limit on (60)'."""
        value = "" if self.value is None else f" ({self.value:g})"
        return f"{self.control} {'on' if self.on else 'off'}{value}"


SWITCH_LABEL = re.compile(r"^(?P<control>\w+) (?P<on>on|off)(?: \((?P<value>[^)]*)\))?$")


def switch_phrase(label: str) -> dict[str, Any] | str:
    """A timeline label ('admission_limit on (60)') as a `phrase` the page says in the
    reader's words ('Admission limit on (60)'); an unknown label as it is."""
    found = SWITCH_LABEL.match(label)
    if found is None or found["control"] not in CONTROL_NAMES:
        return label
    name = phrase(control_spec(found["control"]).label)
    on = found["on"] == "on"
    if found["value"] is None:
        words = gettext_noop("%(control)s on") if on else gettext_noop("%(control)s off")
        return phrase(words, control=name)
    words = gettext_noop("%(control)s on (%(value)s)") if on else gettext_noop("%(control)s off")
    return phrase(words, control=name, value=found["value"])


def parse_command(control: Any, on: Any, value: Any = None, source: Any = "operator") -> Command:
    """Check a command from a form or from the channel; ValueError says what is wrong."""
    spec = control_spec(str(control))
    if on not in (True, False, "1", "0", "true", "false", "on", "off"):
        raise ValueError(f"Say whether {spec.label.lower()} goes on or off.")
    switched_on = on in (True, "1", "true", "on")
    if source not in SOURCES:
        raise ValueError(f"Unknown source {source!r}.")
    number: float | None = None
    if value not in (None, ""):
        if not spec.has_value:
            raise ValueError(f"{spec.label} takes no value.")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{spec.value_label} must be a number, got {value!r}.") from None
        if not math.isfinite(number) or not spec.min <= number <= spec.max:
            raise ValueError(
                f"{spec.value_label} must be between {spec.min:g} and {spec.max:g}, got {value}."
            )
    return Command(spec.name, switched_on, number, str(source))


@dataclass(frozen=True)
class ControlState:
    """Every control's switch and value at one moment. Replaced whole, never edited."""

    admission_limit: bool = False
    admit_rps: float = 90.0
    limit_retries: bool = False
    retry_budget: float = 0.1
    drop_expired: bool = False
    reconcile_payments: bool = False
    drop_payments: bool = False
    reserve: bool = False
    reserve_share: float = 0.25
    reopen_ramp: bool = True
    reopen_ramp_s: float = 30.0
    # Set by the experiment, not by commands: the admission rate now (it rises while the
    # service reopens) and how many times the limit was switched on (a new bucket each time).
    admit_now_rps: float = 0.0
    admit_epoch: int = 0
    version: int = 0  # one more for every command applied

    def with_command(self, command: Command) -> ControlState:
        """The state after `command`. Reconciling and naive dropping exclude each other."""
        c, on, v = command.control, command.on, command.value
        changes: dict[str, Any] = {}
        if c == "admission_limit":
            rate = self.admit_rps if v is None else v
            changes = {"admission_limit": on, "admit_rps": rate}
            if on:
                changes |= {"admit_now_rps": rate}
                if not self.admission_limit:
                    changes["admit_epoch"] = self.admit_epoch + 1
        elif c == "retry_budget":
            changes = {"limit_retries": on} | ({} if v is None else {"retry_budget": v})
        elif c == "drop_expired":
            changes = {"drop_expired": on}
        elif c == "reconcile_payments":
            changes = {"reconcile_payments": on} | ({"drop_payments": False} if on else {})
        elif c == "drop_payments":
            changes = {"drop_payments": on} | ({"reconcile_payments": False} if on else {})
        elif c == "reserve_share":
            changes = {"reserve": on} | ({} if v is None else {"reserve_share": v})
        elif c == "reopen_ramp":
            changes = {"reopen_ramp": on} | ({} if v is None else {"reopen_ramp_s": v})
        return dataclasses.replace(self, version=self.version + 1, **changes)

    @property
    def payments_may_go(self) -> bool:
        """May a worker discard an expired payment? Only if someone owns it, or naively."""
        return self.reconcile_payments or self.drop_payments

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# KEYS: the channel. ARGV: ttl_ms, maxlen, field/value pairs. Writes only while the run
# lives (it made the stream): a command for a finished run must not leave a key behind.
_SEND = """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return id
"""


def channel_key(namespace: Namespace) -> str:
    """The stream the run's commands go on."""
    return namespace.key("ctl")


def open_channel(r: redis.Redis, namespace: Namespace) -> str:
    """Create the channel (the run is live from now on); returns the id to read after."""
    key = channel_key(namespace)
    entry = r.xadd(key, {"control": "_open"}, maxlen=STREAM_MAXLEN, approximate=True)
    r.pexpire(key, namespace.ttl_ms)
    return entry.decode() if isinstance(entry, bytes) else str(entry)


def send_command(r: redis.Redis, namespace: Namespace, command: Command) -> str | None:
    """Put `command` on the run's channel; its entry id, or None if the run is not live."""
    fields = [
        "control",
        command.control,
        "on",
        "1" if command.on else "0",
        "value",
        "" if command.value is None else repr(command.value),
        "source",
        command.source,
    ]
    entry = r.eval(_SEND, 1, channel_key(namespace), namespace.ttl_ms, STREAM_MAXLEN, *fields)
    if entry is None:
        return None
    return entry.decode() if isinstance(entry, bytes) else str(entry)


def read_commands(
    r: redis.Redis, namespace: Namespace, after: str, block_ms: int
) -> list[tuple[str, dict[str, str]]]:
    """Commands written after entry `after`, waiting up to `block_ms` for the first one."""
    reply = r.xread({channel_key(namespace): after}, block=block_ms, count=100)
    out = []
    for _stream, entries in reply or []:
        for entry_id, fields in entries:
            out.append((entry_id.decode(), {k.decode(): v.decode() for k, v in fields.items()}))
    return out


def entry_ms(entry_id: str) -> int:
    """The Redis time (ms) at which a stream entry was written."""
    return int(entry_id.split("-", 1)[0])
