"""Parameter specs a form can be built from: type, default, bounds and one line of help.

Every model's parameters live in a frozen dataclass whose fields are declared with
`param(...)`. The bounds are there so that one run stays small enough for a student's
click to come back in about a second; `check_bounds` turns a value outside them into a
`ValueError` that names the field and the bound it broke.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, Field, field, fields
from typing import Any

_KINDS = {"int": int, "float": float, "bool": bool, "str": str}


def param(
    default: Any,
    help: str,
    *,
    min: float | None = None,
    max: float | None = None,
    choices: tuple[str, ...] | None = None,
) -> Any:
    """Declare one dataclass field with what a form needs to know about it."""
    return field(
        default=default,
        metadata={"help": help, "min": min, "max": max, "choices": choices},
    )


def _kind(f: Field[Any]) -> str:
    # `from __future__ import annotations` keeps annotations as strings such as "float".
    name = f.type if isinstance(f.type, str) else f.type.__name__
    if name not in _KINDS:
        raise TypeError(f"{f.name}: only int, float, bool and str params are supported")
    return name


def param_specs(cls: type) -> tuple[dict[str, Any], ...]:
    """One dict per field of a params dataclass: name, type, default, min, max, choices, help."""
    specs = []
    for f in fields(cls):
        meta = f.metadata
        specs.append(
            {
                "name": f.name,
                "type": _kind(f),
                "default": None if f.default is MISSING else f.default,
                "min": meta.get("min"),
                "max": meta.get("max"),
                "choices": list(meta["choices"]) if meta.get("choices") else None,
                "help": meta.get("help", ""),
            }
        )
    return tuple(specs)


def check_bounds(obj: Any) -> None:
    """Coerce ints given for float fields and refuse any value outside its declared bounds.

    Raises ValueError naming the field and the bound, e.g.
    "workers must be between 1 and 1000, got 0".
    """
    for f in fields(obj):
        kind = _kind(f)
        value = getattr(obj, f.name)
        meta = f.metadata
        if kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"{f.name} must be true or false, got {value!r}")
            continue
        if kind == "str":
            choices = meta.get("choices")
            if not isinstance(value, str) or (choices and value not in choices):
                raise ValueError(
                    f"{f.name} must be one of {', '.join(choices or ())}, got {value!r}"
                )
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{f.name} must be a number, got {value!r}")
        if kind == "int":
            if isinstance(value, float):
                if not value.is_integer():
                    raise ValueError(f"{f.name} must be a whole number, got {value!r}")
                value = int(value)
                object.__setattr__(obj, f.name, value)
        else:
            if not math.isfinite(value):
                raise ValueError(f"{f.name} must be a finite number, got {value!r}")
            value = float(value)
            object.__setattr__(obj, f.name, value)
        low, high = meta.get("min"), meta.get("max")
        if low is not None and high is not None and not low <= value <= high:
            raise ValueError(f"{f.name} must be between {low} and {high}, got {value}")
        if low is not None and value < low:
            raise ValueError(f"{f.name} must be >= {low}, got {value}")
        if high is not None and value > high:
            raise ValueError(f"{f.name} must be <= {high}, got {value}")


def build(cls: type, values: dict[str, Any]) -> Any:
    """Make a params object from plain keyword values, refusing names the model does not have."""
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r}; known: {', '.join(sorted(known))}")
    return cls(**values)


def check_seed(seed: Any) -> int:
    """A seed is a whole number from 0 to 2**63 - 1, so a run can be replayed exactly."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be a whole number between 0 and 2**63 - 1, got {seed!r}")
    return seed
