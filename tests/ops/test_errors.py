"""Django's own pages never leak through: a refused form (CSRF) and a bad request (400) get
the site's pages, in the reader's language."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

HX = {"HTTP_HX_REQUEST": "true"}


def marathi(client: Client) -> Client:
    client.cookies["django_language"] = "mr"
    return client


@pytest.mark.django_db
def test_a_form_refused_by_csrf_gets_the_sites_page_in_both_languages():
    client = Client(enforce_csrf_checks=True)
    refused = client.post(reverse("set-language"), {"language": "mr", "next": "/"})
    assert refused.status_code == 403
    assert "The form could not be sent" in refused.text
    assert "Nothing was changed." in refused.text
    assert 'class="brand"' in refused.text  # the site's look, header and all
    assert "CSRF verification" not in refused.text and "DEBUG" not in refused.text

    in_marathi = marathi(Client(enforce_csrf_checks=True)).post(reverse("logout"))
    assert in_marathi.status_code == 403
    assert 'lang="mr"' in in_marathi.text
    assert "The form could not be sent" not in in_marathi.text
    assert "DEBUG" not in in_marathi.text and "CSRF verification" not in in_marathi.text

    htmx = Client(enforce_csrf_checks=True).post(reverse("logout"), **HX)
    assert htmx.status_code == 403
    assert "The form could not be sent" in htmx.text and "<html" not in htmx.text


@pytest.mark.django_db
def test_a_bad_request_gets_the_sites_400_page_in_both_languages():
    answer = Client().get("/", HTTP_HOST="not a host!")
    assert answer.status_code == 400
    assert "The site could not read this request" in answer.text
    assert "site.css" in answer.text
    in_marathi = marathi(Client()).get("/", HTTP_HOST="not a host!")
    assert in_marathi.status_code == 400
    assert 'lang="mr"' in in_marathi.text
    assert "The site could not read this request" not in in_marathi.text
    assert "Bad Request" not in in_marathi.text
