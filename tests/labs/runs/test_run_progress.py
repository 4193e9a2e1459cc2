"""Live samples: a running experiment's readings reach its row, bounded, and its page shows them."""

from __future__ import annotations

import threading
import time

import pytest
from django.urls import reverse

from labs.catalogue.entries import get_lab
from labs.interface.progress import SilentProgress
from labs.runs.execution import run_lab
from labs.runs.models import Run
from labs.runs.retained_queue import clean_run_keys
from labs.runs.run_progress import RunProgress
from tests.base import make_user

pytestmark = pytest.mark.redis
FANOUT = {"jobs": 40, "workers": 2, "rate_per_worker": 20.0, "crashes": 1}


@pytest.mark.django_db(transaction=True)
def test_it_saves_a_growing_bounded_history_of_samples_while_the_experiment_runs(client):
    lab = get_lab("fanout-live")
    alice = make_user("alice")
    run = Run.objects.create(
        owner=alice, lab=lab.slug, params=lab.defaults() | FANOUT, seed=1, status="running"
    )
    client.force_login(alice)
    seen: list[tuple[int, float]] = []  # (samples on the row, newest t_s) as the page saw them
    pages: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            progress = Run.objects.get(pk=run.pk).progress or {}
            if samples := progress.get("samples"):
                seen.append((len(samples), samples[-1]["t_s"]))
                if len(pages) < 1:
                    pages.append(client.get(run.get_absolute_url(), HTTP_HX_REQUEST="true"))
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with RunProgress(run, limit_s=60, history=8) as progress:
            progress.flush_every_s = 0.2
            result = run_lab(lab, run.params, run.seed, progress)
    finally:
        stop.set()
        watcher.join()
        clean_run_keys(run.pk)
    # Written while it ran, newer each time, never more than the history.
    newest = [t for _, t in seen]
    assert len(set(newest)) >= 3 and newest == sorted(newest)
    assert max(n for n, _ in seen) == 8
    final = Run.objects.get(pk=run.pk).progress["samples"]
    assert len(final) == 8
    assert final[-1]["done"] == result["summary"]["done"] == 40
    assert set(final[-1]) >= {
        "t_s", "visible", "in_flight", "dlq_depth", "oldest_age_s", "done",
        "duplicates_delivered", "duplicate_effects", "expected_done",
    }  # fmt: skip
    # The polled fragment showed the live figures and a chart.
    [page] = pages
    html = page.content.decode()
    # A live experiment's page looks every 500 ms: its readings are saved twice a second.
    assert page.status_code == 200 and 'hx-trigger="load delay:500ms"' in html
    assert "Live: the real queue" in html and "Duplicate effects" in html
    assert '<figure class="chart live">' in html


def test_silent_progress_keeps_only_the_last_samples():
    lab = get_lab("fanout-live")
    progress = SilentProgress(history=5)
    run_lab(lab, lab.defaults() | FANOUT, 1, progress)
    assert progress.sampled > 5 and len(progress.samples) == 5
    times = [s["t_s"] for s in progress.samples]
    assert times == sorted(times)


def test_the_page_draws_the_live_chart_from_the_saved_samples(client, people):
    lab = get_lab("breaker-live")
    samples = [
        {"t_s": t / 10, "visible": 3, "in_flight": 1, "dlq_depth": 0, "oldest_age_s": 0.2,
         "drain_estimate_s": None, "done": t, "duplicates_delivered": 0,
         "duplicate_effects": 0, "breaker_state": "open" if t > 4 else "closed",
         "breaker_level": 1.0 if t > 4 else 0.0, "service_down": int(t > 2)}
        for t in range(10)
    ]  # fmt: skip
    run = Run.objects.create(
        owner=people.alice, lab=lab.slug, params=lab.defaults(), seed=0, status="running",
        progress={"done": 0, "total": 0, "live": None, "samples": samples},
    )  # fmt: skip
    client.force_login(people.alice)
    html = client.get(reverse("run-detail", args=[run.pk]), HTTP_HX_REQUEST="true")
    text = html.content.decode()
    assert "<dt>Breaker</dt><dd>open</dd>" in text
    assert "<dt>Drain estimate</dt><dd>not draining: the queue grows</dd>" in text
    # Readings are saved twice a second and a live run lasts seconds: the page shows each.
    assert 'hx-trigger="load delay:500ms"' in text
    assert "Live: the shared breaker and the queue" in text
