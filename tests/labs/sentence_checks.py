"""Reading a lab's sentences back against the figures they describe.

Two kinds of check, both derived from the result rather than written per run:

- every number in a sentence must be one the result holds: a summary figure, a param, a
  table entry, a series' highest, lowest or total, one of those as a percentage, in ms or
  in s, a sum, difference, product or ratio of two summary figures or params, or a
  constant written in the lab's own source (the "30" of "the last 30 s"); formatted by
  `labs.text.num` at 0, 1 or 2 places;
- claims: a comparison or state word ("held", "trapped", "recovered", "the estimate
  said", "calls a second to the dependency", "adds no queue") is matched by a pattern and
  checked against the figure it qualifies.

`problems(lab, result, sentences)` returns what is wrong, one line each, naming the
sentence; an empty list means every sentence holds.
"""

from __future__ import annotations

import itertools
import math
import re
import statistics
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from labs.text import num

ROOT = Path(__file__).resolve().parents[2]
# A number as `num` writes it, not glued to a word ("p99", "2^attempt", "v2", "M/M/8").
NUMBER = re.compile(r"(?<![\w^/.\d,])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w^\d]|/\d|,\d)")
# Numbers any sentence may hold without a figure behind them: small counts and HTTP codes.
ALWAYS = {str(n) for n in range(11)} | {"429", "503"}
SCALES = (1, 100, 1000, 0.001)
PAIR_SCALES = (1, 100, 0.01)


def _numeric(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _numbers(value: Any, out: list[float], depth: int = 0, limit: int = 20_000) -> None:
    """Every number inside `value`, and of each list of numbers its total, mean and median."""
    if len(out) > limit or depth > 6 or isinstance(value, bool) or value is None:
        return
    if _numeric(value):
        out.append(float(value))
    elif isinstance(value, str):  # a table's cell written for the page: "99.9975%"
        out += [float(n.replace(",", "")) for n in NUMBER.findall(value)]
    elif isinstance(value, Mapping):
        for v in value.values():
            _numbers(v, out, depth + 1, limit)
    elif isinstance(value, list | tuple):
        for v in value:
            _numbers(v, out, depth + 1, limit)
        numbers = [float(v) for v in value if _numeric(v)]
        if len(numbers) > 1:
            out += [sum(numbers), sum(numbers) / len(numbers), statistics.median(numbers)]


def _shown(value: float) -> set[str]:
    """How a sentence may write `value`: `num` rounded to 0, 1 or 2 places, a fixed number
    of places (`f"{v:.1f}"`, as percentages are), or a whole number without separators."""
    out = {num(round(value, r)) for r in (0, 1, 2)}
    out.add(num(math.floor(value)) if value >= 0 else num(math.ceil(value)))
    out |= {f"{value:,.{r}f}" for r in range(1, 13)}
    out.add(str(round(value)))
    return out | {s.lstrip("-") for s in out}


@cache
def source_constants(slug: str) -> frozenset[str]:
    """Numbers written in the lab's own folder and the shared sentence helpers."""
    folders = list((ROOT / "labs" / "course").glob(f"*/{slug.replace('-', '_')}"))
    files = [f for folder in folders for f in folder.glob("*.py")]
    files += list((ROOT / "labs" / "words").glob("*.py"))
    files += [ROOT / "labs" / "catalogue" / n for n in ("spread.py", "prediction.py", "lab.py")]
    found: set[str] = set()
    for f in files:
        for token in re.findall(r"\d[\d_,]*(?:\.\d+)?", f.read_text()):
            token = token.replace("_", "").replace(",", "")
            try:
                found |= _shown(float(token))
            except ValueError:
                continue
    return frozenset(found)


def allowed_numbers(slug: str, result: Mapping[str, Any], extra: Iterable[float] = ()) -> set[str]:
    """Every way the result's figures may be written in a sentence about it; `extra` are
    figures of the sentence itself (a student's guess, the outcome it is held against)."""
    summary, params = result.get("summary") or {}, result.get("params") or {}
    tables = result.get("tables") or {}
    effective = tables.get("effective_params") or {}
    scalars: list[float] = []
    _numbers([summary, params, effective, result.get("seed")], scalars)
    values: list[float] = list(scalars)
    _numbers(tables, values)
    for series in (result.get("series") or {}).values():
        numbers = [v for v in series if _numeric(v)] if isinstance(series, list) else []
        if numbers:
            values += [max(numbers), min(numbers), sum(numbers), len(series)]
            values.append(sum(numbers) / len(numbers))
            if len(series) <= 60:  # a short series is read out value by value
                values += numbers
    out = set(ALWAYS) | set(source_constants(slug))
    for v in values:
        for k in SCALES:
            out |= _shown(v * k)
        out |= _shown(v / 60) | _shown(v % 60)  # minutes as "27 h 47 min"
    for v in scalars:  # "seconds 0 to 68": the last second of a span that ends at 69
        out |= _shown(v - 1) | _shown(v + 1)
    given = [float(v) for v in extra]
    for v in given:
        out |= _shown(v)
    distinct = sorted(set(scalars))[:400]
    pairs = itertools.chain(
        itertools.combinations(distinct, 2), itertools.product(given, distinct + given)
    )
    for a, b in pairs:
        for v in (a + b, a - b, a * b, a / b if b else 0.0, b / a if a else 0.0):
            for k in PAIR_SCALES:
                out |= _shown(v * k)
    return out


NAMES = re.compile(r"\b[a-z]+-\d+\b")  # an id such as job-000396 is a name, not a figure


def numbers_in(sentence: str) -> list[str]:
    return NUMBER.findall(NAMES.sub("", sentence))


# -- claims ------------------------------------------------------------------------------
Claim = Callable[[re.Match[str], Mapping[str, Any]], str | None]


def _float(text: str) -> float:
    return float(text.replace(",", ""))


def _backlog_at(m: re.Match[str], result: Mapping[str, Any]) -> str | None:
    """ "At T s the queue held N requests": N is the backlog around second T."""
    backlog = (result.get("series") or {}).get("backlog")
    if not backlog:
        return None
    t, n = _float(m["t"]), _float(m["n"])
    i = min(len(backlog) - 1, max(0, int(t)))
    near = backlog[max(0, i - 1) : i + 2]
    if n in near:
        return None
    return f"says the queue held {m['n']} at {m['t']} s; the run's backlog there was {near}"


def _estimate_existed(m: re.Match[str], result: Mapping[str, Any]) -> str | None:
    """ "the estimate said …" needs an estimate: the controls went on during the run."""
    reasons = (result.get("tables") or {}).get("drain_reasons") or []
    if any(r.get("why") == "no-estimate" for r in reasons):
        return "cites a drain estimate, but the controls never went on: there was none"
    return None


def _stayed_trapped(m: re.Match[str], result: Mapping[str, Any]) -> str | None:
    """ "stayed trapped" needs time after the trigger to see it, and no recovery."""
    s = result.get("summary") or {}
    p = (result.get("tables") or {}).get("effective_params") or result.get("params") or {}
    if s.get("recovered"):
        return "says the service stayed trapped, but it recovered"
    if "trigger_end_s" in p and "horizon_s" in p and p["trigger_end_s"] >= p["horizon_s"]:
        return "calls the service trapped, but the trigger lasted to the end of the run"
    return None


def _dependency_rate(m: re.Match[str], result: Mapping[str, Any]) -> str | None:
    """Little's law's arrival rate counts every call that reached the dependency, retries
    included: the rate said is at least the calls the run counted in the stall."""
    s, p = result.get("summary") or {}, result.get("params") or {}
    stall = p.get("down_until_s", 0) - p.get("down_from_s", 0)
    if not stall or "dependency_calls_stall" not in s:
        return None
    reached = s["dependency_calls_stall"] / stall
    said = _float(m["rate"])
    if said + 0.5 < reached:
        return (
            f"says {m['rate']} calls a second reached the dependency; the run counted "
            f"{reached:.1f} a second in the stall (retries are arrivals too)"
        )
    return None


def _no_queue_on_average(m: re.Match[str], result: Mapping[str, Any]) -> str | None:
    """ "a spike adds no queue on average": hold it against the engine over the same seeds."""
    from labs.course.assignment_05.phase_map.run import noisy_cells
    from labs.sim.capstone import phase_map

    counts = (result.get("tables") or {}).get("seed_counts") or {}
    cells = [c for c in noisy_cells(result) if 98 <= (c["load"] or 0) <= 102]
    if not cells or not counts:
        return None
    cell, p = cells[0], result["params"]
    grid = {
        "spike_min_rps": cell["spike"], "spike_max_rps": cell["spike"], "spike_steps": 1,
        "duration_min_s": cell["duration"], "duration_max_s": cell["duration"],
        "duration_steps": 1, "base_min_rps": cell["base"], "base_max_rps": cell["base"],
        "base_steps": 1, "map_horizon_s": p["map_horizon_s"],
        "map_trigger_start_s": p["map_trigger_start_s"],
    }  # fmt: skip
    shared = {k: v for k, v in p.items() if k not in grid and not k.startswith(("spike_",
              "duration_", "base_", "map_")) and k != "ten_seeds"}  # fmt: skip
    quiet = {**grid, "spike_min_rps": cell["base"], "spike_max_rps": cell["base"]}
    added = []
    for seed in counts["seeds"]:
        peak = phase_map(seed=seed, **grid, **shared)["series"]["peak_backlog"][0]
        calm = phase_map(seed=seed, **quiet, **shared)["series"]["peak_backlog"][0]
        added.append(peak - calm)
    mean = sum(added) / len(added)
    if mean > 1:
        return f"says the spike adds no queue on average; over its seeds it added {mean:.1f}"
    return None


CLAIMS: tuple[tuple[re.Pattern[str], Claim], ...] = (
    (re.compile(r"At (?P<t>[\d,.]+) s the queue held (?P<n>[\d,.]+) requests"), _backlog_at),
    (re.compile(r"[Tt]he estimate said"), _estimate_existed),
    (re.compile(r"stayed trapped"), _stayed_trapped),
    (
        re.compile(
            r"(?P<rate>[\d,.]+) (?:new )?calls a second (?:reached|to|were for) the dependency"
        ),
        _dependency_rate,
    ),
    (re.compile(r"adds no queue on average"), _no_queue_on_average),
)


def problems(
    slug: str, result: Mapping[str, Any], sentences: Iterable[str], extra: Iterable[float] = ()
) -> list[str]:
    """What is wrong with `sentences` about `result`, one line each; [] when all hold."""
    allowed = allowed_numbers(slug, result, extra)
    out = []
    for sentence in sentences:
        if not sentence:
            continue
        stray = [
            n for n in numbers_in(sentence) if n not in allowed and n.lstrip("-") not in allowed
        ]
        if stray:
            out.append(f"{sentence!r}: no figure of the run is {', '.join(stray)}")
        for pattern, claim in CLAIMS:
            for m in pattern.finditer(sentence):
                wrong = claim(m, result)
                if wrong:
                    out.append(f"{sentence!r}: {wrong}")
    return out
