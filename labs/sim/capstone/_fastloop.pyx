# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The capstone event loop compiled to C: the same steps as `engine.simulate`, in C arrays.

`engine.py` is the reference: readable, traced, compared by the tests with hand-worked
runs and with SimPy. This file repeats its loop line for line, but keeps messages, calls,
the queue, the deadlines and the event heap in C arrays instead of Python lists, so one
run costs a fraction of the time (bench/bench_capstone.py measures both). It draws from
the same named streams in the same order and breaks ties between events at the same
instant the way Python's tuple comparison does in the reference, so every figure is
identical; `tests/sim/test_capstone_fast.py` holds that on many seeds and scenarios.

Payments (a few percent of calls) are followed by `PaymentLedger`, `obligations.Ledger`'s
rules on C arrays: the same counts, charges and operator table. With `figures`, the
answered callers' waits stay in C too (`Waits`): their percentiles are read there, exactly
as `labs.sim.capstone.latency` reads them from Python lists.
Built by `./dev` (`python -m labs.sim.capstone.build`); without it the reference runs.
"""

from libc.math cimport log, pow, INFINITY
from libc.stdint cimport uint32_t
from libc.math cimport ceil
from libc.stdlib cimport malloc, realloc, free, qsort
from libc.string cimport memcpy

from functools import lru_cache

from labs.sim.capstone.engine import SERIES, _snapshot
from labs.sim.capstone.latency import PERCENTILES, SecondWaits, to_ms
from labs.sim.capstone.obligations import OWNER, STATES, TABLE_ROWS, _row
from labs.sim.capstone.streams import ARRIVALS, RETRIES, SERVICE, stream

# `simulate` takes `lean` (labs.sim.capstone.fast asks, so a module built before runs in full).
TAKES_LEAN = True
# ... and `figures` (a module built before gives lists, which `fast` wraps: same figures).
TAKES_FIGURES = True

# Event kinds and sources, as in engine.py.
DEF END = 0
DEF CONTROL = 1
DEF FAIL = 2
DEF ATTEMPT = 3
DEF DONE = 4
DEF DONE_RESERVED = 5
DEF HEAP = 0
DEF NEW_CALLER = 1
DEF DEADLINE = 2
DEF TRIGGER_ON = 0
DEF TRIGGER_OFF = 1
DEF RECOVER = 2
DEF WAITING = 0
DEF ANSWERED = 1
DEF SHED = 2
DEF CODEL_TARGET_S = 0.005
DEF CODEL_INTERVAL_S = 0.100
DEF ADMISSION_BURST_S = 0.2
DEF RETRY_WINDOW_S = 10.0


cdef struct Twister:
    # CPython's Mersenne Twister, state copied from `random.Random.getstate()`, so that
    # `draw()` returns exactly what that generator's `random()` would, without a Python call.
    uint32_t mt[624]
    int index


@lru_cache(maxsize=32)
def _stream_state(long long seed, str purpose):
    # Seeding a stream hashes its name with SHA-512: a phase map's hundred runs share one
    # seed, so they share its three states too (a tuple of ints: nothing can change it).
    return stream(seed, purpose).getstate()[1]


cdef void twister_from(Twister* tw, long long seed, str purpose) except *:
    cdef int i
    state = _stream_state(seed, purpose)
    for i in range(624):
        tw.mt[i] = state[i]
    tw.index = state[624]


cdef inline uint32_t genrand(Twister* tw) noexcept nogil:
    cdef uint32_t y
    cdef int kk
    cdef uint32_t* mt = tw.mt
    if tw.index >= 624:
        for kk in range(624 - 397):
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU)
            mt[kk] = mt[kk + 397] ^ (y >> 1) ^ (0x9908b0dfU if y & 1U else 0U)
        for kk in range(624 - 397, 623):
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU)
            mt[kk] = mt[kk + (397 - 624)] ^ (y >> 1) ^ (0x9908b0dfU if y & 1U else 0U)
        y = (mt[623] & 0x80000000U) | (mt[0] & 0x7fffffffU)
        mt[623] = mt[396] ^ (y >> 1) ^ (0x9908b0dfU if y & 1U else 0U)
        tw.index = 0
    y = mt[tw.index]
    tw.index += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= y >> 18
    return y


cdef inline double draw(Twister* tw) noexcept nogil:
    """The next number in [0, 1), exactly as `random.Random.random()` makes it."""
    cdef uint32_t a = genrand(tw) >> 5
    cdef uint32_t b = genrand(tw) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef class Floats:
    """A growable array of doubles (one second's waits), handed to Python as a list; the
    array `Waits` keeps every second's waits in."""
    cdef double* items
    cdef long n, cap

    def __cinit__(self):
        self.cap = 256
        self.n = 0
        self.items = <double*> malloc(self.cap * sizeof(double))
        if self.items == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.items)

    cdef inline int append(self, double x) except -1:
        cdef double* grown
        if self.n == self.cap:
            grown = <double*> realloc(self.items, 2 * self.cap * sizeof(double))
            if grown == NULL:
                raise MemoryError()
            self.items = grown
            self.cap *= 2
        self.items[self.n] = x
        self.n += 1
        return 0

    cdef list take(self):
        cdef long i
        out = [self.items[i] for i in range(self.n)]
        self.n = 0
        return out


cdef int _by_value(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*> a)[0]
    cdef double y = (<const double*> b)[0]
    return (x > y) - (x < y)


cdef object _nearest_rank_ms(double* ordered, long n, int p):
    """`latency.to_ms(latency.percentile(ordered, p))` of n doubles sorted ascending."""
    cdef long rank
    if n == 0:
        return None
    # The same double arithmetic as `latency.percentile`: ceil(p / 100.0 * n) - 1.
    rank = <long> ceil(p / 100.0 * n) - 1
    if rank < 0:
        rank = 0
    return to_ms(ordered[rank])


cdef class Waits(Floats):
    """Each second's waits of the answered callers (seconds), all in one C array (the
    `Floats` it is, appended to as they are), each second's sorted once it closes: its
    figures are `SecondWaits`' figures of the same waits in Python lists, to the last digit
    (`tests/labs/sim/capstone/test_fast_figures.py`), without a Python float per answer or
    a sort in Python."""
    cdef long* starts  # starts[i]: where second i begins; starts[seconds]: where the open one does
    cdef long seconds, starts_cap

    def __cinit__(self):  # after Floats' own, which made the waits' array
        self.starts_cap = 512
        self.seconds = 0
        self.starts = <long*> malloc(self.starts_cap * sizeof(long))
        if self.starts == NULL:
            raise MemoryError()
        self.starts[0] = 0

    def __dealloc__(self):  # Floats' own frees the waits' array
        free(self.starts)

    cdef int close_second(self) except -1:
        """The open second ends: its waits sorted in place, and the next one opens."""
        cdef long* grown
        cdef long start = self.starts[self.seconds]
        if self.n - start > 1:
            qsort(&self.items[start], self.n - start, sizeof(double), _by_value)
        if self.seconds + 1 == self.starts_cap:
            grown = <long*> realloc(self.starts, 2 * self.starts_cap * sizeof(long))
            if grown == NULL:
                raise MemoryError()
            self.starts = grown
            self.starts_cap *= 2
        self.seconds += 1
        self.starts[self.seconds] = self.n
        return 0

    def __len__(self):
        return self.seconds

    def lists(self):
        """Each closed second's waits as a list (sorted): for a reader that needs them."""
        cdef long i, j
        return [
            [self.items[j] for j in range(self.starts[i], self.starts[i + 1])]
            for i in range(self.seconds)
        ]

    def series_ms(self, str prefix):
        """As `latency.series_ms(lists, prefix)`: each second's p50, p95 and p99 in ms."""
        cdef long i, start, n
        cdef int p
        out = {}
        for p in PERCENTILES:
            values = []
            for i in range(self.seconds):
                start = self.starts[i]
                n = self.starts[i + 1] - start
                values.append(_nearest_rank_ms(&self.items[start], n, p))
            out[f"{prefix}_p{p}_ms"] = values
        return out

    def window_ms(self, dict windows, str prefix=""):
        """As `latency.window_ms(lists, windows, prefix)`: the percentiles over each window
        of seconds (a slice)."""
        cdef long first, stop, step, n
        cdef double* merged
        cdef int p
        out = {}
        for name, seconds in windows.items():
            first, stop, step = seconds.indices(self.seconds)
            if step != 1:  # no model asks for one: read as lists
                out.update(SecondWaits(self.lists()).window_ms({name: seconds}, prefix))
                continue
            n = self.starts[stop] - self.starts[first] if stop > first else 0
            merged = <double*> malloc((n if n > 0 else 1) * sizeof(double))
            if merged == NULL:
                raise MemoryError()
            try:
                if n > 0:
                    memcpy(merged, &self.items[self.starts[first]], n * sizeof(double))
                    qsort(merged, n, sizeof(double), _by_value)
                for p in PERCENTILES:
                    out[f"{prefix}p{p}_ms" + (f"_{name}" if name else "")] = _nearest_rank_ms(
                        merged, n, p
                    )
            finally:
                free(merged)
        return out


# Payment states, by their position in `obligations.STATES`.
DEF PENDING = 0
DEF UNKNOWN = 1
DEF RECONCILING = 2
DEF CONFIRMED = 3
DEF RECONCILED = 4
DEF FAILED = 5
DEF LOST = 6
DEF N_STATES = 7
DEF RECENT = 20  # obligations.TABLE_ROWS: the rows kept per table section

assert tuple(STATES) == (
    "pending", "unknown", "reconciling", "confirmed", "reconciled", "failed", "lost"
) and TABLE_ROWS == RECENT


cdef class PaymentLedger:
    """`obligations.Ledger` on C arrays: each payment is an index, not a Python list.

    The same rules, step for step (`Ledger._move`, `served`, `discarded`, `gave_up`,
    `start_reconciling`, `settle_due`), so its counts, charges and operator table are the
    reference's (`tests/labs/sim/capstone/test_fast.py` compares them on every scenario).
    The reference's `open` dict keeps its payments in the order they were put in it: here
    each open payment carries the number of its insertion (`open_seq`, -1 when not open).
    """
    cdef double reconcile_delay_s
    cdef bint keep_unknown
    cdef public bint reconcile
    cdef public bint drop_payments
    cdef long n_counts[N_STATES]
    cdef public long total, charges, duplicates_absorbed
    # Per payment: created_s, since_s, state, messages live, charged, dropped, open_seq.
    cdef double* created
    cdef double* since
    cdef int* state
    cdef long* live
    cdef char* charged
    cdef char* dropped
    cdef long* open_seq
    cdef long cap, next_seq
    # Due for reconciliation, in due order (a ring of payments and their due times).
    cdef long* due_rec
    cdef double* due_s
    cdef long due_head, due_n, due_cap
    # The last RECENT payments moved into unknown, reconciled and lost (rings).
    cdef long recent[3][RECENT]
    cdef long recent_n[3]

    def __cinit__(self, double reconcile_delay_s, bint keep_unknown):
        self.reconcile_delay_s = reconcile_delay_s
        self.keep_unknown = keep_unknown
        self.cap = 1024
        self.created = <double*> malloc(self.cap * sizeof(double))
        self.since = <double*> malloc(self.cap * sizeof(double))
        self.state = <int*> malloc(self.cap * sizeof(int))
        self.live = <long*> malloc(self.cap * sizeof(long))
        self.charged = <char*> malloc(self.cap * sizeof(char))
        self.dropped = <char*> malloc(self.cap * sizeof(char))
        self.open_seq = <long*> malloc(self.cap * sizeof(long))
        self.due_cap = 1024
        self.due_rec = <long*> malloc(self.due_cap * sizeof(long))
        self.due_s = <double*> malloc(self.due_cap * sizeof(double))
        if not (self.created and self.since and self.state and self.live and self.charged
                and self.dropped and self.open_seq and self.due_rec and self.due_s):
            raise MemoryError()
        cdef int i
        for i in range(N_STATES):
            self.n_counts[i] = 0
        for i in range(3):
            self.recent_n[i] = 0

    def __dealloc__(self):
        free(self.created)
        free(self.since)
        free(self.state)
        free(self.live)
        free(self.charged)
        free(self.dropped)
        free(self.open_seq)
        free(self.due_rec)
        free(self.due_s)

    @property
    def counts(self):
        """{state: payments in it}, as `Ledger.counts`."""
        return {name: self.n_counts[i] for i, name in enumerate(STATES)}

    cdef tuple count_row(self):
        return tuple([self.n_counts[i] for i in range(N_STATES)])

    cdef int _grow(self) except -1:
        cdef long c = 2 * self.cap
        self.created = <double*> realloc(self.created, c * sizeof(double))
        self.since = <double*> realloc(self.since, c * sizeof(double))
        self.state = <int*> realloc(self.state, c * sizeof(int))
        self.live = <long*> realloc(self.live, c * sizeof(long))
        self.charged = <char*> realloc(self.charged, c * sizeof(char))
        self.dropped = <char*> realloc(self.dropped, c * sizeof(char))
        self.open_seq = <long*> realloc(self.open_seq, c * sizeof(long))
        if not (self.created and self.since and self.state and self.live and self.charged
                and self.dropped and self.open_seq):
            raise MemoryError()
        self.cap = c
        return 0

    cdef void _move(self, long rec, int to, double t) noexcept:
        cdef int i
        self.n_counts[self.state[rec]] -= 1
        self.n_counts[to] += 1
        self.state[rec] = to
        self.since[rec] = t
        if to == CONFIRMED or to == RECONCILED or to == FAILED or to == LOST or (
            to == UNKNOWN and not self.keep_unknown
        ):
            self.open_seq[rec] = -1
        i = 0 if to == UNKNOWN else 1 if to == RECONCILED else 2 if to == LOST else -1
        if i >= 0:
            self.recent[i][self.recent_n[i] % RECENT] = rec
            self.recent_n[i] += 1

    cdef long new(self, double t) except -1:
        """A caller submits a payment: its index (its operation id is `pay-<index + 1>`)."""
        cdef long rec = self.total
        if rec == self.cap:
            self._grow()
        self.total += 1
        self.created[rec] = t
        self.since[rec] = t
        self.state[rec] = PENDING
        self.live[rec] = 0
        self.charged[rec] = 0
        self.dropped[rec] = 0
        self.n_counts[PENDING] += 1
        self.open_seq[rec] = self.next_seq
        self.next_seq += 1
        return rec

    cdef inline void admitted(self, long rec) noexcept:
        self.live[rec] += 1

    cdef void served(self, long rec, double t, bint caller_waiting) noexcept:
        cdef int st = self.state[rec]
        self.live[rec] -= 1
        if st == RECONCILED or st == FAILED or st == LOST:
            self.duplicates_absorbed += 1
            return
        if self.charged[rec]:
            self.duplicates_absorbed += 1
        else:
            self.charged[rec] = 1
            self.charges += 1
        if st == PENDING and caller_waiting:
            self._move(rec, CONFIRMED, t)
        elif st == RECONCILING:
            self._move(rec, RECONCILED, t)

    cdef int discarded(self, long rec, double t, bint caller_waiting) except -1:
        self.live[rec] -= 1
        if caller_waiting:
            return 0
        self.dropped[rec] = 1
        if self.state[rec] == UNKNOWN:
            if self.reconcile:
                self._to_reconciliation(rec, t)
            elif self.live[rec] == 0 and not self.charged[rec]:
                self._move(rec, LOST, t)
        return 0

    cdef int gave_up(self, long rec, double t) except -1:
        if self.state[rec] != PENDING:
            return 0
        if self.reconcile:
            self._to_reconciliation(rec, t)
        elif self.live[rec] == 0 and not self.charged[rec]:
            self._move(rec, LOST if self.dropped[rec] else FAILED, t)
        else:
            self._move(rec, UNKNOWN, t)
        return 0

    cdef int _to_reconciliation(self, long rec, double t) except -1:
        cdef long* grown_rec
        cdef double* grown_s
        cdef long i
        self._move(rec, RECONCILING, t)
        if self.open_seq[rec] < 0:  # `open[op_id] = rec`: a key put back goes last
            self.open_seq[rec] = self.next_seq
            self.next_seq += 1
        if self.due_n == self.due_cap:
            grown_rec = <long*> malloc(2 * self.due_cap * sizeof(long))
            grown_s = <double*> malloc(2 * self.due_cap * sizeof(double))
            if grown_rec == NULL or grown_s == NULL:
                raise MemoryError()
            for i in range(self.due_n):
                grown_rec[i] = self.due_rec[(self.due_head + i) % self.due_cap]
                grown_s[i] = self.due_s[(self.due_head + i) % self.due_cap]
            free(self.due_rec)
            free(self.due_s)
            self.due_rec, self.due_s = grown_rec, grown_s
            self.due_head = 0
            self.due_cap *= 2
        i = (self.due_head + self.due_n) % self.due_cap
        self.due_rec[i] = rec
        self.due_s[i] = t + self.reconcile_delay_s
        self.due_n += 1
        return 0

    cdef list _open_in_order(self):
        """The open payments, in the order the reference's `open` dict holds them."""
        cdef long rec
        order = sorted(
            [(self.open_seq[rec], rec) for rec in range(self.total) if self.open_seq[rec] >= 0]
        )
        return [rec for _, rec in order]

    def start_reconciling(self, double t):
        """Switch reconciliation on: every payment already in `unknown` gets the owner."""
        cdef long rec
        self.reconcile = True
        self.drop_payments = False
        for rec in [r for r in self._open_in_order() if self.state[r] == UNKNOWN]:
            self._to_reconciliation(rec, t)

    cdef int settle_due(self, double t) except -1:
        cdef long rec
        while self.due_n and self.due_s[self.due_head] <= t:
            rec = self.due_rec[self.due_head]
            self.due_head = (self.due_head + 1) % self.due_cap
            self.due_n -= 1
            if self.state[rec] != RECONCILING:
                continue
            if self.charged[rec]:
                self.duplicates_absorbed += 1
            else:
                self.charged[rec] = 1
                self.charges += 1
            self._move(rec, RECONCILED, t)
        return 0

    def table(self, double now_s):
        """The operator view, as `Ledger.table`: oldest unresolved payments, then the
        recent reconciled, unknown and lost ones."""
        cdef long rec, k, n, first
        cdef int i, st
        rows = []
        for rec in self._open_in_order():
            if len(rows) >= RECENT:
                break
            st = self.state[rec]
            owner = OWNER if st == RECONCILING else "caller" if st == PENDING else ""
            rows.append(_row(_op_id(rec), STATES[st], owner, self.created[rec], now_s))
        shown = {row["operation_id"] for row in rows}
        for i, st, owner in ((0, UNKNOWN, ""), (1, RECONCILED, OWNER), (2, LOST, "")):
            n = self.recent_n[i]
            first = n - RECENT if n > RECENT else 0
            for k in range(first, n):
                rec = self.recent[i][k % RECENT]
                if self.state[rec] == st and _op_id(rec) not in shown:
                    rows.append(
                        _row(_op_id(rec), STATES[st], owner, self.created[rec], self.since[rec])
                    )
        return rows


cdef str _op_id(long rec):
    return f"pay-{rec + 1:06d}"  # `Ledger.new`'s id: its count of payments so far


cdef struct Event:
    double t
    int kind
    double k1   # what Python compares next: a message's sent time, a call's id, a control
    long k2     # ... then a message's call id
    long obj    # message or call index, control code; -1 for a worker with no message


cdef inline bint before(Event* a, Event* b) nogil:
    if a.t != b.t:
        return a.t < b.t
    if a.kind != b.kind:
        return a.kind < b.kind
    if a.k1 != b.k1:
        return a.k1 < b.k1
    return a.k2 < b.k2


cdef class Heap:
    cdef Event* items
    cdef long n, cap

    def __cinit__(self):
        self.cap = 1024
        self.n = 0
        self.items = <Event*> malloc(self.cap * sizeof(Event))
        if self.items == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.items)

    cdef int push(self, double t, int kind, double k1, long k2, long obj) except -1:
        cdef Event* grown
        cdef long i, parent
        cdef Event e
        if self.n == self.cap:
            grown = <Event*> realloc(self.items, 2 * self.cap * sizeof(Event))
            if grown == NULL:
                raise MemoryError()
            self.items = grown
            self.cap *= 2
        e.t = t
        e.kind = kind
        e.k1 = k1
        e.k2 = k2
        e.obj = obj
        i = self.n
        self.n += 1
        while i > 0:
            parent = (i - 1) >> 1
            if before(&e, &self.items[parent]):
                self.items[i] = self.items[parent]
                i = parent
            else:
                break
        self.items[i] = e
        return 0

    cdef Event pop(self):
        cdef Event top = self.items[0]
        cdef Event last
        cdef long i, child, n
        self.n -= 1
        n = self.n
        if n > 0:
            last = self.items[n]
            i = 0
            while True:
                child = 2 * i + 1
                if child >= n:
                    break
                if child + 1 < n and before(&self.items[child + 1], &self.items[child]):
                    child += 1
                if before(&self.items[child], &last):
                    self.items[i] = self.items[child]
                    i = child
                else:
                    break
            self.items[i] = last
        return top


cdef class Ring:
    """A deque of indices: append at the back, take from either end."""
    cdef long* items
    cdef long head, n, cap

    def __cinit__(self):
        self.cap = 1024
        self.head = 0
        self.n = 0
        self.items = <long*> malloc(self.cap * sizeof(long))
        if self.items == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.items)

    cdef int append(self, long x) except -1:
        cdef long* grown
        cdef long i
        if self.n == self.cap:
            grown = <long*> malloc(2 * self.cap * sizeof(long))
            if grown == NULL:
                raise MemoryError()
            for i in range(self.n):
                grown[i] = self.items[(self.head + i) % self.cap]
            free(self.items)
            self.items = grown
            self.head = 0
            self.cap *= 2
        self.items[(self.head + self.n) % self.cap] = x
        self.n += 1
        return 0

    cdef inline long front(self):
        return self.items[self.head]

    cdef inline long back(self):
        return self.items[(self.head + self.n - 1) % self.cap]

    cdef inline long popleft(self):
        cdef long x = self.items[self.head]
        self.head = (self.head + 1) % self.cap
        self.n -= 1
        return x

    cdef inline long pop(self):
        self.n -= 1
        return self.items[(self.head + self.n) % self.cap]


cdef class Pool:
    """Grow-only columns of doubles and longs: messages and calls, by index."""
    cdef double* d0
    cdef double* d1
    cdef double* d2
    cdef long* l0
    cdef long* l1
    cdef long n, cap

    def __cinit__(self):
        self.cap = 4096
        self.n = 0
        self.d0 = <double*> malloc(self.cap * sizeof(double))
        self.d1 = <double*> malloc(self.cap * sizeof(double))
        self.d2 = <double*> malloc(self.cap * sizeof(double))
        self.l0 = <long*> malloc(self.cap * sizeof(long))
        self.l1 = <long*> malloc(self.cap * sizeof(long))
        if not (self.d0 and self.d1 and self.d2 and self.l0 and self.l1):
            raise MemoryError()

    def __dealloc__(self):
        free(self.d0)
        free(self.d1)
        free(self.d2)
        free(self.l0)
        free(self.l1)

    cdef long add(self) except -1:
        cdef long c
        if self.n == self.cap:
            c = 2 * self.cap
            self.d0 = <double*> realloc(self.d0, c * sizeof(double))
            self.d1 = <double*> realloc(self.d1, c * sizeof(double))
            self.d2 = <double*> realloc(self.d2, c * sizeof(double))
            self.l0 = <long*> realloc(self.l0, c * sizeof(long))
            self.l1 = <long*> realloc(self.l1, c * sizeof(long))
            if not (self.d0 and self.d1 and self.d2 and self.l0 and self.l1):
                raise MemoryError()
            self.cap = c
        self.n += 1
        return self.n - 1


def simulate(p, long long seed, bint lean=False, bint figures=False):
    """Run one scenario exactly as `engine.simulate(p, seed, lean)` does; return the same dict.

    `lean`: keep no payments ledger and no per-answer waits (see `engine.simulate`).
    `figures`: the waits as `Waits` (each second's, read as figures in C), not as lists.
    """
    cdef bint track = not lean
    cdef bint in_c = figures and track
    cdef Twister arrivals_tw, service_tw, retries_tw
    twister_from(&arrivals_tw, seed, ARRIVALS)
    twister_from(&service_tw, seed, SERVICE)
    twister_from(&retries_tw, seed, RETRIES)

    cdef double horizon = float(p.horizon_s)
    cdef double base_rps = p.base_rps
    cdef double spike_rps = p.spike_rps
    cdef double t_on = p.trigger_start_s
    cdef double t_off = p.trigger_end_s
    cdef double timeout_s = p.client_timeout_ms / 1000.0
    cdef double service_s = p.service_ms / 1000.0
    cdef double unit_s = service_s
    cdef bint expo = p.service_dist == "exponential"
    cdef double spread = p.cost_spread
    cdef bint varied = spread > 1.0
    cdef double mean_cost = (spread - 1.0) / log(spread) if varied else 1.0
    cdef double pay_share = p.payment_share
    cdef long qlimit = p.queue_limit
    cdef bint fifo = p.discipline != "lifo"
    cdef bint codel = p.discipline == "codel"
    cdef long attempts_per_call = p.attempts_per_call
    waits_py = [0.0] + [
        min(p.backoff_cap_ms, p.backoff_base_ms * 2.0 ** (n - 1)) / 1000.0
        for n in range(1, attempts_per_call + 1)
    ]
    cdef double* waits = <double*> malloc((attempts_per_call + 1) * sizeof(double))
    cdef long i
    for i in range(attempts_per_call + 1):
        waits[i] = waits_py[i]
    cdef bint jitter = p.jitter == "full"
    cdef double drop_s = p.drop_cost_ms / 1000.0
    cdef long workers = p.workers
    cdef long workers_lost = p.workers_lost
    cdef double retry_budget = p.retry_budget

    cdef PaymentLedger ledger = PaymentLedger(
        p.reconcile_delay_s, p.reconcile_payments and p.recover_at_s > 0
    )

    cdef bint admit_on = False
    cdef double admit_now = 0.0
    cdef double tokens = 0.0
    cdef double tokens_t = 0.0
    cdef double reopen_from = -1.0
    cdef bint dropping = False
    cdef bint pay_discard = False
    cdef bint budget_on = False
    cdef double budget_tokens = 0.0
    cdef double budget_cap = 0.0

    # Messages: d0 sent_s, d1 deadline_s, d2 service_s, l0 call, l1 state.
    # Calls: d0 cost, d1 first_sent_s, l0 attempts sent, l1 payment index (-1: not a payment).
    cdef Pool msgs = Pool()
    cdef Pool calls = Pool()
    cdef Ring dq = Ring()
    cdef Ring timeouts = Ring()
    cdef Heap heap = Heap()
    heap.push(horizon, END, 0.0, 0, 0)
    for at, what in ((t_on, TRIGGER_ON), (t_off, TRIGGER_OFF), (p.recover_at_s, RECOVER)):
        if at < horizon:
            heap.push(at, CONTROL, what, 0, what)
    cdef double next_arrival = 0.0
    cdef bint redraw = True

    cdef long idle = workers
    cdef long idle_reserved = 0
    cdef long retire = 0
    cdef long to_reserve = 0
    cdef long in_service = 0
    cdef double last_empty = 0.0
    cdef double work_queued = 0.0

    out = {name: [] for name in SERIES}
    outs = [out[name] for name in SERIES]
    cdef long n_arr = 0, n_retry = 0, n_adm = 0, n_rej = 0, n_done = 0, n_useful = 0
    cdef long n_wasted = 0, n_expired = 0, n_shed = 0, n_gave_up = 0
    cdef double useful_work = 0.0, wasted_work = 0.0, drop_work = 0.0
    cdef long events = 0
    cdef long n_calls = 0
    cdef double next_sec = 1.0
    snapshot = {}
    cdef double drained_at = -1.0
    cdef Floats answered_waits = Floats()
    cdef Floats call_waits = Floats()
    cdef Waits answered_c = Waits()
    cdef Waits call_c = Waits()
    waits_by_second = []
    call_waits_by_second = []

    cdef double t, rate, switch, nxt, svc, cap
    cdef int src, kind
    cdef long m, c, k, n, taken, cancelled, queued, pay
    cdef bint real, send, ok
    cdef Event ev

    while True:
        t = heap.items[0].t
        src = HEAP
        if next_arrival < t:
            t = next_arrival
            src = NEW_CALLER
        if timeouts.n and msgs.d1[timeouts.front()] <= t:
            t = msgs.d1[timeouts.front()]
            src = DEADLINE
        if t >= next_sec:
            while t >= next_sec and next_sec <= horizon:
                if track:
                    ledger.settle_due(next_sec)
                queued = dq.n
                row = (
                    n_arr,
                    n_retry,
                    n_adm,
                    n_rej,
                    n_done,
                    n_useful,
                    n_wasted,
                    n_expired,
                    n_shed,
                    n_gave_up,
                    queued + in_service,
                    queued,
                    round(next_sec - msgs.d0[dq.front()], 3) if queued else 0.0,
                    round(work_queued, 3) if queued else 0.0,
                    round(admit_now, 3) if admit_on else 0.0,
                ) + ledger.count_row()
                for series, value in zip(outs, row, strict=True):
                    series.append(value)
                if in_c:
                    answered_c.close_second()
                    call_c.close_second()
                elif track:
                    waits_by_second.append(answered_waits.take())
                    call_waits_by_second.append(call_waits.take())
                n_arr = n_retry = n_adm = n_rej = n_done = n_useful = n_wasted = 0
                n_expired = n_shed = n_gave_up = 0
                if snapshot and queued <= workers:
                    if drained_at < 0:
                        drained_at = next_sec
                    if admit_on and reopen_from < 0 and next_sec >= t_off:
                        reopen_from = next_sec
                if reopen_from >= 0 and admit_on:
                    ramp = p.reopen_ramp_s
                    done_share = (next_sec - reopen_from) / ramp if ramp > 0 else 1.0
                    top = p.capacity_rps
                    if done_share >= 1.0 or p.admit_rps >= top:
                        admit_on = False
                    else:
                        admit_now = p.admit_rps + (top - p.admit_rps) * done_share
                next_sec += 1.0
            if t >= horizon:
                break

        events += 1
        if src == DEADLINE:
            m = timeouts.popleft()
            if msgs.l1[m]:
                events -= 1
                continue
            c = msgs.l0[m]
            send = False
        elif src == NEW_CALLER:
            if t < t_on:
                rate = base_rps
                switch = t_on
            elif t < t_off:
                rate = spike_rps
                switch = t_off
            else:
                rate = base_rps
                switch = INFINITY
            nxt = t - log(1.0 - draw(&arrivals_tw)) / rate if rate > 0.0 else INFINITY
            real = not redraw
            redraw = nxt >= switch
            next_arrival = switch if redraw else nxt
            if not real:
                continue
            n_arr += 1
            n_calls += 1
            c = calls.add()
            calls.d0[c] = pow(spread, draw(&arrivals_tw)) / mean_cost if varied else 1.0
            calls.l0[c] = 1
            if pay_share and draw(&arrivals_tw) < pay_share:
                if track:
                    calls.l1[c] = ledger.new(t)
                else:
                    calls.l1[c] = 0  # a payment (the queue treats it so), not followed
            else:
                calls.l1[c] = -1
            calls.d1[c] = t
            if budget_on:
                budget_tokens += retry_budget
                if budget_tokens > budget_cap:
                    budget_tokens = budget_cap
            send = True
        else:
            ev = heap.pop()
            t = ev.t
            kind = ev.kind
            if kind >= DONE:
                m = ev.obj
                if m >= 0:
                    in_service -= 1
                    n_done += 1
                    c = msgs.l0[m]
                    pay = calls.l1[c]
                    if t <= msgs.d1[m]:
                        msgs.l1[m] = ANSWERED
                        n_useful += 1
                        useful_work += msgs.d2[m]
                        if in_c:
                            answered_c.append(t - msgs.d0[m])
                            call_c.append(t - calls.d1[c])
                        elif track:
                            answered_waits.append(t - msgs.d0[m])
                            call_waits.append(t - calls.d1[c])
                        if pay >= 0 and track:
                            ledger.served(pay, t, True)
                    else:
                        n_wasted += 1
                        wasted_work += msgs.d2[m]
                        if pay >= 0 and track:
                            ledger.served(pay, t, False)
                if kind == DONE_RESERVED:
                    if dq.n and t < msgs.d1[dq.back()]:
                        m = dq.pop()
                        c = msgs.l0[m]
                        work_queued -= calls.d0[c]
                        svc = unit_s * calls.d0[c]
                        if expo:
                            svc *= -log(1.0 - draw(&service_tw))
                        msgs.d2[m] = svc
                        in_service += 1
                        heap.push(t + svc, DONE_RESERVED, msgs.d0[m], c + 1, m)
                    else:
                        idle_reserved += 1
                    continue
                if retire or to_reserve:
                    if retire:
                        retire -= 1
                    else:
                        to_reserve -= 1
                        heap.push(t, DONE_RESERVED, -INFINITY, -1, -1)
                    continue
                m = -1
                while dq.n:
                    m = dq.popleft() if fifo else dq.pop()
                    c = msgs.l0[m]
                    pay = calls.l1[c]
                    work_queued -= calls.d0[c]
                    if codel and t - last_empty > CODEL_INTERVAL_S and t - msgs.d0[m] > CODEL_TARGET_S:
                        if t < msgs.d1[m]:
                            msgs.l1[m] = SHED
                            n_shed += 1
                            if pay >= 0 and track:
                                ledger.discarded(pay, t, True)
                            heap.push(t, FAIL, c + 1, 0, c)
                        elif pay < 0 or pay_discard:
                            n_expired += 1
                            if pay >= 0 and track:
                                ledger.discarded(pay, t, False)
                        else:
                            break
                    elif dropping and t >= msgs.d1[m] and (pay < 0 or pay_discard):
                        n_expired += 1
                        if pay >= 0 and track:
                            ledger.discarded(pay, t, False)
                    else:
                        break
                    drop_work += drop_s
                    m = -1
                    if drop_s > 0.0:
                        heap.push(t + drop_s, DONE, -INFINITY, -1, -1)
                        break
                else:
                    idle += 1
                    last_empty = t
                    continue
                if m < 0:
                    continue
                c = msgs.l0[m]
                svc = unit_s * calls.d0[c]
                if expo:
                    svc *= -log(1.0 - draw(&service_tw))
                msgs.d2[m] = svc
                in_service += 1
                heap.push(t + svc, DONE, msgs.d0[m], c + 1, m)
                if not dq.n:
                    last_empty = t
                continue
            if kind == ATTEMPT:
                c = ev.obj
                calls.l0[c] += 1
                n_retry += 1
                send = True
            elif kind == FAIL:
                c = ev.obj
                send = False
            else:
                what = ev.obj
                if what == TRIGGER_ON:
                    unit_s = service_s * p.slowdown_factor
                    taken = min(idle, workers_lost)
                    idle -= taken
                    retire += workers_lost - taken
                elif what == TRIGGER_OFF:
                    unit_s = service_s
                    cancelled = min(retire, workers_lost)
                    retire -= cancelled
                    for i in range(workers_lost - cancelled):
                        heap.push(t, DONE, -INFINITY, -1, -1)
                else:
                    snapshot = _snapshot(p, t, dq.n + in_service, work_queued, out)
                    if p.admission_limit:
                        admit_on = True
                        admit_now = p.admit_rps
                        tokens = admit_now * ADMISSION_BURST_S
                        tokens_t = t
                    if p.limit_retries:
                        budget_on = True
                        budget_cap = max(1.0, retry_budget * base_rps * RETRY_WINDOW_S)
                        budget_tokens = budget_cap
                    dropping = p.drop_expired
                    pay_discard = p.drop_payments or p.reconcile_payments
                    if track:
                        ledger.drop_payments = p.drop_payments
                        if p.reconcile_payments:
                            ledger.start_reconciling(t)
                    if p.reserve_share > 0.0 and workers > 1:
                        k = min(workers - 1, max(1, round(p.reserve_share * workers)))
                        taken = min(idle, k)
                        idle -= taken
                        to_reserve += k - taken
                        for i in range(taken):
                            heap.push(t, DONE_RESERVED, -INFINITY, -1, -1)
                continue

        if send:
            pay = calls.l1[c]
            if admit_on:
                tokens += (t - tokens_t) * admit_now
                tokens_t = t
                cap = admit_now * ADMISSION_BURST_S
                if tokens > cap:
                    tokens = cap if cap > 1.0 else 1.0
                if tokens >= 1.0:
                    tokens -= 1.0
                    ok = dq.n < qlimit
                else:
                    ok = False
            else:
                ok = dq.n < qlimit
            if ok:
                n_adm += 1
                m = msgs.add()
                msgs.d0[m] = t
                msgs.d1[m] = t + timeout_s
                msgs.l0[m] = c
                msgs.l1[m] = WAITING
                msgs.d2[m] = 0.0
                if pay >= 0 and track:
                    ledger.admitted(pay)
                if idle:
                    idle -= 1
                    kind = DONE
                elif idle_reserved:
                    idle_reserved -= 1
                    kind = DONE_RESERVED
                else:
                    dq.append(m)
                    timeouts.append(m)
                    work_queued += calls.d0[c]
                    continue
                svc = unit_s * calls.d0[c]
                if expo:
                    svc *= -log(1.0 - draw(&service_tw))
                if svc > timeout_s:
                    timeouts.append(m)
                msgs.d2[m] = svc
                in_service += 1
                last_empty = t
                heap.push(t + svc, kind, t, c + 1, m)
                continue
            n_rej += 1

        n = calls.l0[c]
        if n < attempts_per_call and (not budget_on or budget_tokens >= 1.0):
            if budget_on:
                budget_tokens -= 1.0
            heap.push(
                t + waits[n] * draw(&retries_tw) if jitter else t + waits[n],
                ATTEMPT, c + 1, 0, c,
            )
        else:
            n_gave_up += 1
            pay = calls.l1[c]
            if pay >= 0 and track:
                ledger.gave_up(pay, t)

    free(waits)
    return {
        "series": out,
        "events": events,
        "ledger": ledger,
        "snapshot": snapshot,
        "drained_at_s": drained_at if drained_at >= 0 else None,
        "work": {"useful_s": useful_work, "wasted_s": wasted_work, "drop_s": drop_work},
        "waits_s": (
            {"attempt": answered_c, "call": call_c}
            if in_c
            else {"attempt": waits_by_second, "call": call_waits_by_second}
        ),
    }
