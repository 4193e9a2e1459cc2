"""A phone on a school link: Run → first chart at 400 kbps / 400 ms, and Lighthouse.

Starts the site as production serves it (DEBUG off, `collectstatic`: hashed names, Brotli
and gzip; gunicorn; one Celery worker on queues of its own; a throwaway SQLite database and
static root per site), logs a student in, and drives Debian's Chromium through Playwright
with Chromium's own network emulation (CDP `Network.emulateNetworkConditions`: 400 kbit/s
down and up, 400 ms added to every request) in a phone's viewport (390 × 844, touch).
Each measure starts from an empty browser cache (a new browser context):

- **from the unit page**: the student opens the capstone's unit page, reads it (the bench
  waits until the page has loaded and is idle, which is when plotly.js is fetched), opens
  the trapped-service lab page and presses Run as soon as it has loaded;
- **nothing cached**: the student opens the lab page directly and presses Run as soon as it
  has loaded.

For each: Run → the result on the page (the headline, and the chart's place), and Run →
the first chart drawn (`figure.chart.drawn`). Every press has a seed of its own, so no run
is answered from the result store. Goals (issue 22): ≤ 4 s from the unit page, ≤ 7 s with
nothing cached.

Then Lighthouse (npm, mobile, its default simulated throttling) on a finished trapped-service
run page, logged in; goal performance ≥ 90. Lighthouse is a measuring tool, installed outside
the repository:

    mkdir -p /tmp/lh && (cd /tmp/lh && npm init -y && npm install lighthouse)
    .venv/bin/python bench/school_link.py --lighthouse /tmp/lh --repeat 2

`--before PATH` measures a second tree side by side, interleaved (e.g. main with the
school-link commit reverted, `git worktree add`; link `.venv` into it and copy the compiled
capstone loop so its runs cost the same), served without Brotli as it was (with it:
`--before-brotli`, to compare a later change alone); `--no-brotli`
adds this tree without Brotli, to see Brotli's own share. `LIGHTHOUSE_REPORTS=/some/dir`
keeps Lighthouse's JSON reports.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB, UNIT = "trapped-service", "assignment-05"
KBPS, RTT_MS = 400, 400
PHONE = {"width": 390, "height": 844}
FROM_UNIT = "from the unit page"

SETUP = """
import json, django
django.setup()
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from labs.catalogue.entries import get_lab
from labs.interface.progress import SilentProgress
from labs.runs.execution import run_lab
from labs.runs.models import Run
user = get_user_model().objects.create(username="school-link")
client = Client()
client.force_login(user)
lab = get_lab("trapped-service")
params = lab.defaults()
run = Run.objects.create(owner=user, lab=lab.slug, params=params, seed=lab.default_seed,
    status="succeeded", result=run_lab(lab, params, lab.default_seed, SilentProgress()))
print(json.dumps({"cookie": client.cookies[settings.SESSION_COOKIE_NAME].value,
                  "name": settings.SESSION_COOKIE_NAME, "run": run.get_absolute_url()}))
"""

# Press Run with a seed of its own; resolve with the times the result and the chart appear.
PRESS_JS = """
([slug, seed]) => new Promise((resolve, reject) => {
  const form = document.getElementById("form-" + slug);
  const box = form && form.querySelector("[name=seed]");
  if (box) box.value = String(seed);
  const t0 = performance.now(), out = {};
  const look = () => {
    if (out.result === undefined && document.querySelector(".lab-panel figure.chart")) {
      out.result = performance.now() - t0;
    }
    if (document.querySelector(".lab-panel figure.chart.drawn")) {
      out.chart = performance.now() - t0;
      observer.disconnect();
      resolve(out);
    }
  };
  const observer = new MutationObserver(look);
  observer.observe(document.body, {subtree: true, childList: true, attributes: true,
                                   attributeFilter: ["class"]});
  setTimeout(() => reject(new Error("no chart after 60 s")), 60000);
  document.getElementById("run-button-" + slug).click();
})
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Site:
    """One tree served as production serves it, with its own worker, database and static."""

    label: str
    tree: Path
    brotli: bool
    port: int = field(default_factory=free_port)
    procs: list[subprocess.Popen] = field(default_factory=list)
    cookie: dict = field(default_factory=dict)
    run_url: str = ""

    def env(self, var: Path) -> dict[str, str]:
        tag = uuid.uuid4().hex[:6]
        env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY_FILE"}}
        env |= {
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "VAR_DIR": str(var),
            "DATABASE_URL": f"sqlite:///{var / 'db.sqlite3'}",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_COOKIES": "false",
            "LAB_QUEUE": f"bench-link-{tag}",
            "LAB_HEAVY_QUEUE": f"bench-link-{tag}",
            "DJANGO_SETTINGS_MODULE": "school.settings",
        }
        if not self.brotli:  # WhiteNoise then writes no .br files
            hide = var / "no-brotli"
            hide.mkdir()
            (hide / "brotli.py").write_text("raise ImportError('served without Brotli')\n")
            env["PYTHONPATH"] = str(hide)
        return env

    def start(self) -> None:
        var = Path(tempfile.mkdtemp(prefix="school-link-"))
        self.var = var
        env = self.env(var)
        py = sys.executable
        run = {"cwd": self.tree, "env": env, "check": True}
        subprocess.run([py, "manage.py", "migrate", "-v0"], **run)  # type: ignore[call-overload]
        subprocess.run([py, "manage.py", "collectstatic", "--noinput", "-v0"], **run)  # type: ignore[call-overload]
        made = subprocess.run(
            [py, "-c", SETUP], cwd=self.tree, env=env, check=True, capture_output=True, text=True
        )
        setup = json.loads(made.stdout.strip().splitlines()[-1])
        self.cookie = {"name": setup["name"], "value": setup["cookie"], "url": self.url}
        self.run_url = self.url + setup["run"]
        gunicorn = str(Path(py).parent / "gunicorn")
        queue = env["LAB_QUEUE"]
        for name, cmd in (
            ("web", [gunicorn, "school.wsgi", "-b", f"127.0.0.1:{self.port}", "-w", "2",
                     "--threads", "4"]),
            ("worker", [py, "-m", "celery", "-A", "school", "worker", "-Q", queue,
                        "--concurrency=1", "-n", f"{queue}@%h", "--loglevel=WARNING",
                        "--without-gossip", "--without-mingle"]),
        ):  # fmt: skip
            log = (var / f"{name}.log").open("w")
            self.procs.append(
                subprocess.Popen(
                    cmd, cwd=self.tree, env=env, stdout=log, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )  # fmt: skip
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/accounts/login/", timeout=2).read()
                return
            except OSError:
                time.sleep(0.3)
        raise SystemExit(f"{self.label}: the site did not start; see {var}")

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(self.var, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def phone_page(browser, site: Site):
    """A new context (empty cache), logged in, on an emulated school link."""
    context = browser.new_context(
        viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=True
    )
    context.add_cookies([site.cookie])
    page = context.new_page()
    page.set_default_timeout(120_000)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    rate = KBPS * 1000 / 8  # bytes per second
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": RTT_MS, "downloadThroughput": rate,
         "uploadThroughput": rate},
    )  # fmt: skip
    return context, page


def measure(browser, site: Site, from_unit: bool, seed: int) -> dict[str, float]:
    context, page = phone_page(browser, site)
    try:
        if from_unit:
            page.goto(f"{site.url}/units/{UNIT}/", wait_until="load")
            # The student reads: the page has loaded and the network is quiet.
            page.wait_for_load_state("networkidle")
        page.goto(f"{site.url}/labs/{LAB}/", wait_until="load")
        times = page.evaluate(PRESS_JS, [LAB, seed])
        return {k: v / 1000 for k, v in times.items()}
    finally:
        context.close()


def lighthouse(tool: Path, site: Site) -> dict[str, float]:
    out = site.var / "lighthouse.json"
    cookie = f"{site.cookie['name']}={site.cookie['value']}"
    for attempt in range(3):  # Lighthouse now and then loses its trace (NO_NAVSTART)
        done = subprocess.run(
            [str(tool / "node_modules" / ".bin" / "lighthouse"), site.run_url,
             "--only-categories=performance", "--quiet", "--output=json",
             f"--output-path={out}", "--chrome-flags=--headless=new --no-sandbox",
             f"--extra-headers={json.dumps({'Cookie': cookie})}"],
            env={**os.environ, "CHROME_PATH": os.environ.get("CHROMIUM", "/usr/bin/chromium")},
            check=attempt == 2, timeout=600,
        )  # fmt: skip
        if done.returncode == 0:
            break
    report = json.loads(out.read_text())
    if keep := os.environ.get("LIGHTHOUSE_REPORTS"):  # a folder to keep the reports in
        shutil.copy(out, Path(keep) / f"{site.label.replace(' ', '-')}-{uuid.uuid4().hex[:4]}.json")
    audits = report["audits"]
    return {
        "score": report["categories"]["performance"]["score"] * 100,
        "FCP": audits["first-contentful-paint"]["numericValue"] / 1000,
        "LCP": audits["largest-contentful-paint"]["numericValue"] / 1000,
        "TBT": audits["total-blocking-time"]["numericValue"] / 1000,
        "SI": audits["speed-index"]["numericValue"] / 1000,
        "CLS": audits["cumulative-layout-shift"]["numericValue"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--before", type=Path, help="a second tree to measure side by side")
    parser.add_argument("--no-brotli", action="store_true", help="also this tree without Brotli")
    parser.add_argument(
        "--before-brotli", action="store_true", help="serve the --before tree with Brotli too"
    )
    parser.add_argument("--lighthouse", type=Path, help="a folder with lighthouse npm-installed")
    args = parser.parse_args()

    sites = [Site("this tree", ROOT, brotli=True)]
    if args.no_brotli:
        sites.append(Site("this tree, no Brotli", ROOT, brotli=False))
    if args.before:
        sites.append(Site("before", args.before.resolve(), brotli=args.before_brotli))
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {platform.node()}: {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}; Chromium emulating {KBPS} kbit/s, "
        f"{RTT_MS} ms per request, {PHONE['width']}×{PHONE['height']} phone"
    )
    from playwright.sync_api import sync_playwright

    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    scores: dict[str, list[dict[str, float]]] = {}
    try:
        for site in sites:
            site.start()
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"),
                headless=True,
                args=["--no-sandbox"],
            )
            seed = 1000 + secrets.randbelow(10**6)
            for _ in range(args.repeat):  # interleaved: each site in turn, each time
                for site in sites:
                    for from_unit, name in ((True, FROM_UNIT), (False, "nothing cached")):
                        seed += 1
                        got = measure(browser, site, from_unit, seed)
                        results.setdefault((site.label, name), []).append(got)
                        print(f"  {site.label}, {name}: {got}", flush=True)
            browser.close()
        if args.lighthouse:
            for _ in range(args.repeat):
                for site in sites:
                    got = lighthouse(args.lighthouse, site)
                    scores.setdefault(site.label, []).append(got)
                    print(f"  {site.label}, Lighthouse: {got}", flush=True)
    finally:
        for site in sites:
            site.stop()

    def each(values: list[float], unit: str = " s") -> str:
        return " / ".join(f"{v:.1f}{unit}" for v in values)

    print(f"\nload average after: {os.getloadavg()[0]:.1f}")
    print("\n| site | start | Run → result shown | Run → first chart | goal |")
    print("| --- | --- | ---: | ---: | --- |")
    for (label, name), runs in results.items():
        goal = 4.0 if name.startswith("from") else 7.0
        worst = max(r["chart"] for r in runs)
        verdict = "met" if worst <= goal else "**not met**"
        print(
            f"| {label} | {name} | {each([r['result'] for r in runs])} "
            f"| {each([r['chart'] for r in runs])} | ≤ {goal:.0f} s: {verdict} |"
        )
    if scores:
        print("\n| site | Lighthouse performance | TBT | LCP | FCP | Speed Index | CLS |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for label, runs in scores.items():
            cols = [each([r[k] for r in runs]) for k in ("TBT", "LCP", "FCP", "SI")]
            score = each([r["score"] for r in runs], "")
            cls = statistics.mean(r["CLS"] for r in runs)
            print(f"| {label} | {score} | {' | '.join(cols)} | {cls:.3f} |")


if __name__ == "__main__":
    main()
