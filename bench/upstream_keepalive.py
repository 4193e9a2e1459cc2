"""POSTs through the proxy at gunicorn's keep-alive interval: how many get nginx's 502.

nginx keeps its connections to gunicorn open between requests (`keepalive 16` in the
upstream block) and gunicorn closes one that has been idle for its keep-alive
(`WEB_KEEP_ALIVE`, 5 s). A request nginx sends on a kept connection at the moment gunicorn
closes it meets a reset; nginx tries a GET again but not a POST, which gets a 502. The
fault bench met one during a draft flood (`bench/faults.py`). Here N clients each POST
after idle gaps spread around gunicorn's keep-alive, for `--seconds`, against `./dev run
--no-demo` on a Redis and a PostgreSQL of the bench's own; printed: posts, 502s. A short
`--keep-alive` makes the moments gunicorn closes a connection many more.

    .venv/bin/python bench/upstream_keepalive.py --clients 8 --seconds 180 --keep-alive 1
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fault_clients import Client, Record  # noqa: E402 - bench/, beside this file
from fault_services import OwnPostgres, OwnRedis  # noqa: E402
from machine import describe  # noqa: E402
from site_run import dev_run, free_port  # noqa: E402


def post_at_the_edge(client: Client, keep_alive_s: int, until: float) -> None:
    """A POST (a failed sign-in: cheap, but a POST to nginx) after an idle gap around the
    moment gunicorn closes the upstream connection it came on (it looks once a second)."""
    while time.monotonic() < until:
        client.request("post", "/accounts/login/", {"username": "x", "password": "y"})
        time.sleep(random.uniform(keep_alive_s - 0.2, keep_alive_s + 1.2))  # noqa: S311


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--keep-alive", type=int, default=5, help="WEB_KEEP_ALIVE (s)")
    args = parser.parse_args()
    print(f"# {describe()}")
    tmp = Path(tempfile.mkdtemp(prefix="keepalive-"))
    tmp.chmod(0o755)
    redis = OwnRedis(free_port(), tmp / "redis")
    postgres = OwnPostgres(free_port(), tmp / "postgres")
    record = Record()
    try:
        redis.start()
        postgres.init()
        postgres.start()
        postgres.create_database("keepalive")
        env = {"REDIS_URL": redis.url, "DATABASE_URL": postgres.url("keepalive"),
               "PROXY_CONN_PER_ADDRESS": "0", "WEB_KEEP_ALIVE": str(args.keep_alive)}  # fmt: skip
        with dev_run(tmp / "var", "--no-demo", **env) as (base, _process):
            until = time.monotonic() + args.seconds
            clients = [Client(base, f"c{i}", record) for i in range(max(1, args.clients))]
            threads = [
                threading.Thread(target=post_at_the_edge, args=(c, args.keep_alive, until))
                for c in clients
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            conf = (tmp / "var" / "nginx" / "nginx.conf").read_text()
    finally:
        redis.stop()
        postgres.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    statuses = Counter(a.status for a in record.answers)
    upstream = conf[conf.index("upstream site") : conf.index("}", conf.index("upstream site"))]
    print(f"nginx: {' '.join(upstream.split())}; gunicorn --keep-alive {args.keep_alive}")
    print(
        f"{statuses.total()} POSTs from {args.clients} clients over {args.seconds:.0f} s: "
        f"{statuses[502]} × 502, {statuses[0]} unanswered; all answers {dict(statuses)}"
    )


if __name__ == "__main__":
    main()
