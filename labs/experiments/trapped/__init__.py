"""The capstone's trapped service on a real Redis, with an operator's control channel.

`trapped_live(seed, time_scale=..., **params)` is the lab's entry (see `experiment.py`);
`send_command` / `parse_command` are what an operator panel uses to switch a control
while a run goes; `CONTROLS` lists the switches with their values' bounds.
"""

from labs.experiments.trapped.controls import (
    CONTROLS,
    Command,
    ControlSpec,
    channel_key,
    parse_command,
    send_command,
)
from labs.experiments.trapped.experiment import scheduled_commands, trapped_live
from labs.experiments.trapped.scaled_params import DEFAULT_TIME_SCALE, LIVE_DEFAULTS, live_params

__all__ = [
    "CONTROLS",
    "DEFAULT_TIME_SCALE",
    "LIVE_DEFAULTS",
    "Command",
    "ControlSpec",
    "channel_key",
    "live_params",
    "parse_command",
    "scheduled_commands",
    "send_command",
    "trapped_live",
]
