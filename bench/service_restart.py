"""How long systemd takes to bring the site back after a killed process (`./dev install-service`).

Run on the machine where the units run (as root): for each unit, SIGKILL its main process,
then time until systemd has started a new one and the site answers again (`/healthz` for
the web and the proxy; `/healthz/deep`, which needs a worker's ping, for a worker).

    .venv/bin/python bench/service_restart.py [--times 3] [--url http://127.0.0.1:8000]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import describe  # noqa: E402 - bench/machine.py, beside this file

NAME = os.environ.get("SERVICE_NAME", "queues-lab")
GIVE_UP_S = 120.0


def main_pid(unit: str) -> int:
    out = subprocess.run(
        ["systemctl", "show", "-p", "MainPID", "--value", unit],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return int(out.stdout.strip() or 0)


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def kill_and_time(unit: str, url: str) -> float:
    before = main_pid(unit)
    assert before, f"{unit} is not running"
    while status(url) != 200:  # start from a site that answers
        time.sleep(0.2)
    start = time.monotonic()
    os.kill(before, signal.SIGKILL)
    while time.monotonic() - start < GIVE_UP_S:
        now = main_pid(unit)
        if now and now != before and status(url) == 200:
            return time.monotonic() - start
        time.sleep(0.05)
    raise SystemExit(f"{unit} was not back within {GIVE_UP_S:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=3)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    args = parser.parse_args()
    print(f"# {describe()}")
    print(f"{'unit killed (SIGKILL)':<28} {'back in (s), each try':<32} median")
    checks = [
        (f"{NAME}-web.service", "/healthz"),
        (f"{NAME}-proxy.service", "/healthz"),
        (f"{NAME}-quick@1.service", "/healthz/deep"),
        (f"{NAME}-heavy.service", "/healthz/deep"),
    ]
    for unit, path in checks:
        times = [kill_and_time(unit, args.url + path) for _ in range(max(1, args.times))]
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{unit:<28} {shown:<32} {statistics.median(times):.2f}")


if __name__ == "__main__":
    main()
