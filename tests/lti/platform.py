"""An LTI 1.3 platform for the tests, built on `lti1p3platform` (PyPI, not ours).

The package signs the launches and deep-linking requests with its own RSA key, checks the
tool's OIDC answer, checks the tool's deep-linking response JWT against the tool's JWKS,
issues access tokens to the tool's signed client assertion, and answers the AGS score and
NRPS membership calls through its `AssignmentsGradesService` / `NamesRoleProvisioningService`
(which check the bearer token and its scopes). What is ours here is only the glue: a WSGI
server in a thread that hands each HTTP request to those classes, the abstract methods
they leave to a platform (where a score is kept, who is in the course), and a browser-less
"user agent" that carries the forms between the platform and the tool.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from html import escape, unescape
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlparse
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponse, JsonResponse
from django.test import RequestFactory
from jwcrypto.jwk import JWK
from lti1p3platform.framework.django.oidc_login import DjangoAPIOIDCLogin
from lti1p3platform.framework.django.request import DjangoRequest
from lti1p3platform.framework.django.response import wrap_json_resp
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
)

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
COURSE = "http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"
# The platform's own page that posts its signed launch to the tool (as an LMS does).
AUTO_POST = """<!doctype html><title>LMS</title>
<form id="launch" method="post" action="{action}">
<input type="hidden" name="id_token" value="{id_token}">
<input type="hidden" name="state" value="{state}">
<button type="submit">Continue to the tool</button></form>
<script>document.getElementById("launch").submit();</script>"""
FORM_FIELD = re.compile(r'name="(\w+)"\s+value="([^"]*)"')
FORM_ACTION = re.compile(r'<form[^>]*action="([^"]+)"')


class PlatformConf(LTI1P3PlatformConfAbstract):
    """The package's platform configuration: one registration (the tool)."""

    def init_platform_config(self, **kwargs: Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: Any) -> Registration:
        return self._registration


class MessageLaunch(LTIAdvantageMessageLaunchAbstract):
    """The package's LTI Advantage launch; the form it would render (its Django wrapper's
    template needs pkg_resources) is returned as its fields: what a browser posts."""

    def render_launch_form(self, launch_data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return launch_data


class Login(DjangoAPIOIDCLogin):
    def set_lti_message_hint(self, **kwargs: Any) -> None:
        self._lti_message_hint = kwargs["hint"]


@dataclass
class Person:
    sub: str
    name: str
    roles: list[str]
    given_name: str = ""
    family_name: str = ""


@dataclass
class Course:
    id: str = "course-7"
    title: str = "Queues 101 (LMS)"
    label: str = "Q101"
    members: list[Person] = field(default_factory=list)


class Grades(AssignmentsGradesService):
    """The package's AGS service; scores land in the platform's gradebook (a dict)."""

    def __init__(self, request, platform: Platform, **kwargs: Any) -> None:
        super().__init__(request, platform.conf, platform.url("/lineitems"), **kwargs)
        self.platform = platform

    def update_score(self, line_item_id: str, score: Any) -> UpdateScoreStatus:
        self.platform.scores.setdefault(line_item_id, []).append(score)
        return UpdateScoreStatus.SUCCESS

    def find_lineitems(self, **kwargs: Any):
        return {"content": [], "has_next": False, "next": None}

    def find_lineitem(self, line_item_id: str):
        return {"id": self.platform.url(f"/lineitems/{line_item_id}"), "scoreMaximum": 8}

    def create_lineitem(self, creation_data):
        return creation_data

    def update_lineitem(self, update_data):
        return update_data

    def delete_lineitem(self, line_item_id: str) -> None:
        return None

    def get_results(self, line_item_id: str, **kwargs: Any):
        return {"content": [], "has_next": False, "next": None}


class Roster(NamesRoleProvisioningService):
    """The package's NRPS service over the platform's course."""

    def __init__(self, request, platform: Platform) -> None:
        super().__init__(request, platform.conf, platform.url("/memberships"))
        self.platform = platform

    def get_context_by_id(self) -> Context:
        c = self.platform.course
        return Context(id=c.id, label=c.label, title=c.title)

    def get_member_data_page(self, **kwargs: Any):
        members = [
            {
                "user_id": p.sub,
                "roles": p.roles,
                "name": p.name,
                "given_name": p.given_name,
                "family_name": p.family_name,
                "status": "Active",
            }
            for p in self.platform.course.members
        ]
        return {"content": members, "has_next": False, "next": None}


class Quiet(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:  # no access log in the test output
        pass


class Platform:
    """The LMS: its keys, its registration of the tool, its HTTP endpoints."""

    def __init__(
        self,
        tool: str,
        *,
        iss: str = "https://lms.example.org",
        client_id: str = "site-client-1",
        deployment_id: str = "deployment-1",
        host: str = "127.0.0.1",  # as the tool and the browser name it ("localhost": same site)
    ) -> None:
        self.host = host
        key = JWK.generate(kty="RSA", size=2048)
        self.private_pem = key.export_to_pem(private_key=True, password=None).decode()
        self.public_pem = key.export_to_pem().decode()
        self.tool = tool.rstrip("/")
        self.iss, self.client_id, self.deployment_id = iss, client_id, deployment_id
        self.registration = (
            Registration()
            .set_iss(iss)
            .set_client_id(client_id)
            .set_deployment_id(deployment_id)
            .set_oidc_login_url(self.tool + "/lti/login/")
            .set_launch_url(self.tool + "/lti/launch/")
            .set_deeplink_launch_url(self.tool + "/lti/launch/")
            .set_platform_public_key(self.public_pem)
            .set_platform_private_key(self.private_pem)
            .set_tool_key_set_url(self.tool + "/lti/jwks/")
        )
        self.conf = PlatformConf(registration=self.registration)
        self.course = Course()
        self.scores: dict[str, list[Any]] = {}
        self.deep_links: list[list[dict[str, Any]]] = []
        # What the platform's /auth signs for a browser (who, which link): set by a test.
        self.next_launch: dict[str, Any] | None = None
        self._server: WSGIServer = make_server("127.0.0.1", 0, self.wsgi, handler_class=Quiet)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        port = self._server.server_address[1]
        return f"http://{self.host}:{port}{path}"

    def start_url(self, person: Person, resource_link: str = "link-1") -> str:
        """Where the LMS sends a browser to start a launch: the tool's login URL."""
        login = Login(None, self.conf)
        login.set_lti_message_hint(hint=resource_link)
        return login.prepare_preflight_url(person.sub)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # The tool's side of the registration (what the site's admin types in) --------------
    def register_in_tool(self, *, active: bool = True):
        from lti_tool.models import Key, LtiDeployment, LtiRegistration

        if not Key.objects.exists():
            Key.objects.generate()
        registration = LtiRegistration.objects.create(
            name="Test LMS",
            issuer=self.iss,
            client_id=self.client_id,
            auth_url=self.url("/auth"),
            token_url=self.url("/token"),
            keyset_url=self.url("/jwks"),
        )
        LtiDeployment.objects.create(
            registration=registration, deployment_id=self.deployment_id, is_active=active
        )
        return registration

    def trust_tool_keys(self, jwks: dict[str, Any]) -> None:
        """The tool's JWKS as the platform fetched it from /lti/jwks/ (set here so a
        platform without a live tool server can check the tool's signatures)."""
        self.registration.set_tool_key_set(jwks)

    # HTTP: the package's services behind a WSGI server -----------------------------------
    def wsgi(self, environ, start_response):
        request = WSGIRequest(environ)
        path = request.path
        if path == "/jwks":
            response: HttpResponse = JsonResponse(self.conf.get_jwks())
        elif path == "/token":
            try:
                response = JsonResponse(self.conf.get_access_token(request.POST.dict()))
            except Exception as exc:  # noqa: BLE001 - a refused token request, as an LMS says it
                response = JsonResponse({"error": str(exc)}, status=400)
        elif m := re.fullmatch(r"/lineitems/([\w-]+)/scores", path):
            service = Grades(DjangoRequest(request), self)
            response = wrap_json_resp(
                service.handle_resp(service.handle_update_score, line_item_id=m.group(1))
            )
        elif path == "/auth" and self.next_launch is not None:
            form = self.answer_auth(request.GET.dict(), **self.next_launch)
            response = HttpResponse(AUTO_POST.format(**{k: escape(v) for k, v in form.items()}))
        elif path == "/deep-link-return":
            items = self.receive_deep_link(request.POST.get("JWT", ""))
            titles = ", ".join(escape(i.get("title", "")) for i in items)
            response = HttpResponse(f"<h1>The LMS received: {titles}</h1>")
        elif path == "/memberships":
            service = Roster(DjangoRequest(request), self)
            response = wrap_json_resp(service.handle_resp(service.handle_get_members))
        else:
            response = JsonResponse({"error": "not found"}, status=404)
        status = f"{response.status_code} {response.reason_phrase}"
        start_response(status, [(k, v) for k, v in response.items()])
        return [response.content]

    # A launch, carried between platform and tool by a browser-less user agent ---------
    def launch_form(
        self,
        client,
        person: Person,
        *,
        resource_link: str = "link-1",
        custom: dict[str, str] | None = None,
        lineitem: str | None = None,
        deep_link: bool = False,
        document_target: str | None = None,
        expiration: int = 300,
    ) -> dict[str, str]:
        """Steps 1-3 of a launch: the platform starts the login at the tool, the tool
        sends the browser to the platform's auth URL, the platform answers with its
        signed id_token in a self-posting form. Returns that form's fields and action."""
        login = Login(None, self.conf)
        login.set_lti_message_hint(hint=resource_link)
        start = urlparse(login.prepare_preflight_url(person.sub))
        answer = client.get(start.path, dict(parse_qsl(start.query)))
        assert answer.status_code == 302, answer.content.decode()[:500]
        auth = urlparse(answer["Location"])
        assert auth.path == "/auth", auth
        return self.answer_auth(
            dict(parse_qsl(auth.query)), person, resource_link=resource_link, custom=custom,
            lineitem=lineitem, deep_link=deep_link, document_target=document_target,
            expiration=expiration,
        )  # fmt: skip

    def answer_auth(
        self,
        params: dict[str, str],
        person: Person,
        *,
        resource_link: str = "link-1",
        custom: dict[str, str] | None = None,
        lineitem: str | None = None,
        deep_link: bool = False,
        document_target: str | None = None,
        expiration: int = 300,
    ) -> dict[str, str]:
        """The platform's auth endpoint: the tool's OIDC answer checked by the package,
        and the signed launch (id_token, state, where to post them)."""
        request = RequestFactory().get("/auth", params)
        launch = MessageLaunch(DjangoRequest(request), self.conf)
        launch.set_id_token_expiration(expiration)
        launch.set_user_data(
            person.sub, person.roles, full_name=person.name, preferred_username=person.sub
        )
        if person.given_name:
            launch.set_extra_claims(
                {"given_name": person.given_name, "family_name": person.family_name}
            )
        launch.set_launch_context_claim(
            self.course.id, [COURSE], self.course.title, self.course.label
        )
        launch.set_resource_link_claim(resource_link, title="A link in the course")
        if document_target:
            launch.set_launch_presentation_claim(document_target=document_target)
        if custom:
            launch.set_custom_parameters_claim(custom)
        launch.set_ags(
            self.url("/lineitems"),
            self.url(f"/lineitems/{lineitem}") if lineitem else None,
        )
        launch.set_nrps(self.url("/memberships"))
        if deep_link:
            launch.set_dl(self.url("/deep-link-return"), title="Add a lab")
        form = launch.lti_launch()
        return {"id_token": form["id_token"], "state": form["state"], "action": form["launch_url"]}

    def post_launch(self, client, form: dict[str, str]):
        """Step 4: the browser posts the platform's form to the tool."""
        action = urlparse(form["action"])
        return client.post(action.path, {"id_token": form["id_token"], "state": form["state"]})

    def launch(self, client, person: Person, **kwargs: Any):
        return self.post_launch(client, self.launch_form(client, person, **kwargs))

    def receive_deep_link(self, jwt_value: str) -> list[dict[str, Any]]:
        """The platform's deep-link return URL: the tool's signed answer, checked by the
        package against the tool's JWKS; its content items."""
        items = self.conf.validate_deeplinking_resp({"JWT": jwt_value})
        self.deep_links.append(items)
        return items


def form_fields(html: str) -> dict[str, str]:
    return {name: unescape(value) for name, value in FORM_FIELD.findall(html)}


def query(url: str) -> str:
    parts = urlparse(url)
    return parts.path + ("?" + urlencode(dict(parse_qsl(parts.query))) if parts.query else "")
