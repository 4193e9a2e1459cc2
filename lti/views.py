"""The tool's side of LTI 1.3: login initiation, the launch, deep linking, the roster.

A launch is checked by PyLTI1p3 (through django-lti): the platform's signature against its
JWKS, the audience (our client id), the deployment, the nonce (once only) and the state
from the login step. A launch that fails any check gets a 4xx page saying which, in the
reader's language. A launch that passes signs the person in by their LMS identity
(`lti.people`) and opens what the link points at; inside the LMS's frame, where a browser
keeps no cookies for a third-party site, it first shows a button that opens the same place
in a new tab (a one-time link, good for two minutes).
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlparse

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST
from lti_tool.models import LtiContext, LtiLaunch, LtiMembership, LtiResourceLink
from lti_tool.views import LtiLaunchBaseView, OIDCLoginInitView
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from labs.catalogue.entries import LABS
from lti import people
from lti.models import AssignmentLink
from lti.refusals import refused, refused_page
from teaching.access import classroom_for
from teaching.models import Assignment

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
CONTINUE_S = 120  # how long the "open in a new tab" link works
FRAMED = ("iframe", "frame")
# A used nonce is kept longer than any id_token lives (a platform signs for minutes).
NONCE_KEPT_S = 24 * 3600


def _framable(response: HttpResponse, *origins: str) -> HttpResponse:
    """Let the LMS show this page in its frame (and post a form to it): the site's CSP
    says frame-ancestors 'none' and form-action 'self' everywhere else."""
    config = dict(settings.SECURE_CSP)
    config["frame-ancestors"] = ["'self'", *origins]
    config["form-action"] = ["'self'", *origins]
    response._csp_config = config  # type: ignore[attr-defined]
    return response


def _lms_origins(lti_launch: LtiLaunch) -> list[str]:
    """Where the LMS's pages are (its issuer and its login URL): the frames it may use."""
    registration = lti_launch.registration
    found = {_origin(registration.issuer), _origin(registration.auth_url)}
    return sorted(o for o in found if o)


def _origin(url: str) -> str:
    parts = urlparse(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


@method_decorator(csrf_exempt, name="dispatch")
class Login(OIDCLoginInitView):
    """Step 1 of a launch: the platform names itself; we send the browser back to it
    with a state (a cookie) and a nonce. No cookie check page (it is inline script)."""

    def get_oidc_response(self, request, registration_uuid, params):
        from lti_tool.utils import DjangoToolConfig

        target = params.get("target_link_uri")
        if not target or not params.get("iss") or not params.get("login_hint"):
            return refused_page(request, "login", status=400)
        oidc = DjangoOIDCLogin(
            request,
            DjangoToolConfig(registration_uuid),
            launch_data_storage=DjangoCacheDataStorage(),
        )
        try:
            return oidc.redirect(target)
        except (LtiException, OIDCException) as exc:  # an unknown LMS: a page, not a 500
            return refused(request, exc)


@method_decorator((csrf_exempt, xframe_options_exempt), name="dispatch")
class Launch(LtiLaunchBaseView):
    """Step 2: the platform's signed id_token, checked, then the person signed in."""

    def post(self, request, *args, **kwargs):
        try:
            return super().post(request, *args, **kwargs)
        except LtiException as exc:
            return refused(request, exc)

    def launch_setup(self, request, lti_launch: LtiLaunch) -> None:
        """Each launch once: PyLTI1p3 checks that the nonce was issued at login but never
        forgets it, so the same signed form posted again would sign someone in again."""
        key = f"lti-nonce-used:{lti_launch.get_claim('iss')}:{lti_launch.get_claim('nonce')}"
        if not cache.add(key, True, timeout=NONCE_KEPT_S):
            raise LtiException("Invalid Nonce: this launch was already used")

    def handle_inactive_deployment(self, request, lti_launch: LtiLaunch) -> HttpResponse:
        return refused_page(request, "deployment", status=403)

    def handle_resource_launch(self, request, lti_launch: LtiLaunch) -> HttpResponse:
        user, classroom, role = _sign_in_people(lti_launch)
        if classroom is None:
            return refused_page(request, "no-class", status=403)
        if role == "other-teacher":
            return refused_page(request, "other-teacher", status=403)
        target = _target(request, lti_launch, classroom, role)
        return _open(request, lti_launch, user, target)

    def handle_deep_linking_launch(self, request, lti_launch: LtiLaunch) -> HttpResponse:
        membership: LtiMembership = lti_launch.membership
        if not (membership.is_instructor or membership.is_administrator):
            return refused_page(request, "not-instructor", status=403)
        user, classroom, role = _sign_in_people(lti_launch)
        assert classroom is not None
        if role == "other-teacher":
            return refused_page(request, "other-teacher", status=403)
        settings_claim = lti_launch.get_claim(
            "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
        )
        return_url = (settings_claim or {}).get("deep_link_return_url", "")
        context = {
            "launch_id": lti_launch.get_launch_id(),
            "classroom": classroom,
            "assignments": classroom.assignments.order_by("due_at", "pk"),
            "labs": LABS,
        }
        page = render(request, "lti/deep_link.html", context)
        return _framable(page, _origin(return_url), *_lms_origins(lti_launch))


def _sign_in_people(lti_launch: LtiLaunch) -> tuple[Any, Any, str]:
    """(the account, the course's class, "teacher" or "student") for this launch."""
    user = people.account_for(lti_launch.user)
    membership: LtiMembership = lti_launch.membership
    context: LtiContext = lti_launch.context
    if membership.is_instructor or membership.is_administrator:
        people.make_teacher(user)
        classroom = people.class_for_instructor(context, user)
        # A class here has one teacher: the course's first instructor to launch.
        return user, classroom, "teacher" if classroom.teacher_id == user.pk else "other-teacher"
    classroom = people.class_of(context)
    if classroom is not None:
        people.enrol(classroom, user)
    return user, classroom, "student"


def _target(request, lti_launch: LtiLaunch, classroom, role: str) -> str:
    """Where the link in the course leads: its assignment, its lab, or the class."""
    custom = lti_launch.get_claim("https://purl.imsglobal.org/spec/lti/claim/custom") or {}
    assignment_id = str(custom.get("assignment", ""))
    if assignment_id.isdigit():
        assignment = Assignment.objects.filter(pk=assignment_id, classroom=classroom).first()
        if assignment is not None:
            _remember_line_item(request, lti_launch, assignment)
            return assignment.get_absolute_url()
    lab = str(custom.get("lab", ""))
    if any(entry.slug == lab for entry in LABS):
        return reverse("lab-detail", args=[lab])
    return classroom.get_absolute_url()


def _remember_line_item(request, lti_launch: LtiLaunch, assignment: Assignment) -> None:
    """The link's gradebook column (AGS "lineitem"), for the scores sent back later."""
    endpoint = lti_launch.ags_claim or {}
    link: LtiResourceLink = lti_launch.resource_link
    AssignmentLink.objects.update_or_create(
        resource_link=link,
        defaults={
            "assignment": assignment,
            "lineitem_url": endpoint.get("lineitem", ""),
            "site": request.build_absolute_uri("/").rstrip("/"),
        },
    )


def _open(request, lti_launch: LtiLaunch, user, target: str) -> HttpResponse:
    if lti_launch.document_target in FRAMED:
        token = secrets.token_urlsafe(24)
        cache.set(f"lti-continue:{token}", {"user": user.pk, "next": target}, CONTINUE_S)
        page = render(request, "lti/new_tab.html", {"token": token, "target": target})
        return _framable(page, *_lms_origins(lti_launch))
    login(request, user, backend=MODEL_BACKEND)
    return HttpResponseRedirect(target)


@csrf_exempt  # opened in a new tab from the LMS's frame: the one-time token is the secret
@require_POST
def continue_in_tab(request: HttpRequest) -> HttpResponse:
    token = request.POST.get("token", "")
    key = f"lti-continue:{token}"
    found = cache.get(key) if token else None
    if found is None or not cache.delete(key):
        return refused_page(request, "continue", status=400)
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(pk=found["user"]).first()
    if user is None:
        return refused_page(request, "continue", status=400)
    login(request, user, backend=MODEL_BACKEND)
    return HttpResponseRedirect(found["next"])


@csrf_exempt  # posted from the LMS's frame; the launch id (random, in our cache) is the key
@require_POST
def deep_link_pick(request: HttpRequest) -> HttpResponse:
    """The teacher's pick, sent back to the LMS as a signed deep-linking response."""
    from lti_tool.utils import DjangoToolConfig
    from pylti1p3.contrib.django import DjangoMessageLaunch
    from pylti1p3.deep_link_resource import DeepLinkResource
    from pylti1p3.lineitem import LineItem

    try:
        message_launch = DjangoMessageLaunch.from_cache(
            request.POST.get("launch_id", ""),
            request,
            DjangoToolConfig(),
            launch_data_storage=DjangoCacheDataStorage(),
        )
    except LtiException:
        return refused_page(request, "deep-link-expired", status=400)
    lti_launch = LtiLaunch(message_launch)
    if not lti_launch.is_deep_link_launch or not (
        lti_launch.membership.is_instructor or lti_launch.membership.is_administrator
    ):
        return refused_page(request, "not-instructor", status=403)
    classroom = people.class_of(lti_launch.context)
    pick = request.POST.get("pick", "")
    kind, _sep, value = pick.partition(":")
    launch_url = request.build_absolute_uri(reverse("lti-launch"))
    resource = DeepLinkResource().set_url(launch_url)
    if kind == "assignment" and value.isdigit() and classroom is not None:
        assignment = get_object_or_404(Assignment, pk=value, classroom=classroom)
        resource.set_title(assignment.title).set_custom_params({"assignment": str(assignment.pk)})
        out_of = _out_of(assignment)
        line_item = LineItem().set_label(assignment.title).set_score_maximum(out_of)
        resource.set_lineitem(line_item.set_resource_id(f"assignment-{assignment.pk}"))
    elif kind == "lab" and any(entry.slug == value for entry in LABS):
        lab = next(entry for entry in LABS if entry.slug == value)
        resource.set_title(_(lab.title)).set_custom_params({"lab": lab.slug})
    else:
        return refused_page(request, "deep-link-pick", status=400)
    deep_link = message_launch.get_deep_link()
    jwt_value = deep_link.get_response_jwt([resource])
    settings_claim = (
        lti_launch.get_claim("https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings")
        or {}
    )
    return_url = settings_claim.get("deep_link_return_url", "")
    page = render(
        request,
        "lti/deep_link_return.html",
        {"return_url": return_url, "jwt": jwt_value, "title": resource.get_title()},
    )
    return _framable(page, _origin(return_url))


def _out_of(assignment: Assignment) -> int:
    """The gradebook column's maximum: the rubric's, or the number of criteria."""
    return assignment.rubric_max or len(assignment.criteria or []) or 1


@login_required
@require_POST
def roster_fill(request: HttpRequest, class_id: int) -> HttpResponse:
    """Fill the class from the LMS course's roster (NRPS): every learner gets an account
    (or their linked one) and a place in the class."""
    from teaching.access import require_open, require_teacher_of

    classroom, role = classroom_for(request.user, class_id)
    require_teacher_of(role, _("Only the class's teacher can fill it from the LMS."))
    require_open(classroom)
    from lti.roster import fill_from_lms

    try:
        added, total = fill_from_lms(classroom)
    except LtiException:
        messages.error(request, _("The LMS did not answer with the course's roster: try again."))
        return redirect(classroom)
    messages.success(
        request,
        _("The LMS course has %(total)s students; %(added)s of them were added to the class.")
        % {"total": total, "added": added},
    )
    return redirect(classroom)


@login_required
@require_GET
def setup(request: HttpRequest) -> HttpResponse:
    """For a site admin: the addresses an LMS admin types in to register the site."""
    if not request.user.is_staff:
        return refused_page(request, "staff", status=404)
    urls = {
        name.replace("-", "_"): request.build_absolute_uri(reverse(name))
        for name in ("lti-login", "lti-launch", "lti-jwks", "lti-register")
    }
    return render(request, "lti/setup.html", {"urls": urls})
