"""The payments ledger: every payment is an obligation that must end answered, never vanish.

A read is worth nothing once its caller has gone. A payment is different: the request
may already have moved money, so when its caller stops waiting the payment still needs
an outcome. The ledger follows each payment by its stable operation id through these
states and counts how many are in each:

    pending      the caller is still trying (waiting on an attempt or backing off)
    unknown      the caller gave up without an answer and nobody owns the follow-up
    reconciling  the caller gave up; the reconciliation owner is finding the outcome
    confirmed    the caller heard "paid"
    reconciled   the reconciliation owner confirmed it with the provider later
    failed       the caller heard a definite "not taken" and nothing of it can still run
    lost         a worker threw its last message away and nobody holds it any more

`unknown` is what a timed-out payment becomes when nobody reconciles: maybe charged,
maybe not, and no one is going to find out. `lost` is what naive dropping of expired
work does to a payment. The provider charges at most once per operation id, so a
duplicate message or a late reconciliation never charges twice.
"""

from __future__ import annotations

from collections import deque
from typing import Any

STATES = ("pending", "unknown", "reconciling", "confirmed", "reconciled", "failed", "lost")
OWNER = "payments-reconciliation"
TABLE_ROWS = 20  # rows kept per table section, so memory stays flat however long the run

# A payment record is a small list, indexed with these positions (fast and light).
OP_ID, CREATED_S, STATE, LIVE, CHARGED, DROPPED, SINCE_S = range(7)


class Ledger:
    """Counts payments by state and keeps a short operator view of the ones that matter."""

    def __init__(self, reconcile_delay_s: float, keep_unknown: bool) -> None:
        # keep_unknown: reconciliation will be switched on later, so the unknown payments
        # must stay findable until then. Otherwise only their count is kept.
        self.reconcile_delay_s = reconcile_delay_s
        self.keep_unknown = keep_unknown
        self.reconcile = False  # timed-out payments go to the reconciliation owner
        self.drop_payments = False  # naive: a discarded payment message leaves no record
        self.counts = dict.fromkeys(STATES, 0)
        self.total = 0
        self.charges = 0
        self.duplicates_absorbed = 0
        self.open: dict[str, list[Any]] = {}  # pending / unknown / reconciling, oldest first
        self.due: deque[tuple[float, list[Any]]] = deque()  # (due_s, record), in due order
        self.recent: dict[str, deque[list[Any]]] = {
            s: deque(maxlen=TABLE_ROWS) for s in ("unknown", "reconciled", "lost")
        }

    def _move(self, rec: list[Any], state: str, t: float) -> None:
        counts = self.counts
        counts[rec[STATE]] -= 1
        counts[state] += 1
        rec[STATE] = state
        rec[SINCE_S] = t
        if state in ("confirmed", "reconciled", "failed", "lost") or (
            state == "unknown" and not self.keep_unknown
        ):
            self.open.pop(rec[OP_ID], None)
        if state in self.recent:
            self.recent[state].append(rec)

    def new(self, t: float) -> list[Any]:
        """A caller submits a payment: it gets an operation id it keeps across retries."""
        self.total += 1
        op_id = f"pay-{self.total:06d}"
        rec = [op_id, t, "pending", 0, False, False, t]
        self.counts["pending"] += 1
        self.open[op_id] = rec
        return rec

    def admitted(self, rec: list[Any]) -> None:
        """One more message of this payment is in the queue or in service."""
        rec[LIVE] += 1

    def served(self, rec: list[Any], t: float, caller_waiting: bool) -> None:
        """A worker processed a message: the provider charges once per operation id."""
        rec[LIVE] -= 1
        state = rec[STATE]
        if state in ("reconciled", "failed", "lost"):
            # Already settled elsewhere: the id makes this message a harmless duplicate.
            self.duplicates_absorbed += 1
            return
        if rec[CHARGED]:
            self.duplicates_absorbed += 1
        else:
            rec[CHARGED] = True
            self.charges += 1
        if state == "pending" and caller_waiting:
            self._move(rec, "confirmed", t)
        elif state == "reconciling":
            self._move(rec, "reconciled", t)  # the provider's answer reaches the owner

    def discarded(self, rec: list[Any], t: float, caller_waiting: bool) -> None:
        """A worker threw a message of this payment away (expired, or shed by CoDel)."""
        rec[LIVE] -= 1
        if caller_waiting:
            return  # the caller was told 503 and will retry or give up: it knows
        rec[DROPPED] = True
        if rec[STATE] == "unknown":
            if self.reconcile:
                self._to_reconciliation(rec, t)
            elif rec[LIVE] == 0 and not rec[CHARGED]:
                self._move(rec, "lost", t)

    def gave_up(self, rec: list[Any], t: float) -> None:
        """The caller ran out of attempts (or of retry budget) without hearing an answer."""
        if rec[STATE] != "pending":
            return
        if self.reconcile:
            self._to_reconciliation(rec, t)
        elif rec[LIVE] == 0 and not rec[CHARGED]:
            # Nothing of it can still run: either every attempt was refused up front
            # (the caller was told, so it failed cleanly) or a worker dropped it silently.
            self._move(rec, "lost" if rec[DROPPED] else "failed", t)
        else:
            self._move(rec, "unknown", t)

    def _to_reconciliation(self, rec: list[Any], t: float) -> None:
        self._move(rec, "reconciling", t)
        self.open[rec[OP_ID]] = rec
        self.due.append((t + self.reconcile_delay_s, rec))

    def start_reconciling(self, t: float) -> None:
        """Switch reconciliation on: every payment already in `unknown` gets the owner."""
        self.reconcile = True
        self.drop_payments = False
        for rec in [r for r in self.open.values() if r[STATE] == "unknown"]:
            self._to_reconciliation(rec, t)

    def settle_due(self, t: float) -> None:
        """The owner gets the provider's answer for items whose delay has passed."""
        due = self.due
        while due and due[0][0] <= t:
            _, rec = due.popleft()
            if rec[STATE] != "reconciling":
                continue
            if rec[CHARGED]:
                self.duplicates_absorbed += 1
            else:
                # Resubmitted with the same operation id: the provider charges it once.
                rec[CHARGED] = True
                self.charges += 1
            self._move(rec, "reconciled", t)

    def table(self, now_s: float) -> list[dict[str, Any]]:
        """The operator view: oldest unresolved payments, then recent reconciled, unknown, lost."""
        rows: list[dict[str, Any]] = []
        for rec in self.open.values():
            if len(rows) >= TABLE_ROWS:
                break
            owner = {"reconciling": OWNER, "pending": "caller"}.get(rec[STATE], "")
            rows.append(_row(rec[OP_ID], rec[STATE], owner, rec[CREATED_S], now_s))
        shown = {row["operation_id"] for row in rows}
        for state, owner in (("unknown", ""), ("reconciled", OWNER), ("lost", "")):
            for rec in self.recent[state]:
                # A payment may have moved on since (unknown, then lost): show it once, as now.
                if rec[STATE] == state and rec[OP_ID] not in shown:
                    rows.append(_row(rec[OP_ID], state, owner, rec[CREATED_S], rec[SINCE_S]))
        return rows


class Untracked(Ledger):
    """A ledger that follows nothing, for a run whose reader needs only the queue's figures
    (the phase map). The loop still asks whether a call is a payment (a payment message may
    not be dropped), so `new` gives one shared stand-in record; the counts stay at zero."""

    def __init__(self, reconcile_delay_s: float = 0.0, keep_unknown: bool = False) -> None:
        super().__init__(reconcile_delay_s, keep_unknown)
        self._stand_in: list[Any] = ["", 0.0, "pending", 0, False, False, 0.0]

    def new(self, t: float) -> list[Any]:
        return self._stand_in

    def admitted(self, rec: list[Any]) -> None:
        pass

    def served(self, rec: list[Any], t: float, caller_waiting: bool) -> None:
        pass

    def discarded(self, rec: list[Any], t: float, caller_waiting: bool) -> None:
        pass

    def gave_up(self, rec: list[Any], t: float) -> None:
        pass

    def start_reconciling(self, t: float) -> None:
        pass

    def settle_due(self, t: float) -> None:
        pass


def _row(op_id: str, state: str, owner: str, created_s: float, at_s: float) -> dict[str, Any]:
    return {
        "operation_id": op_id,
        "state": state,
        "owner": owner or "nobody",
        "age_s": round(at_s - created_s, 3),
    }
