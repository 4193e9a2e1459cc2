"""Dynamic registration (LTI 1.3 Dynamic Registration, as Moodle 3.10+ and Canvas offer):
the LMS admin pastes one URL; the LMS opens it with its OpenID configuration and a
registration token; the admin presses Register; the site records the LMS (a registration
and its deployment, active) and tells the LMS its own addresses and what it needs."""

from __future__ import annotations

import requests
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from lti_dynamic_registration.types import LmsLtiRegistration, LmsLtiToolConfiguration, LtiMessage
from lti_dynamic_registration.views import DynamicRegistrationBaseView
from lti_tool.models import LtiDeployment

from lti.refusals import refused_page

SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"


@method_decorator((csrf_exempt, xframe_options_exempt), name="dispatch")
class Register(DynamicRegistrationBaseView):
    tool_friendly_name = "Queues & Resilience Lab"

    def get(self, request, *args, **kwargs):
        try:
            config = self.get_openid_config()
        except (ValueError, requests.RequestException, KeyError):
            return refused_page(request, "registration", status=400)
        page = render(request, "lti/register.html", {"lms": config.get("issuer", "")})
        return _framable(page)

    def post(self, request, *args, **kwargs):
        try:
            config = self.get_openid_config()
            registration = self.register_platform_in_tool(self.tool_friendly_name, config)
            answer = self._register(config)
        except (ValueError, requests.RequestException, KeyError):
            return refused_page(request, "registration", status=400)
        registration.client_id = answer["client_id"]
        registration.save(update_fields=["client_id"])
        deployment = (answer.get(TOOL_CONFIGURATION) or {}).get("deployment_id")
        if deployment:
            LtiDeployment.objects.update_or_create(
                registration=registration,
                deployment_id=deployment,
                defaults={"is_active": True},
            )
        return _framable(render(request, "lti/registered.html", {"lms": config["issuer"]}))

    def _register(self, config: dict) -> dict:
        """Tell the LMS who the site is; its answer holds our client id."""
        request = self.request
        launch = request.build_absolute_uri(reverse("lti-launch"))
        tool = LmsLtiToolConfiguration(
            domain=request.get_host(),
            target_link_uri=launch,
            claims=["iss", "sub", "name", "given_name", "family_name"],
            messages=[
                LtiMessage(type="LtiResourceLinkRequest", target_link_uri=launch),
                LtiMessage(
                    type="LtiDeepLinkingRequest",
                    target_link_uri=launch,
                    label=self.tool_friendly_name,
                ),
            ],
            description="Labs on queues and resilience, in Marathi and English.",
        )
        registration = LmsLtiRegistration(
            client_name=self.tool_friendly_name,
            jwks_uri=request.build_absolute_uri(reverse("lti-jwks")),
            initiate_login_uri=request.build_absolute_uri(reverse("lti-login")),
            target_link_uri=launch,
            scopes=SCOPES,
            lti_tool_configuration=tool,
        )
        response = requests.post(
            config["registration_endpoint"],
            json=registration.to_dict(),
            headers={"Authorization": f"Bearer {request.GET.get('registration_token', '')}"},
            timeout=10,
        )
        response.raise_for_status()
        return response.json()


def _framable(response: HttpResponse) -> HttpResponse:
    from lti.views import _framable as framable

    return framable(response)
