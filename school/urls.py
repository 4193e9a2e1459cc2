"""URLs of the site: the labs and teaching apps, Django's login pages and the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("labs.urls")),
    path("", include("teaching.urls")),
    path("accounts/", include("accounts.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
]
