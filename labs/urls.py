from django.urls import include, path

from labs.web.views import drafts, pages, queue_panel, runs, share

urlpatterns = [
    path("", pages.home, name="home"),
    path("units/<slug:unit_slug>/", pages.unit_detail, name="unit-detail"),
    path("labs/<slug:slug>/", pages.lab_detail, name="lab-detail"),
    path("labs/<slug:slug>/draft/", drafts.lab_draft, name="lab-draft"),
    path("labs/<slug:slug>/share/", share.lab_share, name="lab-share"),
    # Short, letters and digits only: a link that survives a chat message.
    path("s/<str:code>/", share.shared_setup, name="shared-setup"),
    path("runs/", runs.my_runs, name="my-runs"),
    path("runs/<uuid:run_id>/", runs.run_detail, name="run-detail"),
    path("runs/<uuid:run_id>.json", runs.run_json, name="run-json"),
    path("runs/<uuid:run_id>.csv", runs.run_csv, name="run-csv"),
    path("runs/<uuid:run_id>/numbers/", runs.run_numbers, name="run-numbers"),
    path("runs/<uuid:run_id>/label/", runs.run_label, name="run-label"),
    path("runs/<uuid:run_id>/rerun/", runs.run_rerun, name="run-rerun"),
    path("runs/<uuid:run_id>/keep/", drafts.run_keep, name="run-keep"),
    path("runs/<uuid:run_id>/queue/", queue_panel.queue_panel, name="run-queue"),
    path("runs/<uuid:run_id>/queue/redrive/", queue_panel.queue_redrive, name="run-queue-redrive"),
    path("runs/<uuid:run_id>/queue/purge/", queue_panel.queue_purge, name="run-queue-purge"),
    path("runs/compare/", runs.run_compare, name="run-compare"),
    path("", include("labs.capstone.urls")),
]
