"""How long an operator's command takes to act on the trapped service, while it is trapped.

Run by hand from the project root:

    .venv/bin/python bench/bench_trapped_control.py            # 3 runs, about 2.5 minutes
    .venv/bin/python bench/bench_trapped_control.py --runs 1   # one run, about 50 s

Each run plays `trapped_live` with the live defaults (time scale 0.25) but a shorter run:
the spike from 20 to 50 model seconds, 200 in all. From model second 70, when the queue
is full of expired work, a thread writes commands on the run's control channel the way
the operator panel does (`send_command`): 40 times the reserve for fresh requests on, and
0.2 s later off again with a new reopen ramp length (none of which rescues the service),
then "drop expired" on, which starts the drain. For every command it reports:

- applied: Redis time when the experiment swapped in the new controls - Redis time of
  the command's stream entry (one clock for both, so no skew between processes);
- effect: Redis time of the first worker step under the new controls - the same entry
  time. A busy worker sees new controls when it finishes its request, so this is the
  end-to-end figure; for "drop expired", also the first expired request thrown away.

The goal is p95 < 250 ms for both while the service is trapped.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from labs.experiments.context import ExperimentContext  # noqa: E402
from labs.experiments.namespace import Namespace, connect  # noqa: E402
from labs.experiments.trapped import parse_command, send_command, trapped_live  # noqa: E402

RUN = {"horizon_s": 200, "trigger_start_s": 20, "trigger_end_s": 50, "recover_at_s": 200}
START_AT_S = 70  # model seconds: trapped by then
PAIRS = 40


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def one_run(seed: int) -> tuple[list[float], list[float], dict]:
    ns = Namespace(ttl_s=300)
    samples: list[dict] = []
    out: dict = {}

    def play() -> None:
        context = ExperimentContext(namespace=ns, on_sample=samples.append)
        out["result"] = trapped_live(seed, context=context, **RUN)

    runner = threading.Thread(target=play)
    runner.start()
    r = connect(name="bench-trapped")
    while not samples or samples[-1]["second"] < START_AT_S:
        time.sleep(0.05)
    trapped_at = samples[-1]
    for i in range(PAIRS):
        send_command(r, ns, parse_command("reserve_share", True, 0.25))
        time.sleep(0.2)
        send_command(r, ns, parse_command("reserve_share", False))
        send_command(r, ns, parse_command("reopen_ramp", True, 10 + i))
        time.sleep(0.2)
    # Last, the command that rescues it: when was the first expired request thrown away?
    send_command(r, ns, parse_command("drop_expired", True))
    runner.join()
    r.close()
    result = out["result"]
    timeline = result["tables"]["timeline"]
    applied = [e["latency_ms"] for e in timeline if e["latency_ms"] is not None]
    effect = [e["effect_ms"] for e in timeline if e["effect_ms"] is not None]
    drop = [e["first_discard_ms"] for e in timeline if e["first_discard_ms"] is not None]
    context = {
        "trapped_backlog": trapped_at["backlog"],
        "trapped_oldest_age_s": trapped_at["oldest_age_s"],
        "final_backlog": result["summary"]["final_backlog"],
        "recovered": result["summary"]["recovered"],
        "commands": len(timeline),
        "keys_left": result["summary"]["keys_left"],
        "drop_expired_first_discard_ms": drop,
    }
    return applied, effect, context


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, load average {os.getloadavg()}")  # fmt: skip
    all_applied: list[float] = []
    all_effect: list[float] = []
    for seed in range(1, args.runs + 1):
        applied, effect, context = one_run(seed)
        all_applied += applied
        all_effect += effect
        print(f"run {seed}: {context}")
        for name, values in (("applied", applied), ("effect", effect)):
            print(
                f"  {name}: n={len(values)} p50={statistics.median(values):.0f} ms "
                f"p95={percentile(values, 95):.0f} ms max={max(values):.0f} ms"
            )
    print(f"load average after: {os.getloadavg()}")
    for name, values in (("applied", all_applied), ("effect", all_effect)):
        print(
            f"ALL {name}: n={len(values)} p50={statistics.median(values):.0f} ms "
            f"p95={percentile(values, 95):.0f} ms p99={percentile(values, 99):.0f} ms "
            f"max={max(values):.0f} ms"
        )


if __name__ == "__main__":
    main()
