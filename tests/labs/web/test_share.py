"""Share this setup: a short link (letters and digits, no account needed to open it) that
opens the lab with the same values and in the language it was shared in."""

from __future__ import annotations

import re

from django.urls import reverse

from labs.runs.shares import ALPHABET, SharedSetup
from tests.labs.web.test_views import GOOD, HX

LINK = re.compile(r'value="(http://testserver/s/([a-z0-9]+)/)"')


def test_a_shared_setup_opens_with_its_values_and_language_without_an_account(client, people):
    client.force_login(people.alice)
    sent = {**GOOD, "per_worker": "110"}
    answer = client.post(
        reverse("lab-share", args=["drain"]), sent, HTTP_ACCEPT_LANGUAGE="mr", **HX
    )
    assert answer.status_code == 200
    link, code = LINK.search(answer.content.decode()).groups()
    assert len(link) < 40 and set(code) <= set(ALPHABET)
    # The same values again: the same link, no new row.
    again = client.post(reverse("lab-share", args=["drain"]), sent, HTTP_ACCEPT_LANGUAGE="mr", **HX)
    assert LINK.search(again.content.decode()).group(2) == code
    assert SharedSetup.objects.count() == 1

    client.logout()
    opened = client.get(f"/s/{code}/", follow=True)
    assert opened.status_code == 200
    html = opened.content.decode()
    assert 'id="id_per_worker" value="110"' in html or 'value="110"' in html
    assert opened.wsgi_request.LANGUAGE_CODE == "mr"  # the language it was shared in
    assert client.cookies["django_language"].value == "mr"


def test_a_bad_setup_or_an_unknown_code_is_refused_with_a_reason(client, people):
    client.force_login(people.alice)
    bad = client.post(reverse("lab-share", args=["drain"]), {**GOOD, "per_worker": "-5"}, **HX)
    assert bad.status_code == 422 and "Fix the values" in bad.content.decode()
    assert not SharedSetup.objects.exists()
    assert client.get("/s/nosuchcd/").status_code == 404
    client.logout()
    assert client.post(reverse("lab-share", args=["drain"]), GOOD).status_code == 302  # log in
