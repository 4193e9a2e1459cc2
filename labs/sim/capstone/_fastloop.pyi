# Type stub of the compiled loop (`_fastloop.pyx`, built by `python -m labs.sim.capstone.build`).
from typing import Any

from labs.sim.capstone.trapped_params import TrappedParams

TAKES_LEAN: bool
TAKES_FIGURES: bool

class Waits:
    def __len__(self) -> int: ...
    def lists(self) -> list[list[float]]: ...
    def series_ms(self, prefix: str) -> dict[str, list[float | None]]: ...
    def window_ms(self, windows: dict[str, slice], prefix: str = "") -> dict[str, float | None]: ...

def simulate(
    p: TrappedParams, seed: int, lean: bool = False, figures: bool = False
) -> dict[str, Any]: ...
