"""URLs of the site: the labs, teaching, accounts and ops apps, Django's login pages, the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("labs.urls")),
    path("", include("teaching.urls")),
    path("", include("lessons.urls")),
    # Before Django's own auth URLs: its password change is replaced by ours.
    path("", include("accounts.urls")),
    path("", include("ops.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
