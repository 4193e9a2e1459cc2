"""A class on a school's small machine: the site as `./dev run` serves it, under a memory
and CPU cap (a cgroup), N students logging in at once and then each pressing Run.

    .venv/bin/python bench/small_machine.py --students 35 --memory 2G --cpus 1
    .venv/bin/python bench/small_machine.py --students 60 --memory 4G --cpus 2

The cap is a cgroup made directly (no systemd needed): cgroup v2 (`memory.max`, `cpu.max`)
where /sys/fs/cgroup offers both controllers, else v1's memory and cpu hierarchies
(`memory.limit_in_bytes`, `cpu.cfs_quota_us`). `./dev run` is started inside it, so every
process it starts (nginx, gunicorn, the workers, the sweeper) is in it too; Redis only if
it is not running yet (a Redis already up, like the database's files, is outside the cap).
Needs root. The students are accounts it makes in a database of its own; the proxy's
per-address limit is off (they all come from 127.0.0.1). Prints one table: logins p50/p95/
max, 5xx, labs answered and their p95 Run -> chart, and the cap's peak memory. The logins
start once the capped processes are idle (see `wait_settled`), or at once with `--cold`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from burst import PASSWORD, Student, lab_form, make_students, press_run  # noqa: E402
from machine import describe  # noqa: E402
from site_run import ROOT, free_port, stop_group, wait_until_up  # noqa: E402

CGROUP = Path("/sys/fs/cgroup")


def parse_bytes(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].isalpha() else int(text)


@contextlib.contextmanager
def cgroup(memory: int, cpus: float) -> Iterator[tuple[list[Path], Path]]:
    """(cgroup.procs files to join, the file with the peak memory) of a new capped cgroup."""
    name = f"lab-small-{os.getpid()}"
    period = 100_000
    controllers = CGROUP / "cgroup.controllers"
    made: list[Path] = []
    try:
        if controllers.exists() and {"memory", "cpu"} <= set(controllers.read_text().split()):
            group = CGROUP / name
            group.mkdir()
            made.append(group)
            (group / "memory.max").write_text(str(memory))
            (group / "cpu.max").write_text(f"{int(cpus * period)} {period}")
            yield [group / "cgroup.procs"], group / "memory.peak"
        else:
            memory_group, cpu_group = CGROUP / "memory" / name, CGROUP / "cpu" / name
            for group in (memory_group, cpu_group):
                group.mkdir()
                made.append(group)
            (memory_group / "memory.limit_in_bytes").write_text(str(memory))
            (cpu_group / "cpu.cfs_period_us").write_text(str(period))
            (cpu_group / "cpu.cfs_quota_us").write_text(str(int(cpus * period)))
            yield (
                [memory_group / "cgroup.procs", cpu_group / "cgroup.procs"],
                memory_group / "memory.max_usage_in_bytes",
            )
    except PermissionError as error:
        raise SystemExit(f"cannot make a cgroup under {CGROUP} ({error}): run as root") from error
    finally:
        for group in reversed(made):
            for _ in range(50):  # its processes are gone a moment after the site stops
                try:
                    group.rmdir()
                    break
                except OSError:
                    time.sleep(0.2)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")


def cgroup_cpu_s(procs_file: Path) -> float:
    """CPU seconds (user + system) used so far by the processes now in the cgroup."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in procs_file.read_text().split():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended meanwhile
            continue
        total += int(fields[11]) + int(fields[12])
    return total / tick


def wait_settled(procs_file: Path, *, share: float = 0.05, window_s: float = 2.0) -> float:
    """Seconds until the site under the cap is idle (under `share` of a CPU over `window_s`).

    `/healthz` answers as soon as one web process is up, while the others, both Celery
    workers and the sweeper are still importing Django: on one capped CPU that start-up
    takes seconds of CPU, and a class logging in then waits behind it. A class logs in to a
    server that was started before the lesson, so the logins are measured once it is idle
    (`--cold` measures them at once, as right after a reboot).
    """
    start = time.monotonic()
    used = cgroup_cpu_s(procs_file)
    while time.monotonic() - start < 120:
        time.sleep(window_s)
        now = cgroup_cpu_s(procs_file)
        if now - used < share * window_s:
            break
        used = now
    return time.monotonic() - start


def log_in(student: Student, barrier: threading.Barrier) -> tuple[float, int]:
    barrier.wait()
    start = time.perf_counter()
    student.request("/accounts/login/")
    status, _, _ = student.request(
        "/accounts/login/", {"username": student.username, "password": PASSWORD}
    )
    return time.perf_counter() - start, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=35)
    parser.add_argument("--memory", default="2G", help="memory cap, e.g. 2G")
    parser.add_argument("--cpus", type=float, default=1.0, help="CPU cap in cores, e.g. 1")
    parser.add_argument("--lab", default="trapped-service", help="the lab each student runs")
    parser.add_argument(
        "--cold", action="store_true", help="log in as soon as /healthz answers (no settling)"
    )
    args = parser.parse_args()
    count = max(1, min(args.students, 200))
    memory = parse_bytes(args.memory)
    print(f"# {describe()}; cap {args.memory} / {args.cpus:g} CPU; {count} students")
    with (
        tempfile.TemporaryDirectory(prefix="small-machine-") as tmp,
        cgroup(memory, args.cpus) as (procs, peak_file),
    ):
        var_dir = Path(tmp)
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
        env |= {
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "VAR_DIR": str(var_dir),
            "PROXY_CONN_PER_ADDRESS": "0",
            "LAB_QUEUE": f"small-{uuid.uuid4().hex[:8]}",
            "LAB_HEAVY_QUEUE": f"small-heavy-{uuid.uuid4().hex[:8]}",
        }
        join = "; ".join(f"echo $$ > {path}" for path in procs)
        log = (var_dir / "run.log").open("w")
        process = subprocess.Popen(
            ["sh", "-c", f"{join}; exec ./dev run --no-demo"], cwd=ROOT, env=env,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(f"{base}/healthz", process)
            os.environ.update(
                VAR_DIR=str(var_dir),
                DEBUG="false",
                SECRET_KEY_FILE=str(var_dir / "secret_key"),
                DJANGO_SETTINGS_MODULE="school.settings",
            )
            sys.path.insert(0, str(ROOT))
            import django

            django.setup()
            students = [Student(base, name) for name in make_students(count)]
            settled_s = 0.0 if args.cold else wait_settled(procs[-1])
            barrier = threading.Barrier(count)
            with ThreadPoolExecutor(count) as pool:
                logins = list(pool.map(lambda s: log_in(s, barrier), students))
            barrier = threading.Barrier(count)
            form = lab_form(args.lab, None)
            with ThreadPoolExecutor(count) as pool:
                runs = list(pool.map(lambda s: press_run(s, args.lab, form, barrier), students))
            peak = int(peak_file.read_text()) if peak_file.exists() else 0
        finally:
            stop_group(process)
            log.close()
    seconds = [s for s, _ in logins]
    server_errors = sum(status >= 500 for _, status in logins)
    failed_logins = sum(status != 302 for _, status in logins)
    answered = [t for t in runs if not t.error]
    run_errors = [t.error for t in runs if t.error]
    server_errors += sum("HTTP 5" in e for e in run_errors)
    when = "at once after /healthz" if args.cold else f"after settling {settled_s:.1f} s"
    print(f"# logins {when}")
    print(
        f"{'students':>8} {'login p50':>9} {'p95':>6} {'max':>6} {'not in':>6} {'5xx':>4}"
        f" {'labs answered':>13} {'run p95':>7} {'peak MB':>7}"
    )
    print(
        f"{count:>8} {statistics.median(seconds):>9.2f} {p95(seconds):>6.2f} {max(seconds):>6.2f}"
        f" {failed_logins:>6} {server_errors:>4} {len(answered):>6}/{count:<6}"
        f" {p95([t.total_s for t in answered]):>7.2f} {peak / 2**20:>7.0f}"
    )
    for error in sorted(set(run_errors))[:5]:
        print(f"# a lab not answered: {error}")


if __name__ == "__main__":
    main()
