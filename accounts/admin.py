from django.contrib import admin

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
