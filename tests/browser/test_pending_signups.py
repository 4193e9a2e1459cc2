"""A teacher approves new sign-ups in bulk in a real browser (issue 39 item 3): the waiting
list's checkboxes, the approve button, no serious axe violation, in both languages and on a
phone."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from teaching.models import Membership, PendingSignup
from tests.base import make_school
from tests.browser.conftest import PHONE, WIDE, shot
from tests.browser.test_accessibility import violations


@pytest.mark.parametrize(("language", "width"), [("en", WIDE), ("mr", PHONE)])
def test_the_teacher_ticks_and_approves_waiting_sign_ups(site, language, width):
    school = make_school()
    school.class_a.approve_signups = True
    school.class_a.save()
    users = get_user_model().objects
    kids = [users.create(username=f"kid{i}", first_name=f"Kid {i}") for i in range(3)]
    for kid in kids:
        PendingSignup.objects.create(classroom=school.class_a, student=kid, made_here=True)

    page = site.page(school.teacher, width=width)
    page.context.add_cookies([{"name": "django_language", "value": language, "url": site.url}])
    page.goto(f"{site.url}/classes/{school.class_a.pk}/accounts/")
    page.locator("#approvals").scroll_into_view_if_needed()
    assert violations(page, None) == []
    shot(page, f"pending-signups-{language}-{width}")

    page.locator(f"label[for=pending-{kids[0].pk}]").click()  # the username ticks it too
    page.locator(f"#pending-{kids[1].pk}").check()
    page.locator("#pending-form button[value=approve]").click()
    page.locator(f"#pending-{kids[2].pk}").wait_for()
    assert page.locator("#pending-form input[name=student]").count() == 1
    approved = Membership.objects.filter(classroom=school.class_a, student__in=kids[:2])
    assert approved.count() == 2
    assert not site.seen.errors, "\n".join(site.seen.errors)
