"""The class experiment's pages: the teacher's projector and controls, the phones, the run.

Thin views: check who may → validate → change Redis or the row → answer. The shared live
state is one small JSON in Redis (`live.current`), read without the database.
"""

from __future__ import annotations

import asyncio
import csv
import json
from typing import Any

import segno
from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, connections, transaction
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from classlab import charts, live, outcome
from classlab.forms import (
    POLICY_NAMES,
    SETTINGS,
    ControlForm,
    GuestForm,
    PredictForm,
    StartForm,
)
from classlab.jobs import Jobs
from classlab.models import Experiment, Participant
from classlab.storm import Busy, Storm
from labs.roles import is_teacher
from labs.runs.redis_clients import experiments
from labs.web.htmx import SignedInRequest
from teaching.access import classroom_for, require_open, require_teacher_of, role_in

SESSION_KEY = "classlab:{code}"
MOVES = {
    "spike_on": {"spike": 3},
    "spike_off": {"spike": 1},
    "slow_on": {"slow": 3},
    "slow_off": {"slow": 1},
}


def _redis():
    return experiments("classlab")


def _parts(exp: Experiment) -> tuple[Storm, Jobs]:
    ns = live.namespace(exp.run_key)
    r = _redis()
    return Storm(r, ns), Jobs(r, ns)


def _teachers(request: HttpRequest, exp_id: str) -> Experiment:
    """The experiment its teacher steers and reads. As for a class's other teacher pages
    (teaching.access): a student of its class is told no (403), anyone else finds nothing."""
    exp = get_object_or_404(Experiment.objects.select_related("classroom"), pk=exp_id)
    if exp.teacher_id == request.user.pk:
        return exp
    if exp.classroom is not None and role_in(exp.classroom, request.user) == "student":
        raise PermissionDenied(
            _("Only the class's teacher can open the experiment's projector, controls and run.")
        )
    raise Http404(_("No such experiment."))


# -- the teacher ------------------------------------------------------------------------------


@login_required
@require_POST
def start(request: SignedInRequest, class_id: int | None = None) -> HttpResponse:
    """Start a class experiment from a class (or, with no class, from a unit page)."""
    classroom = None
    if class_id is not None:
        classroom, role = classroom_for(request.user, class_id)
        require_teacher_of(role, _("Only the class's teacher can start a class experiment."))
        require_open(classroom)
    elif not is_teacher(request.user):
        raise PermissionDenied(_("Only a teacher can start a class experiment."))
    form = StartForm(request.POST)
    if not form.is_valid():
        return render(
            request, "classlab/start.html", {"form": form, "classroom": classroom}, status=422
        )
    if classroom is not None:
        running = Experiment.objects.filter(classroom=classroom).exclude(status="ended").first()
        if running is not None:  # one at a time per class: back to the one that runs
            return redirect("classlab-projector", running.pk)
    try:
        with transaction.atomic():
            exp = Experiment.objects.create(
                teacher=request.user,
                classroom=classroom,
                unit=request.POST.get("unit", "")[:40],
                scenario=form.cleaned_data["scenario"],
                allow_guests=form.cleaned_data["allow_guests"],
                duration_s=form.cleaned_data["minutes"] * 60,
            )
    except IntegrityError:  # a second press at the same moment lost the race
        running = Experiment.objects.filter(classroom=classroom).exclude(status="ended").first()
        if running is None:
            raise
        return redirect("classlab-projector", running.pk)
    storm, jobs = _parts(exp)
    (storm if exp.scenario == "storm" else jobs).setup({})
    live.announce(_redis(), exp.run_key, _settings_sample(exp), status=exp.status)
    return redirect("classlab-projector", exp.pk)


@login_required
@require_GET
def start_page(request: HttpRequest, class_id: int | None = None) -> HttpResponse:
    classroom = None
    if class_id is not None:
        classroom, role = classroom_for(request.user, class_id)
        require_teacher_of(role, _("Only the class's teacher can start a class experiment."))
        require_open(classroom)
    elif not is_teacher(request.user):
        raise PermissionDenied(_("Only a teacher can start a class experiment."))
    return render(
        request,
        "classlab/start.html",
        {"form": StartForm(), "classroom": classroom, "unit": request.GET.get("unit", "")[:40]},
    )


def _stream_url(request: HttpRequest, exp: Experiment) -> str:
    """The SSE stream's address when an ASGI server answers it: this page's own server, or
    the one `./dev run` starts behind nginx (`CLASSLAB_STREAM`); "" otherwise, and the page
    polls state.json instead (a stream would hold one of WSGI's few threads)."""
    if "wsgi.version" in request.META and not settings.CLASSLAB_STREAM:
        return ""
    return reverse("classlab-stream", args=[exp.code])


def _settings_sample(exp: Experiment) -> dict[str, Any]:
    """The live state's settings part, published at once when the teacher moves."""
    storm, jobs = _parts(exp)
    if exp.scenario == "storm":
        cfg: dict[str, Any] = storm.settings()
    else:
        cfg = jobs.settings()
    state = live.current(_redis(), exp.run_key) or {"t": 0}
    guesses = outcome.tally(
        list(exp.people.exclude(prediction="").values_list("prediction", flat=True))
    )
    return {**state, **cfg, "phones": exp.people.count(), "guesses": guesses}


@login_required
@never_cache
def projector(request: HttpRequest, exp_id: str) -> HttpResponse:
    """The projector: join code, link and QR code, the live charts, the controls."""
    exp = _teachers(request, exp_id)
    join_url = request.build_absolute_uri(reverse("classlab-join", args=[exp.code]))
    samples = live.timeline(_redis(), exp.run_key) if exp.live else exp.timeline
    state = live.current(_redis(), exp.run_key) or {}
    predictions = list(exp.people.exclude(prediction="").values_list("prediction", flat=True))
    context = {
        "exp": exp,
        "join_url": join_url,
        "qr_svg": segno.make(join_url, error="m").svg_inline(
            scale=6, dark="#1f2328", light="#ffffff"
        ),
        "figures": charts.build(exp.scenario, samples),
        "state": state,
        "phones": exp.people.count(),
        "tally": outcome.tally(predictions),
        "happened": outcome.recovered(samples, live.moves(_redis(), exp.run_key)),
        "policies": POLICY_NAMES,
        "form": ControlForm(),
        "stream_url": _stream_url(request, exp),
    }
    template = (
        "classlab/projector.html#live"
        if request.headers.get("HX-Request")
        else ("classlab/projector.html")
    )
    response = render(request, template, context)
    response["Vary"] = "HX-Request"
    return response


@login_required
@require_POST
def go(request: HttpRequest, exp_id: str) -> HttpResponse:
    """Start the service: the worker turns it from now for the experiment's duration."""
    exp = _teachers(request, exp_id)
    from classlab.tasks import drive_experiment

    started = Experiment.objects.filter(pk=exp.pk, status="waiting").update(
        status="running", started_at=timezone.now()
    )
    if started:  # a reload or a second press does not start it again
        exp.status = Experiment.Status.RUNNING
        live.announce(_redis(), exp.run_key, _settings_sample(exp), status=exp.status)
        transaction.on_commit(
            lambda: drive_experiment.apply_async(
                args=(str(exp.pk),), queue=settings.LAB_HEAVY_QUEUE
            )
        )
    return redirect("classlab-projector", exp.pk)


@login_required
@require_POST
def control(request: HttpRequest, exp_id: str) -> HttpResponse:
    """One move of the teacher: spike, slow, policy, admission limit, drop expired, end..."""
    exp = _teachers(request, exp_id)
    form = ControlForm(request.POST)
    if not exp.live:
        return HttpResponse(_("This experiment has ended."), status=409)
    if not form.is_valid():
        return HttpResponse(" ".join(str(m) for ms in form.errors.values() for m in ms), status=422)
    action, value = form.cleaned_data["action"], form.cleaned_data.get("value")
    storm, jobs = _parts(exp)
    r = _redis()
    try:
        if action == "end":
            live.stop(r, exp.run_key)
            if exp.status == "waiting":
                from classlab.tasks import finish

                finish(exp.pk)
        elif action in MOVES:
            storm.set(**MOVES[action])
        elif action == "policy":
            storm.set(policy=form.cleaned_data["policy"])
        else:
            name = SETTINGS[action][0]
            (storm if exp.scenario == "storm" else jobs).set(**{name: value})
    except ValueError as error:  # the form checked the bounds: a setting of the other scenario
        return HttpResponse(str(error), status=422)
    state = live.current(r, exp.run_key) or {}
    move = {
        "t": state.get("t", 0),
        "action": action,
        "value": form.cleaned_data.get("policy") or value,
    }
    live.add_move(r, exp.run_key, move)
    if action != "end":  # on the phones and the projector now, not at the next sample
        live.announce(r, exp.run_key, _settings_sample(exp), status=exp.status)
    if request.headers.get("HX-Request"):
        return HttpResponse(status=204)
    return redirect("classlab-projector", exp.pk)


# -- the phones ----------------------------------------------------------------------------------


def _experiment(code: str) -> Experiment:
    exp = Experiment.objects.select_related("classroom").filter(code=code.upper()).first()
    if exp is None:
        raise Http404(_("No class experiment has this code."))
    return exp


def _participant(request: HttpRequest, exp: Experiment) -> Participant | None:
    pid = request.session.get(SESSION_KEY.format(code=exp.code))
    if pid:
        return Participant.objects.filter(experiment=exp, pid=pid).first()
    user = request.user
    if user.is_authenticated:
        return Participant.objects.filter(experiment=exp, user=user).first()
    return None


def _may_join_signed_in(request: HttpRequest, exp: Experiment) -> bool:
    if not request.user.is_authenticated:
        return False
    if exp.classroom is None:
        return True
    return exp.classroom.memberships.filter(student=request.user).exists()


@never_cache
def join(request: HttpRequest, code: str) -> HttpResponse:
    """Join from a phone: signed in (a student of the class), or as a guest if allowed."""
    exp = _experiment(code)
    if _participant(request, exp) is not None:
        return redirect("classlab-phone", exp.code)
    if not exp.live:
        return render(request, "classlab/join.html", {"exp": exp, "ended": True}, status=410)
    user = request.user
    if user.is_authenticated and _may_join_signed_in(request, exp):
        if request.method != "POST":  # a GET only shows the Join button: it writes nothing
            return render(request, "classlab/join.html", {"exp": exp, "signed_in": True})
        person, _created = Participant.objects.get_or_create(experiment=exp, user=user)
        request.session[SESSION_KEY.format(code=exp.code)] = person.pid
        _announce_people(exp)
        return redirect("classlab-phone", exp.code)
    form = GuestForm(request.POST or None)
    if request.method == "POST" and exp.allow_guests and form.is_valid():
        person = Participant.objects.create(experiment=exp, nickname=form.cleaned_data["nickname"])
        request.session[SESSION_KEY.format(code=exp.code)] = person.pid
        _announce_people(exp)
        return redirect("classlab-phone", exp.code)
    status = 200
    if request.method == "POST":  # a bad nickname (422), or no guests here: not theirs (403)
        status = 422 if exp.allow_guests else 403
    return render(request, "classlab/join.html", {"exp": exp, "form": form}, status=status)


def _announce_people(exp: Experiment) -> None:
    """A phone joined or guessed: the projector's count and guesses change now."""
    live.announce(_redis(), exp.run_key, _settings_sample(exp), status=exp.status)


# What a phone's call never reads: the saved run's record, kept when the experiment ends.
NOT_FOR_CALLS = ("record", "experiment__timeline", "experiment__moves", "experiment__totals")


def _phone_or_403(request: HttpRequest, code: str) -> tuple[Experiment, Participant]:
    """The experiment and the phone calling it, in one query: a class's phones call about a
    hundred times a second, so the phone's row comes with its experiment joined, found as
    `_participant` finds it (the pid its session holds, else the signed-in student)."""
    code = code.upper()
    # At most one row either way (unique pid; one phone per student): no ORDER BY to build.
    rows = Participant.objects.select_related("experiment").defer(*NOT_FOR_CALLS).order_by()
    pid = request.session.get(SESSION_KEY.format(code=code))
    person = None
    if pid:
        person = next(iter(rows.filter(experiment__code=code, pid=pid)[:1]), None)
    elif request.user.is_authenticated:
        person = next(iter(rows.filter(experiment__code=code, user=request.user)[:1]), None)
    if person is None:
        _experiment(code)  # no such experiment: 404, as before
        raise PermissionDenied(_("Join the experiment first."))
    return person.experiment, person


@never_cache
@require_GET
def phone(request: HttpRequest, code: str) -> HttpResponse:
    """A phone's own side: its requests (or its jobs), and the prediction before the start."""
    exp = _experiment(code)
    person = _participant(request, exp)
    if person is None:
        return redirect("classlab-join", exp.code)
    return render(
        request,
        "classlab/phone.html",
        {
            "exp": exp,
            "person": person,
            "predict": PredictForm(initial={"prediction": person.prediction}),
            "state": live.current(_redis(), exp.run_key) or {},
            "policies": POLICY_NAMES,
            "policy_names": {key: str(name) for key, name in POLICY_NAMES.items()},
            "stream_url": _stream_url(request, exp),
        },
    )


@require_POST
def predict(request: HttpRequest, code: str) -> HttpResponse:
    exp, person = _phone_or_403(request, code)
    form = PredictForm(request.POST)
    if exp.status != "waiting":
        return HttpResponse(_("Predictions close when the experiment starts."), status=409)
    if not form.is_valid():
        return HttpResponse(_("Choose one answer."), status=422)
    person.prediction = form.cleaned_data["prediction"]
    person.save(update_fields=["prediction"])
    _announce_people(exp)
    return redirect("classlab-phone", exp.code)


@require_POST
def tick(request: HttpRequest, code: str) -> HttpResponse:
    """Scenario 1: the phone's call, at its pace or on a tap; the server applies the policy."""
    exp, person = _phone_or_403(request, code)
    if exp.scenario != "storm":
        return JsonResponse({"error": _("This experiment has no requests to send.")}, status=409)
    if exp.status != "running":
        return JsonResponse({"status": exp.status, "record": {}})
    try:
        taps = int(request.POST.get("taps", "0"))
    except ValueError:
        return JsonResponse({"error": _("taps must be a whole number.")}, status=400)
    storm, _jobs = _parts(exp)
    try:
        mine = storm.tick(person.pid, taps=taps)
    except Busy:
        return JsonResponse({"error": _("One request at a time from each phone.")}, status=429)
    except ValueError as error:
        return JsonResponse({"error": str(error)}, status=400)
    return JsonResponse(
        {"status": exp.status, **mine, "policy_name": str(POLICY_NAMES[mine["policy"]])}
    )


@require_POST
def take(request: HttpRequest, code: str) -> HttpResponse:
    """Scenario 2: the phone asks for a job."""
    exp, person = _phone_or_403(request, code)
    if exp.scenario != "workers" or exp.status != "running":
        return JsonResponse({"status": exp.status, "job": None}, status=200)
    _storm, jobs = _parts(exp)
    holding, mine, cfg = jobs.phone(person.pid)
    if len(holding) >= 2:
        return JsonResponse({"error": _("Finish your jobs before taking another.")}, status=429)
    job = jobs.take(person.pid, cfg)
    return JsonResponse(
        {
            "status": exp.status,
            "job": job,
            "mine": jobs.mine(person.pid) if job else mine,
            "work_ms": cfg["work_ms"],
        }
    )


@require_POST
def done(request: HttpRequest, code: str) -> HttpResponse:
    """Scenario 2: the phone says it finished a job; the answer says what became of it."""
    exp, person = _phone_or_403(request, code)
    if exp.scenario != "workers":
        return JsonResponse({"error": _("This experiment has no jobs.")}, status=409)
    _storm, jobs = _parts(exp)
    try:
        result = jobs.finish(person.pid, request.POST.get("job", "")[:40])
    except ValueError:
        return JsonResponse({"error": _("That job is not yours.")}, status=400)
    return JsonResponse({"result": result, "mine": jobs.mine(person.pid)})


@never_cache
@require_GET
def state(request: HttpRequest, code: str) -> HttpResponse:
    """The shared live state, one small JSON from Redis: the polling channel."""
    exp = _experiment(code)
    return JsonResponse(live.current(_redis(), exp.run_key) or {"status": exp.status})


STREAM_FOR_S = 11 * 60  # longer than any experiment: a stream never outlives its run


async def stream(request: HttpRequest, code: str) -> HttpResponse | StreamingHttpResponse:
    """The same state as Server-Sent Events, fed by Redis pub/sub (needs an ASGI server).

    Each change is sent the moment it is published. Under a WSGI server a stream would hold
    one of its few threads for the whole run, so there it answers 204 at once: the page's
    EventSource then stops and the page polls `state.json` instead (static/classlab/live.js).
    The stream ends when the experiment ends, or after `STREAM_FOR_S`.
    """
    if "wsgi.version" in request.META:
        return HttpResponse(status=204)
    exp = await sync_to_async(_experiment)(code)
    import redis.asyncio as aioredis

    from labs.experiments.namespace import redis_url

    async def events():
        # Django keeps a request's database connection until the request finishes, and a
        # stream finishes when the run does: 100 phones would hold 100 connections (the
        # first bench ran PostgreSQL out of them). The stream needs none: give it back now,
        # from the request's own thread, where the middleware opened it.
        await sync_to_async(connections.close_all)()
        r = aioredis.Redis.from_url(redis_url())
        pubsub = r.pubsub()
        await pubsub.subscribe(live.channel(exp.run_key))
        ends = asyncio.get_running_loop().time() + STREAM_FOR_S
        try:
            # Subscribed first, then the current state read: no change falls in between.
            first = await r.get(live.state_key(exp.run_key))
            yield "retry: 2000\n\n"
            if first:
                yield f"data: {first.decode()}\n\n"
                if json.loads(first).get("status") == "ended":
                    return
            while asyncio.get_running_loop().time() < ends:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=15)
                if message is None:
                    yield ": keep-alive\n\n"
                    continue
                body = message["data"].decode()
                yield f"data: {body}\n\n"
                if json.loads(body).get("status") == "ended":
                    return
        finally:
            await pubsub.aclose()
            await r.aclose()

    response = StreamingHttpResponse(events(), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on, do not buffer it
    return response


# -- the saved run --------------------------------------------------------------------------------


@login_required
@require_GET
def run_page(request: HttpRequest, exp_id: str) -> HttpResponse:
    """The run afterwards: its timeline charted, the guesses against what happened, each phone."""
    exp = _teachers(request, exp_id)
    people = list(exp.people.select_related("user"))
    predictions = [p.prediction for p in people if p.prediction]
    return render(
        request,
        "classlab/run.html",
        {
            "exp": exp,
            "figures": charts.build(exp.scenario, exp.timeline),
            "people": people,
            "tally": outcome.tally(predictions),
            "happened": outcome.recovered(exp.timeline, exp.moves),
            "columns": _record_columns(exp),
            "rows": [
                (p, [p.record.get(k, 0) for k, _label in _record_columns(exp)]) for p in people
            ],
        },
    )


REPLAY_STEP = 5  # samples (seconds of the run) a replay frame moves on: five times as fast


@login_required
@require_GET
def replay(request: HttpRequest, exp_id: str) -> HttpResponse:
    """The saved run replayed on the projector: frame `at` is its first `at` seconds.

    Each frame is drawn on the server from the saved timeline and asks for the next one a
    second later (htmx); the last frame answers 286, so the polling stops. Without
    JavaScript, each frame links to the next.
    """
    exp = _teachers(request, exp_id)
    if exp.live:
        return redirect("classlab-projector", exp.pk)
    try:
        at = int(request.GET.get("at", REPLAY_STEP))
    except ValueError:
        return HttpResponse(_("The frame must be a whole number."), status=400)
    total = len(exp.timeline)
    at = max(1, min(at, total)) if total else 0
    samples = exp.timeline[:at]
    context = {
        "exp": exp,
        "at": at,
        "total": total,
        "next_at": at + REPLAY_STEP if at < total else None,
        "state": samples[-1] if samples else {},
        "figures": charts.build(exp.scenario, samples),
        "policies": POLICY_NAMES,
    }
    if request.headers.get("HX-Request"):
        response = render(request, "classlab/replay.html#frame", context)
        if context["next_at"] is None:
            response.status_code = 286  # htmx: the last frame, stop polling
    else:
        response = render(request, "classlab/replay.html", context)
    response["Vary"] = "HX-Request"
    return response


def _record_columns(exp: Experiment) -> list[tuple[str, str]]:
    """A phone's figures kept with the run, with the words the run page heads them with."""
    if exp.scenario == "storm":
        return [
            ("original", _("first sends")),
            ("retry", _("retries")),
            ("answered", _("answered in time")),
            ("expired", _("waited too long")),
            ("failed", _("refused")),
            ("fast_fail", _("stopped by the breaker")),
            ("gave_up", _("given up")),
        ]
    return [
        ("received", _("received")),
        ("acked", _("acked")),
        ("lost", _("lost to the timeout")),
        ("failed", _("failed")),
    ]


@login_required
@require_GET
def run_export(request: HttpRequest, exp_id: str, fmt: str) -> HttpResponse:
    """The run as JSON (everything) or CSV (one row a second, then one row a phone)."""
    exp = _teachers(request, exp_id)
    if fmt not in ("csv", "json"):
        raise Http404(_("A run downloads as CSV or JSON."))
    people = list(exp.people.select_related("user"))
    if fmt == "json":
        body = {
            "code": exp.code,
            "scenario": exp.scenario,
            "started_at": exp.started_at,
            "ended_at": exp.ended_at,
            "totals": exp.totals,
            "moves": exp.moves,
            "timeline": exp.timeline,
            "people": [
                {
                    "name": p.shown_name,
                    "guest": p.user_id is None,
                    "prediction": p.prediction,
                    "record": p.record,
                }
                for p in people
            ],
        }
        response = HttpResponse(
            json.dumps(body, default=str, indent=1), content_type="application/json"
        )
    else:
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        writer = csv.writer(response)
        keys = [k for k in (exp.timeline[0] if exp.timeline else {}) if k != "totals"]
        writer.writerow(keys)
        for sample in exp.timeline:
            writer.writerow([sample.get(k, "") for k in keys])
        writer.writerow([])
        columns = [key for key, _label in _record_columns(exp)]
        writer.writerow(["name", "prediction", *columns])
        for p in people:
            writer.writerow([p.shown_name, p.prediction, *(p.record.get(c, 0) for c in columns)])
    response["Content-Disposition"] = f'attachment; filename="class-experiment-{exp.code}.{fmt}"'
    return response
