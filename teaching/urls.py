from django.urls import path, register_converter

from teaching import invitations, join_link, pair_views, views
from teaching.class_results import views as class_views


class IdConverter:
    """A database id: at most 18 digits, so a longer one is a 404, not a database overflow."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

urlpatterns = [
    path("classes/", views.class_list, name="class-list"),
    path("classes/new/", views.class_new, name="class-new"),
    path("classes/join/", views.class_join, name="class-join"),
    path("j/<str:code>/", join_link.join_short, name="join-short"),
    path("classes/<id:class_id>/", views.class_detail, name="class-detail"),
    path("classes/<id:class_id>/students/", views.student_add, name="student-add"),
    path(
        "invitations/<id:invitation_id>/accept/",
        invitations.invitation_accept,
        name="invitation-accept",
    ),
    path(
        "invitations/<id:invitation_id>/decline/",
        invitations.invitation_decline,
        name="invitation-decline",
    ),
    path(
        "classes/<id:class_id>/students/<id:student_id>/remove/",
        views.student_remove,
        name="student-remove",
    ),
    path("classes/<id:class_id>/sections/", views.sections_set, name="class-sections"),
    path("classes/<id:class_id>/assignments/new/", views.assignment_new, name="assignment-new"),
    path("classes/<id:class_id>/archive/", views.class_archive, name="class-archive"),
    path("classes/<id:class_id>/export.zip", views.class_export, name="class-export"),
    path("classes/<id:class_id>/gradebook/", views.gradebook, name="gradebook"),
    path("classes/<id:class_id>/gradebook.csv", views.gradebook_csv, name="gradebook-csv"),
    path("assignments/<id:assignment_id>/", views.assignment_detail, name="assignment-detail"),
    path("assignments/<id:assignment_id>/edit/", views.assignment_edit, name="assignment-edit"),
    path("assignments/<id:assignment_id>/run/", views.assignment_run, name="assignment-run"),
    path(
        "assignments/<id:assignment_id>/pair/", pair_views.assignment_pair, name="assignment-pair"
    ),
    path(
        "assignments/<id:assignment_id>/submit/", views.assignment_submit, name="assignment-submit"
    ),
    path(
        "assignments/<id:assignment_id>/results/",
        class_views.results_page,
        name="assignment-results",
    ),
    path(
        "assignments/<id:assignment_id>/results/projector/",
        class_views.results_projector,
        name="assignment-results-projector",
    ),
    path(
        "assignments/<id:assignment_id>/results.csv",
        class_views.results_csv,
        name="assignment-results-csv",
    ),
    path(
        "assignments/<id:assignment_id>/results.json",
        class_views.results_json,
        name="assignment-results-json",
    ),
    path(
        "assignments/<id:assignment_id>/results/lesson-case/",
        class_views.results_reference,
        name="assignment-results-reference",
    ),
    path("assignments/<id:assignment_id>/extensions/", views.extension_set, name="extension-set"),
    path("submissions/<id:submission_id>/", views.submission_detail, name="submission-detail"),
    path(
        "submissions/<id:submission_id>/feedback/",
        views.submission_feedback,
        name="submission-feedback",
    ),
]
