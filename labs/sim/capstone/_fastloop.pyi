# Type stub of the compiled loop (`_fastloop.pyx`, built by `python -m labs.sim.capstone.build`).
from typing import Any

from labs.sim.capstone.trapped_params import TrappedParams

TAKES_LEAN: bool

def simulate(p: TrappedParams, seed: int, lean: bool = False) -> dict[str, Any]: ...
