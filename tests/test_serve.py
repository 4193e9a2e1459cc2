"""`./dev run` end to end: nginx and gunicorn with DEBUG off serve a page and a static file."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.worker_helpers import forget_queue

ROOT = Path(__file__).resolve().parent.parent
# One process runs this module (pytest-xdist): its module-scoped set-up is made once.
pytestmark = [pytest.mark.xdist_group("serve"), pytest.mark.e2e, pytest.mark.redis]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def fetch(url: str, **headers: str):
    """(status, headers, body) for any answer, 4xx and 5xx included."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def wait_for(url: str, process: subprocess.Popen, give_up_s: float = 300) -> None:
    deadline = time.monotonic() + give_up_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"./dev run exited with {process.returncode}")
        try:
            if fetch(url)[0] == 200:  # not the proxy's 502 while gunicorn starts
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{url} never answered")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One production server for the module's tests: starting it takes a while."""
    tmp_path = tmp_path_factory.mktemp("serve")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
    env |= {
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "VAR_DIR": str(tmp_path),
        "WEB_WORKERS": "1",
        "CELERY_WORKERS": "1",
        "WORKER_CONCURRENCY": "1",
        # Queues of its own, quick and heavy: its workers take no other checkout's runs.
        "LAB_QUEUE": f"serve-test-{uuid.uuid4().hex[:8]}",
        "LAB_HEAVY_QUEUE": f"serve-test-heavy-{uuid.uuid4().hex[:8]}",
    }
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        ["./dev", "run", "--no-demo"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{base}/healthz", process)
        yield base, tmp_path
    finally:
        stop(process)
        log.close()
        forget_queue(env["LAB_QUEUE"])
        forget_queue(env["LAB_HEAVY_QUEUE"])


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the group it leads (the supervisor and what it started), then SIGKILL."""
    for sig, wait_s in ((signal.SIGTERM, 60), (signal.SIGKILL, 30)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait_s)
            return
        except subprocess.TimeoutExpired:
            continue


def test_it_serves_pages_static_files_and_its_own_404(served):
    base, var_dir = served
    status, headers, body = fetch(f"{base}/")
    assert status == 200
    assert headers["Server"] == "nginx"  # the proxy in front answers (tests/test_slow_clients.py)
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    page = body.decode()

    css = re.search(r'href="(/static/labs/site\.[0-9a-f]{12}\.css)"', page)
    assert css, "the page links the hashed stylesheet collectstatic made"
    status, headers, body = fetch(base + css.group(1), **{"Accept-Encoding": "gzip"})
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert "max-age=315360000" in headers["Cache-Control"]

    status, _, body = fetch(f"{base}/no/such/page/")
    assert status == 404
    assert "Back to the course" in body.decode()

    key = var_dir / "secret_key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert len(key.read_text().strip()) >= 50


def test_its_logs_reach_the_terminal_and_the_worker_answers_the_deep_check(served):
    base, var_dir = served
    deadline = time.monotonic() + 120
    status = 0
    while time.monotonic() < deadline and status != 200:
        status, _, body = fetch(f"{base}/healthz/deep")
        time.sleep(1)
    assert status == 200, body.decode()
    log = (var_dir / "serve.log").read_text()
    assert "web |" in log and "quick-1 |" in log
    assert "GET /healthz" in log  # gunicorn's access log


def test_a_class_experiments_stream_is_answered_by_the_asgi_server_behind_nginx(served):
    base, var_dir = served
    # nginx sends /x/<code>/stream/ to uvicorn's socket: with no server there it answers 502.
    status, headers, _ = fetch(f"{base}/x/NOSUCH/stream/")
    assert status == 404
    assert headers["Server"] == "nginx"
    log = (var_dir / "serve.log").read_text()
    assert "stream |" in log and "Uvicorn running" in log


def test_nginx_lets_an_idle_connection_to_gunicorn_go_before_gunicorn_closes_it(served):
    """A request nginx sends on a kept connection just as gunicorn closes it (gunicorn's
    --keep-alive, WEB_KEEP_ALIVE s) fails with a 502, and nginx sends no POST again:
    bench/class_experiment.py saw phones' ticks fail so. nginx must let it go first."""
    _base, var_dir = served
    conf = (var_dir / "nginx" / "nginx.conf").read_text()
    upstream = conf[conf.index("upstream site {") :].split("}", 1)[0]
    idle = re.search(r"keepalive_timeout (\d+)ms;", upstream)
    assert idle is not None, upstream
    assert int(idle.group(1)) < int(os.environ.get("WEB_KEEP_ALIVE", "5")) * 1000


def test_a_class_of_streams_behind_one_address_is_not_held_to_the_pages_limit(served):
    """The pages' limit (requests of one address answered at once, PROXY_CONN_PER_ADDRESS)
    would refuse a class experiment: a live stream stays open for the whole experiment, and
    100 phones behind one school address hold 100 at once. The stream's location has a
    count of its own (PROXY_STREAMS_PER_ADDRESS); the pages keep theirs."""
    _base, var_dir = served
    conf = (var_dir / "nginx" / "nginx.conf").read_text()
    server = conf[conf.index("  server {") :]
    stream = server[server.index("location ~ ^/x/") :].split("}", 1)[0]
    pages = server[server.index("location / {") :].split("}", 1)[0]
    assert re.search(r"limit_conn streams_per_address 400;", stream), stream
    assert "per_address 100" not in stream
    assert re.search(r"limit_conn per_address 100;", pages), pages
    # Nothing at the server's level, which every location would inherit.
    between = server[: server.index("location ")]
    assert "limit_conn " not in between, between


@pytest.mark.nodb
def test_serve_keeps_no_control_socket_shared_with_other_sites():
    """The attack's D12: gunicorn's default control socket (~/.gunicorn/gunicorn.ctl) is one
    path for every site a user runs, and stopping one unlinks the other's. Read by
    gunicorn's own argument parser from the command `./dev run` starts (program "web")."""
    import shlex

    from gunicorn.config import Config

    dev = (ROOT / "dev").read_text()
    (command,) = re.findall(r'"\$VENV/bin/gunicorn" (school\.wsgi:application.*?)\) ;;', dev, re.S)
    # The shell's words as numbers, innermost first: only the control socket's flags matter.
    command = command.replace('"', "")
    inner = re.compile(r"\$\(\([^()]*\)\)|\$\([^()]*\)|\$\{[^{}]*\}|\$\w+")
    while inner.search(command):
        command = inner.sub("1", command)
    words = shlex.split(command)
    args = Config().parser().parse_args(words)
    assert args.control_socket_disable or args.control_socket


@pytest.mark.nodb
def test_while_gunicorn_is_down_nginx_answers_the_sites_own_page_in_marathi_and_english(
    tmp_path,
):
    """While gunicorn restarts nginx answered its own bare English "502 Bad Gateway" (the
    fault bench saw 13 of them in a 22 s restart). Now the proxy `./dev` writes answers a
    502 or 504 with the site's own page, Marathi and English, that loads nothing. Here
    gunicorn never starts: only the proxy runs (`./dev program proxy`)."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SECRET_KEY"}}
    env |= {"HOST": "127.0.0.1", "PORT": str(port), "VAR_DIR": str(tmp_path)}
    log = (tmp_path / "proxy.log").open("w")
    proxy = subprocess.Popen(
        ["./dev", "program", "proxy"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not listening(port):
            assert proxy.poll() is None, (tmp_path / "proxy.log").read_text()
            assert time.monotonic() < deadline, "the proxy never listened"
            time.sleep(0.2)
        for method in ("GET", "POST"):  # a page, and a press of Run
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/labs/drain/", method=method,
                data=b"jobs=1" if method == "POST" else None,
            )  # fmt: skip
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(request, timeout=30)
            error = answer.value
            page = error.read().decode()
            assert error.code == 502, page
            assert "साइट पुन्हा सुरू होत आहे" in page and "The site is restarting" in page
            assert "तुमचे रन आणि सबमिशन सुरक्षित आहेत" in page and "Bad Gateway" not in page
            assert error.headers["Content-Type"] == "text/html; charset=utf-8"
            assert "default-src 'none'" in error.headers["Content-Security-Policy"]
            # Nothing loaded: no stylesheet, script, font or image; its links reload itself.
            assert re.findall(r'\b(?:src|href|url)\s*[=(]\s*"?([^"\s)]*)', page) == ["", ""]
            assert "<link" not in page and "<script" not in page and "@import" not in page
        conf = (tmp_path / "nginx" / "nginx.conf").read_text()
        assert "error_page 502 504 /_unavailable.html;" in conf
    finally:
        stop(proxy)
        log.close()
