from django.urls import path

from teaching import views

urlpatterns = [
    path("classes/", views.class_list, name="class-list"),
    path("classes/new/", views.class_new, name="class-new"),
    path("classes/join/", views.class_join, name="class-join"),
    path("classes/<int:class_id>/", views.class_detail, name="class-detail"),
    path("classes/<int:class_id>/students/", views.student_add, name="student-add"),
    path(
        "classes/<int:class_id>/students/<int:student_id>/remove/",
        views.student_remove,
        name="student-remove",
    ),
    path("classes/<int:class_id>/assignments/new/", views.assignment_new, name="assignment-new"),
    path("classes/<int:class_id>/gradebook/", views.gradebook, name="gradebook"),
    path("classes/<int:class_id>/gradebook.csv", views.gradebook_csv, name="gradebook-csv"),
    path("assignments/<int:assignment_id>/", views.assignment_detail, name="assignment-detail"),
    path("assignments/<int:assignment_id>/edit/", views.assignment_edit, name="assignment-edit"),
    path("assignments/<int:assignment_id>/run/", views.assignment_run, name="assignment-run"),
    path(
        "assignments/<int:assignment_id>/submit/", views.assignment_submit, name="assignment-submit"
    ),
    path("assignments/<int:assignment_id>/extensions/", views.extension_set, name="extension-set"),
    path("submissions/<int:submission_id>/", views.submission_detail, name="submission-detail"),
]
