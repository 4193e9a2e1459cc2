"""A roster or a sign-up with hostile text: a message on the page, never a 500 (issue 21, M2).

Each case from the attack report, then a property test that throws odd text (NUL, CR-only
line endings, a BOM, very long cells, other scripts) at the roster upload and the pasted list.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.usernames import username_problem
from tests.base import make_user


def upload(client, school, data: bytes):
    client.force_login(school.teacher)
    return client.post(
        reverse("roster-import", args=[school.class_a.pk]),
        {"file": SimpleUploadedFile("roster.csv", data)},
    )


def problems_of(response) -> list[str]:
    return [p.message for p in response.context["problems"]]


def test_a_username_over_150_characters_is_refused_on_its_line(client, school):
    response = upload(client, school, f"Asha,{'a' * 151}\n".encode())
    assert response.status_code == 422
    assert any("at most 150 characters" in m for m in problems_of(response))


def test_a_nul_in_a_name_or_a_username_is_refused(client, school):
    response = upload(client, school, b"As\x00ha\nRavi,ra\x00vi\n")
    assert response.status_code == 422
    messages = problems_of(response)
    assert any("control character" in m for m in messages)
    assert any("invisible or control character" in m for m in messages)
    assert get_user_model().objects.filter(first_name__startswith="Ravi").count() == 0


def test_old_excel_line_endings_and_a_bom_are_read(client, school):
    response = upload(client, school, "\ufeffname,username\rAsha Patil,asha_p\rRavi\r".encode())
    assert response.status_code == 200
    assert [s.username for s in response.context["slips"]] == ["asha_p", "ravi"]
    assert get_user_model().objects.filter(first_name="Asha Patil", username="asha_p").exists()


def test_fullwidth_and_cyrillic_lookalikes_of_an_existing_username_are_refused(client, school):
    make_user("asha")
    response = upload(client, school, "Asha One,ａｓｈａ\nAsha Two,аsha\n".encode())
    assert response.status_code == 422
    first, second = problems_of(response)
    assert "already taken" in first  # NFKC makes it plain asha
    assert "Latin letters a-z" in second  # a new username is ASCII


def test_a_fullwidth_username_becomes_one_that_can_log_in(client, school):
    response = upload(client, school, "Meera,ｍｅｅｒａ\n".encode())
    (slip,) = response.context["slips"]
    assert slip.username == "meera"
    client.logout()
    login = client.post(reverse("login"), {"username": "ｍｅｅｒａ", "password": slip.password})
    assert login.status_code == 302


@pytest.mark.parametrize(
    ("username", "says"),
    [
        ("admin", "kept for the site"),
        ("Ad.Min", "kept for the site"),
        (".", "at least one letter"),
        ("_", "at least one letter"),
        ("@", "at least one letter"),
        ("ásha", "Latin letters a-z"),
        ("a\u200bsha", "invisible"),
    ],
)
def test_sign_up_refuses_reserved_and_odd_usernames_in_words(client, school, username, says):
    response = client.post(
        reverse("signup"),
        {
            "code": school.class_a.join_code,
            "username": username,
            "first_name": "Someone",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
    )
    assert response.status_code == 422
    assert says in " ".join(response.context["form"].errors["username"])
    assert not get_user_model().objects.filter(first_name="Someone").exists()


def test_an_older_non_ascii_username_keeps_its_lookalike_out(db):
    make_user("аsha")  # Cyrillic а, made before usernames were ASCII
    assert "already taken" in username_problem("asha")
    assert username_problem("asha2") == ""


odd_text = st.lists(
    st.sampled_from(
        list("aZ9 ,.;\"'@_-+") + ["\x00", "\r", "\n", "\r\n", "\ufeff", "\u200b", "ａ", "а", "म"]
    ),
    max_size=60,
).map("".join) | st.builds(
    lambda n, c: c * n, st.integers(140, 400), st.sampled_from(["a", "म", ",", "\r"])
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=odd_text, as_file=st.booleans())
def test_any_roster_text_gives_slips_or_messages_never_a_500(client, school, text, as_file):
    client.force_login(school.teacher)
    url = reverse("roster-import", args=[school.class_a.pk])
    data = {"file": SimpleUploadedFile("r.csv", text.encode())} if as_file else {"text": text}
    response = client.post(url, data)
    assert response.status_code in (200, 422), response.status_code
    if response.status_code == 200:
        for slip in response.context["slips"]:
            assert username_problem(slip.username, check_taken=False) == ""
