from django.urls import path

from lessons import views

urlpatterns = [
    path("units/<slug:unit_slug>/self-check/", views.selfcheck, name="unit-selfcheck"),
]
