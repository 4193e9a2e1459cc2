from django.contrib import admin

from lti.models import AssignmentLink, ClassLink, ScoreSent


@admin.register(ClassLink)
class ClassLinkAdmin(admin.ModelAdmin):
    list_display = ("context", "classroom", "created_at")


@admin.register(AssignmentLink)
class AssignmentLinkAdmin(admin.ModelAdmin):
    list_display = ("resource_link", "assignment", "lineitem_url")


@admin.register(ScoreSent)
class ScoreSentAdmin(admin.ModelAdmin):
    """Every score sent to an LMS; a failed one keeps the LMS's answer."""

    list_display = ("submission", "score", "out_of", "status", "sent_at")
    list_filter = ("status",)
    readonly_fields = [f.name for f in ScoreSent._meta.fields]
