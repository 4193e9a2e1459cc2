"""The `retried-payment` lab: a timed-out payment retried, without and with an idempotency key."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, refusal, run


def test_at_the_lessons_figures_the_retries_charge_three_fees_too_many_without_a_key():
    s = run("retried-payment")["summary"]
    assert (s["payments"], s["calls"], s["late_answers"]) == (4, 7, 3)
    assert (s["charges_without_key"], s["double_charges_without_key"]) == (7, 3)
    assert (s["charges_with_key"], s["double_charges_with_key"]) == (4, 0)
    assert (s["answered_from_key"], s["charged_but_told_failed"]) == (2, 0)


def test_the_page_says_the_double_charges_and_the_keys_first_answer():
    text = headline("retried-payment", run("retried-payment"))
    assert "4 payments made 7 calls: 3 answers came after the client's 1,000 ms timeout" in text
    assert "7 charges for 4 payments, 3 of them extra, on 2 payments." in text
    assert "charged once per payment, 4 charges and 0 extra, and answered 2 retries" in text
    assert "gave up" not in text


def test_the_table_shows_each_retry_with_a_key_getting_the_first_charge_back():
    rows = run("retried-payment")["tables"]["each_call"]["rows"]
    fourth = [row for row in rows if row[0] == 4]
    assert [row[3] for row in fourth] == ["ch-4-1", "ch-4-2", "ch-4-3"]
    assert fourth[0][4] == "ch-4-1"
    assert [row[4]["values"]["charge"] for row in fourth[1:]] == ["ch-4-1", "ch-4-1"]


def test_a_payment_given_up_on_is_said_to_need_reconciliation():
    result = run("retried-payment", late=[4, 4, 4, 4])
    text = headline("retried-payment", result)
    assert result["summary"]["charged_but_told_failed"] == 1
    assert "The client gave up on 1 payment with no answer in time" in text
    assert "yet the money had gone, with or without a key" in text
    assert "reconciliation" in text


def test_with_no_retry_nothing_is_charged_twice():
    text = headline("retried-payment", run("retried-payment", retries=0))
    assert "With no retry, nothing was charged twice even without an idempotency key" in text


def test_it_refuses_an_answer_slower_than_the_timeout():
    assert "provider_ms" in refusal("retried-payment", provider_ms=1_000)


def test_late_answers_past_the_last_payment_are_left_out_and_said():
    # The lesson's late answers (2, 4, 4) with one payment fewer: its slider's first step.
    result = run("retried-payment", payments=3)
    s = result["summary"]
    assert (s["payments"], s["calls"], s["late_answers"], s["charges_without_key"]) == (3, 4, 1, 4)
    assert result["params"]["late"] == [2, 4, 4]  # kept as the student typed it
    lines = lab("retried-payment").headline(result)
    assert lines[0] == (
        "Payment 4 is not in this run, which stops at payment 3, so its entries under "
        "'Answers that come late' are left out."
    )
    assert lines[1].startswith("3 payments made 4 calls: 1 answer came after")


def test_several_late_payments_past_the_last_are_named_together():
    text = headline("retried-payment", run("retried-payment", payments=1, late=[1, 3, 2, 3]))
    assert "Payments 2 and 3 are not in this run, which stops at payment 1" in text


def test_a_run_with_only_its_own_late_payments_says_nothing_left_out():
    assert "left out" not in headline("retried-payment", run("retried-payment"))


def test_the_chart_draws_calls_and_charges_per_payment():
    (chart,) = lab("retried-payment").charts(run("retried-payment"))
    bars = {t["name"]: t["y"] for t in chart["data"]}
    assert bars["charges without a key"] == [1, 2, 1, 3]
    assert bars["charges with a key"] == [1, 1, 1, 1]
