"""What one password check costs, and how long a whole class waits to log in at once.

Run by hand from the project root (it keeps every core busy for a few minutes):

    .venv/bin/python bench/bench_password_hash.py
    .venv/bin/python bench/bench_password_hash.py --class-sizes 30 --repeat 5   # quicker

For Django's default PBKDF2, Django's default Argon2 settings and the site's tuned Argon2
(accounts/hashers.py) it prints the median and best time of one check and its CPU time
(which a busy machine inflates less than the wall time), then the time for
a class of N students who all press "Log in" together to be checked on as many processes
as the machine has cores (the last student's wait), like gunicorn's workers would.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "school.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth.hashers import (  # noqa: E402
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
)

from accounts.hashers import ClassroomArgon2PasswordHasher  # noqa: E402

HASHERS = {
    "Django default PBKDF2": PBKDF2PasswordHasher,
    "Django default Argon2 (100 MiB, p=8)": Argon2PasswordHasher,
    "site Argon2id (19 MiB, t=2, p=1)": ClassroomArgon2PasswordHasher,
}
PASSWORD = "monsoon lanterns 42"


def one_check(args: tuple[str, str]) -> float:
    name, encoded = args
    hasher = HASHERS[name]()
    started = time.perf_counter()
    assert hasher.verify(PASSWORD, encoded)
    return time.perf_counter() - started


def one_check_cpu(name: str, encoded: str) -> float:
    """CPU seconds of one check: what it costs the server, however busy the machine is."""
    hasher = HASHERS[name]()
    started = time.process_time()
    assert hasher.verify(PASSWORD, encoded)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--class-sizes", type=int, nargs="+", default=[30, 100])
    options = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"Python {platform.python_version()}, {cores} cores, Django {django.get_version()}")
    for name, hasher_class in HASHERS.items():
        hasher = hasher_class()
        encoded = hasher.encode(PASSWORD, hasher.salt())
        times = [one_check((name, encoded)) for _ in range(options.repeat)]
        cpu = [one_check_cpu(name, encoded) for _ in range(options.repeat)]
        line = (
            f"{name:38} one check: median {statistics.median(times) * 1000:7.1f} ms, "
            f"best {min(times) * 1000:7.1f} ms, CPU median {statistics.median(cpu) * 1000:7.1f} ms"
        )
        with ProcessPoolExecutor(max_workers=cores) as pool:
            list(pool.map(one_check, [(name, encoded)] * cores))  # start the processes first
            for size in options.class_sizes:
                started = time.perf_counter()
                list(pool.map(one_check, [(name, encoded)] * size))
                line += f"; class of {size}: last waits {time.perf_counter() - started:5.2f} s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
