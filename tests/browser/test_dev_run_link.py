"""The README's first command on a school link (issue 38, item 1): a phone at 400 kbit/s and
400 ms opens a lab page served by `./dev run` (nginx in front of gunicorn, DEBUG off) and
gets plotly.js compressed with Brotli under its hashed, year-cached (`immutable`) name,
less than half its bytes on disk over the link. Bytes and headers only: the times are
`bench/school_link.py`'s."""

from __future__ import annotations

import os
import subprocess
import uuid

import pytest

from tests.test_serve import ROOT, free_port, stop, wait_for
from tests.worker_helpers import forget_queue

PLOTLY = "/static/vendor/plotly-lab-"
UNCOMPRESSED = 900_000  # plotly-lab's bytes on disk are about 956 KB


@pytest.fixture(scope="module")
def dev_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("devrun")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
    env |= {
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "VAR_DIR": str(tmp_path),
        "WEB_WORKERS": "1",
        "WORKER_CONCURRENCY": "1",
        "HEAVY_CONCURRENCY": "1",
        "LAB_QUEUE": f"devrun-test-{uuid.uuid4().hex[:8]}",
        "LAB_HEAVY_QUEUE": f"devrun-test-heavy-{uuid.uuid4().hex[:8]}",
    }
    log = (tmp_path / "run.log").open("w")
    process = subprocess.Popen(
        ["./dev", "run", "--no-demo"], cwd=ROOT, env=env, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{base}/healthz", process)
        yield base
    finally:
        stop(process)
        log.close()
        forget_queue(env["LAB_QUEUE"])
        forget_queue(env["LAB_HEAVY_QUEUE"])


def test_a_phone_on_a_school_link_gets_plotly_in_brotli_once(dev_run, chromium):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 400, "downloadThroughput": 400_000 / 8,
         "uploadThroughput": 400_000 / 8},
    )  # fmt: skip
    seen: dict[str, dict] = {}
    sizes: dict[str, int] = {}
    cdp.on(
        "Network.responseReceived",
        lambda e: seen.__setitem__(e["requestId"], e["response"] | {"url": e["response"]["url"]}),
    )
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], int(e["encodedDataLength"])),
    )
    page.goto(f"{dev_run}/labs/drain/")
    page.wait_for_function("() => !!window.Plotly", timeout=120_000)
    first = [(rid, r) for rid, r in seen.items() if PLOTLY in r["url"]]
    assert len(first) == 1, [r["url"] for r in seen.values()]
    rid, response = first[0]
    headers = {k.lower(): v for k, v in response["headers"].items()}
    assert headers["content-encoding"] == "br"
    assert "immutable" in headers["cache-control"]
    page.wait_for_function("() => true")  # let loadingFinished arrive
    assert 0 < sizes.get(rid, 0) < UNCOMPRESSED / 2, sizes.get(rid)

    context.close()
