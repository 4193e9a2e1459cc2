"""URLs of people's own settings."""

from django.urls import path

from accounts import language

urlpatterns = [
    path("language/", language.switch_language, name="set-language"),
]
