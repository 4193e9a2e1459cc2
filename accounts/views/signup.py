"""A student makes their own account with a class's join code."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.signup import SignupForm
from accounts.signup_throttle import remember_address, signup_refusal
from accounts.throttle import client_address
from teaching.approvals import waiting_words

# Several backends are configured (axes first): say which one logged the new student in.
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        messages.info(request, _("You already have an account: join a class with its code here."))
        code = request.GET.get("code", "")[:32]
        return redirect(reverse("class-list") + (f"?{urlencode({'code': code})}" if code else ""))
    if request.method == "GET":
        form = SignupForm(initial={"code": request.GET.get("code", "")})
        return render(request, "accounts/signup.html", {"form": form})
    form = SignupForm(request.POST)
    address = client_address(request)
    if form.is_valid() and (refusal := signup_refusal(address, form.cleaned_data["code"])):
        form.add_error(None, refusal)
        return render(request, "accounts/signup.html", {"form": form}, status=429)
    if form.is_valid():
        try:
            user = form.save()
        except IntegrityError:  # the same username chosen at the same moment by someone else
            form.add_error("username", _("This username was just taken. Choose another."))
        else:
            remember_address(user, address)
            login(request, user, backend=MODEL_BACKEND)
            classroom = form.cleaned_data["code"]
            if classroom.approve_signups:
                messages.info(request, waiting_words(classroom))
                return redirect("class-list")
            messages.success(request, _("Welcome! You are in %(c)s.") % {"c": classroom})
            return redirect(classroom)
    return render(request, "accounts/signup.html", {"form": form}, status=422)
