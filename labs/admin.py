from django.contrib import admin

from labs.runs.models import Run


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("created_at", "lab", "name", "owner", "status", "attempts", "finished_at")
    list_filter = ("status", "lab")
    search_fields = ("owner__username", "lab", "id", "name")
    date_hierarchy = "created_at"
    list_select_related = ("owner",)
    readonly_fields = (
        "id",
        "created_at",
        "started_at",
        "finished_at",
        "lease_expires_at",
        "stored_result",
    )
