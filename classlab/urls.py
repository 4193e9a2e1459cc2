from django.urls import path

from classlab import views

urlpatterns = [
    path("classes/<int:class_id>/experiment/", views.start_page, name="classlab-start-class"),
    path("classes/<int:class_id>/experiment/start/", views.start, name="classlab-start"),
    path("experiment/new/", views.start_page, name="classlab-start-unit-page"),
    path("experiment/new/start/", views.start, name="classlab-start-unit"),
    path("experiment/<uuid:exp_id>/", views.projector, name="classlab-projector"),
    path("experiment/<uuid:exp_id>/go/", views.go, name="classlab-go"),
    path("experiment/<uuid:exp_id>/control/", views.control, name="classlab-control"),
    path("experiment/<uuid:exp_id>/run/", views.run_page, name="classlab-run"),
    path("experiment/<uuid:exp_id>/replay/", views.replay, name="classlab-replay"),
    path("experiment/<uuid:exp_id>/run.<str:fmt>", views.run_export, name="classlab-export"),
    path("x/<str:code>/", views.join, name="classlab-join"),
    path("x/<str:code>/phone/", views.phone, name="classlab-phone"),
    path("x/<str:code>/predict/", views.predict, name="classlab-predict"),
    path("x/<str:code>/tick/", views.tick, name="classlab-tick"),
    path("x/<str:code>/take/", views.take, name="classlab-take"),
    path("x/<str:code>/done/", views.done, name="classlab-done"),
    path("x/<str:code>/state.json", views.state, name="classlab-state"),
    path("x/<str:code>/stream/", views.stream, name="classlab-stream"),
]
