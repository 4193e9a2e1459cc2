"""The capstone's pages: the before/after report and the operator view of a run's payments."""

from django.urls import path

from labs.capstone import views

urlpatterns = [
    path("runs/<uuid:run_id>/obligations/", views.run_obligations, name="run-obligations"),
    path("runs/<uuid:run_id>/controls/", views.run_control, name="run-control"),
    path("reports/", views.report_pick, name="report-pick"),
    path("reports/pair/", views.report_pair, name="report-pair"),
    path("reports/<uuid:before_id>/<uuid:after_id>/", views.report_detail, name="report"),
    path(
        "reports/<uuid:before_id>/<uuid:after_id>/analysis/",
        views.report_analysis,
        name="report-analysis",
    ),
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
