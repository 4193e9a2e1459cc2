from django.urls import path
from lti_tool.views import jwks

from lti import registration, views

urlpatterns = [
    path("lti/", views.setup, name="lti-setup"),
    path("lti/jwks/", jwks, name="lti-jwks"),
    path("lti/login/", views.Login.as_view(), name="lti-login"),
    path("lti/launch/", views.Launch.as_view(), name="lti-launch"),
    path("lti/continue/", views.continue_in_tab, name="lti-continue"),
    path("lti/deep-link/", views.deep_link_pick, name="lti-deep-link"),
    path("lti/register/", registration.Register.as_view(), name="lti-register"),
    path("classes/<int:class_id>/lms-roster/", views.roster_fill, name="lti-roster-fill"),
]
