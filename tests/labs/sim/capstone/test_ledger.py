"""The payments ledger of the capstone: every payment ends owned and answered, never erased."""

from __future__ import annotations

from labs.sim.capstone.obligations import CHARGED, STATE, TABLE_ROWS, Ledger


def states(ledger: Ledger) -> dict[str, int]:
    return {state: n for state, n in ledger.counts.items() if n}


def test_it_confirms_a_payment_served_while_its_caller_waits():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    pay = ledger.new(0.0)
    ledger.admitted(pay)
    ledger.served(pay, 0.3, caller_waiting=True)
    assert states(ledger) == {"confirmed": 1}
    assert ledger.charges == 1
    assert pay[0] == "pay-000001"


def test_it_leaves_a_timed_out_payment_unknown_when_nobody_reconciles():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    pay = ledger.new(0.0)
    ledger.admitted(pay)
    ledger.gave_up(pay, 1.0)
    ledger.served(pay, 9.0, caller_waiting=False)  # the money moved; the caller saw a timeout
    assert states(ledger) == {"unknown": 1}
    assert ledger.charges == 1
    assert pay[CHARGED]


def test_it_loses_a_payment_whose_last_message_is_dropped_naively():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    ledger.drop_payments = True
    pay = ledger.new(0.0)
    ledger.admitted(pay)
    ledger.gave_up(pay, 1.0)
    ledger.discarded(pay, 2.0, caller_waiting=False)
    assert states(ledger) == {"lost": 1}
    assert ledger.charges == 0
    assert ledger.table(3.0)[-1] == {
        "operation_id": "pay-000001",
        "state": "lost",
        "owner": "nobody",
        "age_s": 2.0,
    }


def test_it_fails_cleanly_a_payment_refused_at_every_attempt():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    pay = ledger.new(0.0)
    ledger.gave_up(pay, 0.5)  # every attempt got a fast 429: nothing of it can still run
    assert states(ledger) == {"failed": 1}


def test_it_reconciles_by_operation_id_without_a_second_charge():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    ledger.start_reconciling(0.0)
    pay = ledger.new(0.0)
    ledger.admitted(pay)
    ledger.admitted(pay)  # a retry: two messages with one operation id
    ledger.gave_up(pay, 2.0)
    assert states(ledger) == {"reconciling": 1}
    assert ledger.table(3.0)[0]["owner"] == "payments-reconciliation"
    ledger.served(pay, 3.0, caller_waiting=False)  # the provider charges and confirms
    assert states(ledger) == {"reconciled": 1}
    ledger.served(pay, 4.0, caller_waiting=False)  # the retry's message runs later
    ledger.settle_due(10.0)
    assert ledger.charges == 1
    assert ledger.duplicates_absorbed == 1
    assert states(ledger) == {"reconciled": 1}


def test_it_completes_at_the_provider_a_reconciled_payment_never_served():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    ledger.start_reconciling(0.0)
    pay = ledger.new(0.0)
    ledger.admitted(pay)
    ledger.gave_up(pay, 1.0)
    ledger.discarded(pay, 2.0, caller_waiting=False)  # dropped from the queue, still owned
    ledger.settle_due(5.9)
    assert states(ledger) == {"reconciling": 1}
    ledger.settle_due(6.0)
    assert states(ledger) == {"reconciled": 1}
    assert ledger.charges == 1


def test_it_hands_earlier_unknown_payments_to_the_owner_when_reconciliation_starts():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=True)
    pays = [ledger.new(float(i)) for i in range(3)]
    for pay in pays:
        ledger.admitted(pay)
        ledger.gave_up(pay, 4.0)
    assert states(ledger) == {"unknown": 3}
    ledger.start_reconciling(10.0)
    assert states(ledger) == {"reconciling": 3}
    assert [p[STATE] for p in pays] == ["reconciling"] * 3


def test_it_keeps_the_operator_view_bounded():
    ledger = Ledger(reconcile_delay_s=5, keep_unknown=False)
    ledger.drop_payments = True
    for i in range(500):
        pay = ledger.new(float(i))
        ledger.admitted(pay)
        ledger.gave_up(pay, i + 1.0)
        ledger.discarded(pay, i + 2.0, caller_waiting=False)
    for i in range(100):
        ledger.new(600.0 + i)
    assert ledger.counts["lost"] == 500
    rows = ledger.table(700.0)
    assert len(rows) <= 4 * TABLE_ROWS
    ids = [row["operation_id"] for row in rows]
    assert len(ids) == len(set(ids))  # each payment once, in its state now
    assert {row["state"] for row in rows} == {"pending", "lost"}
