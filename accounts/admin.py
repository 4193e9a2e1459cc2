from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from accounts.models import PasswordReset, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "language", "must_change_password")
    search_fields = ("user__username",)


@admin.register(PasswordReset)
class PasswordResetAdmin(admin.ModelAdmin):
    """The record of every one-time password a teacher gave: read, never edited."""

    list_display = ("at", "student", "reset_by_username", "classroom", "address")
    list_filter = ("classroom",)
    search_fields = ("student__username", "reset_by_username")
    date_hierarchy = "at"
    list_select_related = ("student", "classroom")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.action(description="Remove the student's personal data (runs' figures stay, anonymous)")
def remove_students(modeladmin, request, queryset) -> None:
    """The admin's way to `manage.py remove_student`, for the selected accounts."""
    from accounts.removal import remove_student

    for user in queryset:
        try:
            removed = remove_student(user)
        except ValueError as exc:
            modeladmin.message_user(request, f"{user}: {exc}", level="error")
        else:
            modeladmin.message_user(request, f"{user} removed (now {removed.username}).")


class SchoolUserAdmin(UserAdmin):
    actions = (remove_students,)


User = get_user_model()
admin.site.unregister(User)
admin.site.register(User, SchoolUserAdmin)
