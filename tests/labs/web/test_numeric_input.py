"""Every numeric parameter of every lab, fed odd text: never a 500 (issue 21, M1).

Through the query string (a "try next" link, hand-edited) the page opens with the default
instead; through the form the field says what is wrong (422). The values are the ones the
attack report used (nan, inf) and their relatives: huge numbers, NUL, other scripts' digits,
odd separators, line endings.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labs.catalogue.entries import LABS
from labs.text import parse_decimal, parse_whole
from labs.web.forms import LabForm
from tests.base import make_user

NUMERIC = ("int", "float", "int_list", "float_list")
ODD = [
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e15", "9" * 400,
    "1" * 5000, "0x10", "1_0", "٣", "１２", "²", "5\x00", "\x00", "\r", "5\r\n", "", " ",
    "1e", ".", "-", "+", "1,2,nan", "nan,nan", "3;inf", "1,,2", "1.5.5", "१२",
]  # fmt: skip
odd_values = st.sampled_from(ODD) | st.text(max_size=12) | st.floats().map(repr)


def numeric_params(lab):
    return [p for p in lab.params if p.kind in NUMERIC]


def valid_data(lab) -> dict[str, str]:
    """The form's defaults as a browser would post them."""
    form = LabForm(lab)
    data = {}
    for name, field in form.fields.items():
        value = form.get_initial_for_field(field, name)
        if isinstance(value, bool):
            if value:
                data[name] = "on"
            continue
        data[name] = field.prepare_value(value) if value is not None else ""
    return {k: str(v) for k, v in data.items()}


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e309", "٣", "１２", "1" * 5000, "5\x00"])
def test_the_one_parser_refuses_what_a_person_does_not_mean(text):
    for parse in (parse_whole, parse_decimal):
        with pytest.raises(ValueError):
            parse(text)


def test_the_one_parser_reads_plain_numbers():
    assert (
        parse_whole(" 12 ") == 12 and parse_decimal("2.5") == 2.5 and parse_decimal("1e3") == 1000
    )


def test_a_nan_in_a_try_next_link_opens_the_default_not_a_500(client, db):
    response = client.get("/labs/fanout-live/?visibility_timeout_s=nan")
    assert response.status_code == 200


@pytest.mark.parametrize("lab", LABS, ids=[lab.slug for lab in LABS])
@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_odd_numbers_through_the_query_string_and_the_form_never_give_a_500(
    client, db, published, lab, data
):
    params = numeric_params(lab)
    if not params:
        return
    param = data.draw(st.sampled_from(params), label="param")
    value = data.draw(odd_values, label="value")
    url = reverse("lab-detail", args=[lab.slug])
    got = client.get(url, {param.name: value})
    assert got.status_code == 200, (lab.slug, param.name, value)

    if not client.session.get("_auth_user_id"):
        client.force_login(make_user(f"prop-{lab.slug}"[:150]))
    posted = valid_data(lab) | {param.name: value}
    sent = client.post(url, posted, headers={"hx-request": "true"})
    assert sent.status_code < 500, (lab.slug, param.name, value, sent.status_code)
    if sent.status_code == 422:  # refused in words (this field, or a rule across fields)
        assert sent.context["form"].errors, (lab.slug, param.name, value)


@pytest.mark.parametrize("digits", ["٣", "१२", "１２", "²", "nan", "inf"])
def test_a_teacher_s_criteria_rubric_and_scores_and_a_control_take_0_9_only(db, school, digits):
    from labs.capstone.control_panel import value_problem
    from labs.experiments.trapped.controls import control_spec
    from teaching.criteria import CriteriaError, parse_criteria
    from teaching.handin import FeedbackForm
    from teaching.rubric import parse_rubric

    lab = school.assignment_a.get_lab()
    with pytest.raises(CriteriaError):
        parse_criteria(f"peak_backlog < {digits}", lab.figures)
    with pytest.raises(CriteriaError):
        parse_rubric(f"Names the loop: {digits}")
    school.assignment_a.rubric = [{"item": "Names the loop", "max": 5}]
    form = FeedbackForm({"score_0": digits}, assignment=school.assignment_a)
    assert not form.is_valid() and "score_0" in form.errors
    assert value_problem(control_spec("admission_limit"), digits) != ""
