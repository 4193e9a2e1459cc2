from django.urls import path

from labs import views

urlpatterns = [
    path("", views.home, name="home"),
    path("units/<slug:unit_slug>/", views.unit_detail, name="unit-detail"),
    path("labs/<slug:slug>/", views.lab_detail, name="lab-detail"),
    path("runs/", views.my_runs, name="my-runs"),
    path("runs/<uuid:run_id>/", views.run_detail, name="run-detail"),
    path("runs/<uuid:run_id>.json", views.run_json, name="run-json"),
    path("runs/<uuid:run_id>.csv", views.run_csv, name="run-csv"),
    path("runs/<uuid:run_id>/label/", views.run_label, name="run-label"),
    path("runs/<uuid:run_id>/rerun/", views.run_rerun, name="run-rerun"),
    path("runs/<uuid:run_id>/queue/", views.queue_panel, name="run-queue"),
    path("runs/<uuid:run_id>/queue/redrive/", views.queue_redrive, name="run-queue-redrive"),
    path("runs/<uuid:run_id>/queue/purge/", views.queue_purge, name="run-queue-purge"),
    path("runs/compare/", views.run_compare, name="run-compare"),
    path("runs/<uuid:run_id>/obligations/", views.run_obligations, name="run-obligations"),
    path("reports/", views.report_pick, name="report-pick"),
    path("reports/pair/", views.report_pair, name="report-pair"),
    path("reports/<uuid:before_id>/<uuid:after_id>/", views.report_detail, name="report"),
    path(
        "reports/<uuid:before_id>/<uuid:after_id>/report.md",
        views.report_markdown,
        name="report-markdown",
    ),
    path(
        "reports/<uuid:before_id>/<uuid:after_id>/report.json",
        views.report_json,
        name="report-json",
    ),
]
