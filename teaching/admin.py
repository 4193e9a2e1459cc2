from django.contrib import admin
from django.db.models import Count

from teaching.models import (
    Assignment,
    Classroom,
    Extension,
    Invitation,
    Membership,
    Submission,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("student",)


@admin.register(Classroom)
class ClassroomAdmin(admin.ModelAdmin):
    list_display = ("name", "teacher", "join_code", "student_count", "created_at")
    list_filter = ("teacher",)
    search_fields = ("name", "join_code", "teacher__username")
    list_select_related = ("teacher",)
    autocomplete_fields = ("teacher",)
    inlines = [MembershipInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_students=Count("memberships"))

    @admin.display(description="students", ordering="n_students")
    def student_count(self, obj) -> int:
        return obj.n_students


class ExtensionInline(admin.TabularInline):
    model = Extension
    extra = 0
    autocomplete_fields = ("student",)


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("title", "classroom", "lab", "due_at", "created_at")
    list_filter = ("lab", "classroom__teacher", "classroom")
    search_fields = ("title", "classroom__name")
    date_hierarchy = "due_at"
    list_select_related = ("classroom",)
    # Lab, presets and criteria are checked against the lab by the site's form: edit them
    # there (Edit the assignment), not as raw JSON here.
    readonly_fields = ("lab", "presets", "locked", "criteria", "created_at")
    inlines = [ExtensionInline]

    def has_add_permission(self, request) -> bool:
        return False  # an assignment needs its lab's form: teachers set them on the site


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ("assignment", "student", "run_status", "submitted_at")
    list_filter = ("assignment__classroom", "assignment", "run__status")
    search_fields = ("student__username", "assignment__title")
    date_hierarchy = "submitted_at"
    list_select_related = ("assignment", "student", "run")
    raw_id_fields = ("run",)
    autocomplete_fields = ("student",)

    @admin.display(description="run status", ordering="run__status")
    def run_status(self, obj) -> str:
        return obj.run.status


@admin.register(Extension)
class ExtensionAdmin(admin.ModelAdmin):
    list_display = ("assignment", "student", "due_at")
    list_filter = ("assignment__classroom",)
    search_fields = ("student__username", "assignment__title")
    list_select_related = ("assignment", "student")
    autocomplete_fields = ("student",)


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("classroom", "student", "origin", "joined_at")
    list_filter = ("origin", "classroom")
    search_fields = ("student__username", "classroom__name")
    list_select_related = ("classroom", "student")
    autocomplete_fields = ("student",)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("classroom", "student", "invited_by", "created_at")
    search_fields = ("student__username", "classroom__name")
    list_select_related = ("classroom", "student", "invited_by")
    autocomplete_fields = ("student", "invited_by")
