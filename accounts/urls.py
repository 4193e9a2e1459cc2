"""Accounts: sign-up with a join code, one's own password, a class's student accounts."""

from django.urls import path

from accounts import language
from accounts.views import passwords, roster, signup

urlpatterns = [
    path("accounts/signup/", signup.signup, name="signup"),
    path(
        "accounts/password_change/",
        passwords.OwnPasswordChangeView.as_view(),
        name="password_change",
    ),
    path("classes/<id:class_id>/accounts/", roster.class_accounts, name="class-accounts"),
    path("classes/<id:class_id>/accounts/roster/", roster.roster_import, name="roster-import"),
    path(
        "classes/<id:class_id>/accounts/<id:student_id>/reset/",
        roster.password_reset,
        name="student-password-reset",
    ),
    path("classes/<id:class_id>/accounts/signup/", roster.signup_toggle, name="class-signup"),
    path("classes/<id:class_id>/accounts/unpause/", roster.lift_pauses, name="class-unpause"),
    path(
        "classes/<id:class_id>/accounts/approvals/",
        roster.approvals_toggle,
        name="class-approvals",
    ),
    path("classes/<id:class_id>/accounts/pending/", roster.decide_pending, name="class-pending"),
    path("accounts/language/", language.switch_language, name="set-language"),
]
