"""Roster import: every good row an account with a one-time password, any bad row none."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.models import Profile
from accounts.roster import parse_roster
from teaching.models import Membership


def import_(client, school, **data):
    client.force_login(school.teacher)
    return client.post(reverse("roster-import", args=[school.class_a.pk]), data)


def test_it_reads_names_and_optional_usernames_skipping_headings_and_blanks():
    rows = parse_roster("name,username\nAsha Patil\n\n  Ravi   Deshmukh , ravi_d \n")
    assert [(r.line, r.name, r.username) for r in rows] == [
        (2, "Asha Patil", ""),
        (4, "Ravi Deshmukh", "ravi_d"),
    ]


def test_it_makes_an_account_per_student_with_a_slip(client, school):
    response = import_(client, school, text="Asha Patil\nRavi Deshmukh,ravi_d\nमीरा जोशी\n")
    assert response.status_code == 200
    slips = response.context["slips"]
    # A name in Devanagari is written in Latin letters, as a student can type and read it.
    assert [s.username for s in slips] == ["asha.patil", "ravi_d", "mira.joshi"]
    for slip in slips:
        user = get_user_model().objects.get(username=slip.username)
        assert user.check_password(slip.password)
        assert Profile.objects.get(user=user).must_change_password
        assert Membership.objects.filter(classroom=school.class_a, student=user).exists()
        assert slip.password in response.content.decode()
    assert response["Cache-Control"].startswith("max-age=0")


def test_devanagari_names_become_readable_usernames_each_its_own(client, school):
    text = "आशा पाटील\nआशा पाटिल\nराहुल देशमुख\n★\n"  # two names, one spelling
    slips = import_(client, school, text=text).context["slips"]
    assert [s.username for s in slips] == ["asha.patil", "asha.patil2", "rahul.deshmukh", "student"]


def test_slips_are_printed_in_both_languages(client, school):
    from django.utils import translation

    for language, other in (("en", "एकदाच चालणारा पासवर्ड"), ("mr", "One-time password")):
        client.cookies["django_language"] = language
        with translation.override(language):
            html = import_(client, school, text=f"Student {language}").content.decode()
        assert other in html, language


def test_slips_read_in_every_language_of_the_site_with_no_template_edit(client, school, settings):
    """A language added to settings.LANGUAGES is on every slip, after the page's own."""
    import re

    from django.utils import translation

    settings.LANGUAGES = [*settings.LANGUAGES, ("hi", "हिन्दी")]
    client.cookies["django_language"] = "mr"
    with translation.override("mr"):
        html = import_(client, school, text="Asha Patil").content.decode()
    assert re.findall(r'class="slip-note other-language" lang="(\w+)"', html) == ["en", "hi"]
    assert html.count('class="other-language" lang="hi"') == 3  # website, username, password


def test_students_are_listed_in_natural_order(client, school):
    from teaching.people import natural_key

    names = ["student10", "Student2", "asha", "student1"]
    assert sorted(names, key=natural_key) == ["asha", "student1", "Student2", "student10"]
    import_(client, school, text="\n".join(f"Pupil {n}" for n in (10, 2, 1)))
    html = client.get(reverse("class-accounts", args=[school.class_a.pk])).content.decode()
    assert html.index("pupil.1<") < html.index("pupil.2<") < html.index("pupil.10<")


def test_made_usernames_avoid_taken_ones(client, school):
    get_user_model().objects.create(username="asha.patil")
    slips = import_(client, school, text="Asha Patil").context["slips"]
    assert slips[0].username == "asha.patil2"


def test_it_takes_a_csv_upload(client, school):
    upload = SimpleUploadedFile("roster.csv", "\ufeffname,username\nMeera Joshi,meera_j\n".encode())
    response = import_(client, school, file=upload)
    assert response.status_code == 200
    assert get_user_model().objects.get(username="meera_j").first_name == "Meera Joshi"


def test_bad_rows_are_reported_per_line_and_nothing_is_made(client, school):
    before = get_user_model().objects.count()
    text = "\n".join(
        [
            "Asha Patil",  # 1: fine
            ",asha_no_name",  # 2: empty name
            "Ravi,alice",  # 3: username taken (alice exists)
            "Meera,meera",  # 4: fine
            "Meera Two,MEERA",  # 5: same username as line 4
            "Asha Patil",  # 6: same name as line 1, no username
            "Dev,has space",  # 7: not a username
        ]
    )
    response = import_(client, school, text=text)
    assert response.status_code == 422
    problems = {p.line: p.message for p in response.context["problems"]}
    assert sorted(problems) == [2, 3, 5, 6, 7]
    assert "empty" in problems[2]
    assert "already taken" in problems[3]
    assert "line 4" in problems[5]
    assert "line 1" in problems[6]
    assert "Latin letters a-z" in problems[7]
    assert get_user_model().objects.count() == before
    assert "No account was made" in response.content.decode()


def test_an_empty_list_is_refused(client, school):
    response = import_(client, school, text="name\n\n")
    assert response.status_code == 422
    assert "empty" in response.context["problems"][0].message


def test_a_file_that_is_not_utf8_is_refused_next_to_the_field(client, school):
    upload = SimpleUploadedFile("roster.csv", "Zoë\n".encode("utf-16"))
    response = import_(client, school, file=upload)
    assert response.status_code == 422
    assert "UTF-8" in response.context["form"].errors["file"][0]


def test_the_teacher_resets_a_students_password_with_a_new_slip(client, school):
    client.force_login(school.teacher)
    url = reverse("student-password-reset", args=[school.class_a.pk, school.alice.pk])
    response = client.post(url)
    assert response.status_code == 200
    (slip,) = response.context["slips"]
    school.alice.refresh_from_db()
    assert school.alice.check_password(slip.password)
    assert Profile.objects.get(user=school.alice).must_change_password


def test_a_teacher_cannot_reset_another_teachers_account(client, school):
    Membership.objects.create(classroom=school.class_a, student=school.other_teacher)
    client.force_login(school.teacher)
    url = reverse("student-password-reset", args=[school.class_a.pk, school.other_teacher.pk])
    assert client.post(url).status_code == 403


def test_a_username_taken_mid_import_makes_nothing(client, school, monkeypatch):
    """Another import taking a name between the check and the insert: all rolled back."""
    monkeypatch.setattr("accounts.roster._usernames_for", lambda rows: ["fresh.one", "alice"])
    before = (get_user_model().objects.count(), Membership.objects.count(), Profile.objects.count())
    response = import_(client, school, text="Fresh One\nAlice Again")
    assert response.status_code == 409
    assert "Nothing was made" in response.content.decode()
    after = (get_user_model().objects.count(), Membership.objects.count(), Profile.objects.count())
    assert after == before


def test_a_stray_quote_is_refused_on_its_line_not_merged(client, school):
    """The attack's D8: one `"` used to make one account of the next four students."""
    before = get_user_model().objects.count()
    response = import_(client, school, text='name\n"Quote Start\nRavi Two\nMeera Three\n')
    assert response.status_code == 422
    assert "Line 2 opens a quote" in response.content.decode()
    assert get_user_model().objects.count() == before


def test_an_archived_class_takes_no_roster(client, school):
    """The attack's D9: an archived class is read-only, its roster included."""
    from django.utils import timezone

    school.class_a.archived_at = timezone.now()
    school.class_a.save()
    before = get_user_model().objects.count()
    response = import_(client, school, text="New Kid\n")
    assert response.status_code == 403
    assert get_user_model().objects.count() == before
