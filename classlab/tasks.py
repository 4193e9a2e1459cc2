"""The worker side: one Celery task turns an experiment's service for its whole lifetime.

Sent to the heavy queue when the teacher starts the experiment; it ends by itself at
`duration_s`, or when the teacher ends it. A lease in Redis keeps a second copy of the task
(a redelivery after a worker died, say) from turning the same service twice.
"""

from __future__ import annotations

import time
from datetime import timedelta

from celery import shared_task
from django.utils import timezone

from classlab import live
from classlab.jobs import Jobs
from classlab.models import Experiment, Participant
from classlab.storm import Storm, ledger, now_ms
from labs.runs.redis_clients import experiments

TURN_S = 0.05  # the service's turn: finishes and starts within 50 ms of their moment
LEASE_MS = 5000


def lease(r, run_key: str, token: str) -> bool:
    """Take or renew the lease on an experiment's loop; False when another worker holds it."""
    key = live.namespace(run_key).key("lease")
    if r.set(key, token, nx=True, px=LEASE_MS):
        return True
    if r.get(key) == token.encode():
        r.pexpire(key, LEASE_MS)
        return True
    return False


@shared_task(acks_late=True, ignore_result=True)
def drive_experiment(experiment_id: str) -> None:
    """Turn the experiment's service (or feed its jobs) until it ends, then save the run."""
    exp = Experiment.objects.filter(pk=experiment_id, status=Experiment.Status.RUNNING).first()
    if exp is None:
        return
    r = experiments("classlab-worker")
    token = f"{time.time_ns()}"
    if not lease(r, exp.run_key, token):
        return
    ns = live.namespace(exp.run_key)
    storm, jobs = Storm(r, ns), Jobs(r, ns)
    started = exp.started_at or timezone.now()
    ends = started + timedelta(seconds=exp.duration_s)
    start_ms = now_ms(r) - round((timezone.now() - started).total_seconds() * 1000)
    before: dict[str, int] = {}
    next_sample = now_ms(r) + live.SAMPLE_EVERY_MS
    arrival_credit = 0.0
    last = now_ms(r)
    while timezone.now() < ends and not live.stopping(r, exp.run_key):
        if not lease(r, exp.run_key, token):
            return  # another worker took over: it carries on
        now = now_ms(r)
        if exp.scenario == Experiment.Scenario.STORM:
            storm.serve()
        else:
            cfg = jobs.settings()
            arrival_credit += (now - last) * cfg["arrivals_per_min"] / 60_000
            if arrival_credit >= 1:
                jobs.arrive(int(arrival_credit))
                arrival_credit -= int(arrival_credit)
        last = now
        if now >= next_sample:
            t_s = (now - start_ms) / 1000
            if exp.scenario == Experiment.Scenario.STORM:
                sample = live.storm_sample(storm, before, t_s)
                storm.touch()
            else:
                sample = live.jobs_sample(jobs, before, t_s)
            before = sample["totals"]
            live.publish(r, exp.run_key, sample, status="running")
            next_sample += live.SAMPLE_EVERY_MS
        time.sleep(TURN_S)
    finish(exp.pk)


def finish(experiment_id) -> None:
    """Save the run (timeline, moves, totals, each phone's record) and end it."""
    exp = Experiment.objects.get(pk=experiment_id)
    if exp.status == Experiment.Status.ENDED:
        return
    r = experiments("classlab-worker")
    ns = live.namespace(exp.run_key)
    storm, jobs = Storm(r, ns), Jobs(r, ns)
    exp.timeline = live.timeline(r, exp.run_key)
    exp.moves = live.moves(r, exp.run_key)
    if exp.scenario == Experiment.Scenario.STORM:
        exp.totals = ledger(storm)  # the counters and both ledgers, read before cleanup
        phones = storm.phones()
        for person in Participant.objects.filter(experiment=exp):
            person.record = phones.get(person.pid, {}).get("record", {})
            person.save(update_fields=["record"])
    else:
        exp.totals = {**jobs.counts(), "dlq": jobs.reading()["dlq"]}
        for person in Participant.objects.filter(experiment=exp):
            person.record = jobs.mine(person.pid)
            person.save(update_fields=["record"])
    exp.status = Experiment.Status.ENDED
    exp.ended_at = timezone.now()
    exp.save(update_fields=["timeline", "moves", "totals", "status", "ended_at"])
    last = exp.timeline[-1] if exp.timeline else {"t": 0}
    live.publish(r, exp.run_key, last, status="ended")
    ns.cleanup(r)
