"""The language switch: picked once, remembered for visitors (cookie) and people (profile)."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.urls import reverse

from accounts.models import Profile
from tests.base import PASSWORD, make_user

COOKIE = settings.LANGUAGE_COOKIE_NAME


def page_language(response) -> str:
    return re.search(r'<html lang="([^"]+)"', response.content.decode())[1]


def switch(client, code: str, next_url: str = "/"):
    return client.post(reverse("set-language"), {"language": code, "next": next_url})


@pytest.mark.django_db
def test_it_follows_the_browser_until_someone_picks(client):
    assert page_language(client.get("/")) == "en"
    assert page_language(client.get("/", headers={"accept-language": "mr,en;q=0.5"})) == "mr"


@pytest.mark.django_db
def test_it_remembers_a_visitors_choice_in_the_cookie(client):
    response = switch(client, "mr", "/units/lesson-12/")
    assert response.status_code == 302
    assert response["Location"] == "/units/lesson-12/"
    assert response.cookies[COOKIE].value == "mr"
    # The cookie wins over the browser from now on.
    assert page_language(client.get("/", headers={"accept-language": "en"})) == "mr"


@pytest.mark.django_db
def test_it_shows_the_switch_on_every_page_with_each_language_named_in_itself(client):
    html = client.get("/").content.decode()
    assert reverse("set-language") in html
    assert 'lang="mr" aria-pressed="false">मराठी</button>' in html
    assert 'lang="en" aria-pressed="true">English</button>' in html


@pytest.mark.django_db
def test_it_saves_a_signed_in_persons_choice_in_their_profile(client):
    asha = make_user("asha")
    client.force_login(asha)
    switch(client, "mr")
    assert Profile.of(asha).language == "mr"


@pytest.mark.django_db
def test_the_profile_wins_at_login_and_stays_after_logout_and_login_again(client):
    asha = make_user("asha")
    Profile.objects.create(user=asha, language="mr")
    english = {"accept-language": "en"}
    client.cookies[COOKIE] = "en"  # e.g. a shared school computer left in English
    response = client.post(reverse("login"), {"username": "asha", "password": PASSWORD})
    assert response.status_code == 302
    assert response.cookies[COOKIE].value == "mr"
    assert page_language(client.get("/", headers=english)) == "mr"
    client.post(reverse("logout"))
    assert page_language(client.get("/", headers=english)) == "mr"
    client.post(reverse("login"), {"username": "asha", "password": PASSWORD})
    assert page_language(client.get("/", headers=english)) == "mr"


@pytest.mark.django_db
def test_a_profile_language_set_elsewhere_applies_on_the_next_login(client):
    ravi = make_user("ravi")
    client.force_login(ravi)
    assert page_language(client.get("/")) == "en"
    Profile.objects.create(user=ravi, language="mr")  # e.g. switched on another device
    client.force_login(ravi)
    assert page_language(client.get("/")) == "mr"


@pytest.mark.django_db
def test_a_blank_profile_follows_the_browser(client):
    client.force_login(make_user("meera"))
    assert page_language(client.get("/", headers={"accept-language": "mr"})) == "mr"
    assert page_language(client.get("/", headers={"accept-language": "en"})) == "en"


@pytest.mark.django_db
@pytest.mark.parametrize("target", ["https://elsewhere.example/", "//elsewhere.example/x", ""])
def test_it_never_sends_people_off_the_site(client, target):
    response = switch(client, "mr", target)
    assert response["Location"] == reverse("home")


@pytest.mark.django_db
def test_it_refuses_an_unknown_language(client):
    response = switch(client, "fr")
    assert response.status_code == 400
    assert COOKIE not in response.cookies


@pytest.mark.django_db
def test_it_only_switches_on_post(client):
    assert client.get(reverse("set-language") + "?language=mr").status_code == 405
