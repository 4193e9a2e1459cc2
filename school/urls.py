"""URLs of the site: the labs, teaching, accounts and ops apps, Django's login pages, the admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("", include("labs.urls")),
    path("", include("teaching.urls")),
    path("", include("classlab.urls")),
    path("", include("lessons.urls")),
    # Before Django's own auth URLs: its password change is replaced by ours.
    path("", include("accounts.urls")),
    path("", include("ops.urls")),
    path("", include("lti.urls")),
    # Django's login and logout only: its e-mail password reset would say a mail was sent
    # when the site sends none (students have no e-mail). A teacher or an admin resets.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
