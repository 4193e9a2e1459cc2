"""Changing one's own password, which also ends a one-time password."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import PasswordChangeView
from django.urls import reverse_lazy
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.passwords import password_changed


class OwnPasswordChangeView(PasswordChangeView):
    """Django's password change (old password, new one twice, the validators)."""

    template_name = "registration/password_change_form.html"
    success_url = reverse_lazy("home")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["first_time"] = Profile.objects.filter(
            user=self.request.user, must_change_password=True
        ).exists()
        return context

    def form_valid(self, form):
        response = super().form_valid(form)
        password_changed(self.request.user)
        messages.success(self.request, _("Your password is changed. Use it from now on."))
        return response

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 422
        return response
