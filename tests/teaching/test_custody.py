"""A teacher cannot take over another class's student; the ways in that are theirs still work.

The attack (issue 21, H1): a teacher of class B adds class A's student by username, then
resets her password through class B and logs in as her.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.models import PasswordReset
from teaching.models import Invitation, Membership
from tests.base import PASSWORD, make_user


def reset(client, classroom, student):
    return client.post(reverse("student-password-reset", args=[classroom.pk, student.pk]))


def test_adding_another_class_s_student_by_name_only_invites_her(client, school):
    client.force_login(school.other_teacher)
    response = client.post(
        reverse("student-add", args=[school.class_b.pk]), {"username": "alice"}, follow=True
    )
    assert "They join once they accept" in response.content.decode()
    assert not Membership.objects.filter(classroom=school.class_b, student=school.alice).exists()
    assert Invitation.objects.filter(classroom=school.class_b, student=school.alice).exists()
    # Not a member, so the class's reset does not know her.
    assert reset(client, school.class_b, school.alice).status_code == 404
    school.alice.refresh_from_db()
    assert school.alice.check_password(PASSWORD)
    assert not PasswordReset.objects.exists()


def test_an_accepted_invitation_still_gives_no_reset(client, school):
    Invitation.objects.create(
        classroom=school.class_b, student=school.alice, invited_by=school.other_teacher
    )
    client.force_login(school.alice)
    (invitation,) = Invitation.objects.all()
    client.post(reverse("invitation-accept", args=[invitation.pk]))
    membership = Membership.objects.get(classroom=school.class_b, student=school.alice)
    assert membership.origin == Membership.Origin.INVITED

    client.force_login(school.other_teacher)
    response = reset(client, school.class_b, school.alice)
    assert response.status_code == 403
    assert "only an admin can reset" in response.content.decode()
    school.alice.refresh_from_db()
    assert school.alice.check_password(PASSWORD)


def test_joining_with_the_code_gives_no_reset_while_in_another_teachers_class(client, school):
    client.force_login(school.alice)
    client.post(reverse("class-join"), {"code": school.class_b.join_code})
    membership = Membership.objects.get(classroom=school.class_b, student=school.alice)
    assert membership.origin == Membership.Origin.CODE

    client.force_login(school.other_teacher)
    response = reset(client, school.class_b, school.alice)
    assert response.status_code == 403
    assert "another teacher runs" in response.content.decode()
    page = client.get(reverse("class-accounts", args=[school.class_b.pk])).content.decode()
    assert "another teacher runs" in page
    assert reverse("student-password-reset", args=[school.class_b.pk, school.alice.pk]) not in page
    # Her own teacher's class made her account, but she now also belongs to class B.
    client.force_login(school.teacher)
    assert reset(client, school.class_a, school.alice).status_code == 403


def test_the_class_that_made_the_account_resets_it_and_the_reset_is_recorded(client, school):
    client.force_login(school.teacher)
    response = reset(client, school.class_a, school.alice)
    assert response.status_code == 200
    (slip,) = response.context["slips"]
    school.alice.refresh_from_db()
    assert school.alice.check_password(slip.password)
    (record,) = PasswordReset.objects.all()
    assert (record.student, record.reset_by, record.classroom) == (
        school.alice,
        school.teacher,
        school.class_a,
    )
    assert record.reset_by_username == "tara"


def test_a_student_who_signed_up_with_the_code_can_be_reset_by_that_teacher(client, school):
    client.post(
        reverse("signup"),
        {
            "code": school.class_a.join_code,
            "username": "dev",
            "first_name": "Dev",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
    )
    dev = get_user_model().objects.get(username="dev")
    client.force_login(school.teacher)
    assert reset(client, school.class_a, dev).status_code == 200


def test_the_invited_student_accepts_or_declines_on_their_home_page(client, school):
    carol = make_user("carol")
    client.force_login(school.teacher)
    client.post(reverse("student-add", args=[school.class_a.pk]), {"username": "carol"})
    class_page = client.get(reverse("class-detail", args=[school.class_a.pk])).content.decode()
    assert "Invited, not yet accepted: carol" in class_page

    # Someone else cannot answer it.
    (invitation,) = Invitation.objects.all()
    client.force_login(school.bob)
    assert client.post(reverse("invitation-accept", args=[invitation.pk])).status_code == 404

    client.force_login(carol)
    home = client.get(reverse("home")).content.decode()
    assert "tara invites you to Class A." in home
    client.post(reverse("invitation-decline", args=[invitation.pk]))
    assert not Invitation.objects.exists()
    assert not school.class_a.students.filter(pk=carol.pk).exists()
    assert "invites you to" not in client.get(reverse("home")).content.decode()


def test_an_admin_sees_every_reset(client, school):
    client.force_login(school.teacher)
    reset(client, school.class_a, school.alice)
    admin = get_user_model().objects.create_superuser("root", password="x-long-pass-99")
    client.force_login(admin)
    page = client.get(reverse("admin:accounts_passwordreset_changelist")).content.decode()
    assert "alice" in page and "tara" in page
