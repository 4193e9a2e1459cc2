"""The fault bench's students: every request they make is recorded, its status and its time.

A request that gets no answer (connection refused, reset, timed out) is recorded as status
0, never raised: during a fault that is an answer too. What a fault served is read back from
the record: the 5xx by status and by kind of request, and which writes got a success answer
(the ledger `bench/fault_ledger.py` checks after the fault).
"""

from __future__ import annotations

import http.client
import re
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field

RUN_ID = re.compile(r'id="run-([0-9a-f-]{36})"')


@dataclass
class Answer:
    at: float  # time.monotonic() when the answer came
    kind: str  # "run", "draft", "label", "hand-in", "login", "deep", "page"
    status: int  # 0: no answer at all
    text: str = ""  # the start of the body of a 5xx (what the student read)


@dataclass
class Record:
    """Every answer of every student, in one list (threads append under a lock)."""

    answers: list[Answer] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, status: int, text: str = "") -> None:
        kept = _words(text) if status >= 500 else ""
        with self.lock:
            self.answers.append(Answer(time.monotonic(), kind, status, kept))

    def between(self, start: float, end: float) -> list[Answer]:
        with self.lock:
            return [a for a in self.answers if start <= a.at <= end]


def _words(html: str) -> str:
    """A 5xx page's first words, tags dropped: enough to tell the site's page from nginx's."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S | re.I)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(text.split())[:160]


class Client:
    """One browser: its cookies and CSRF token, a kept-alive connection per thread."""

    def __init__(self, base: str, username: str, record: Record, *, timeout_s: float = 20):
        self.base, self.username, self.record = base, username, record
        self.address = urllib.parse.urlsplit(base)
        self.cookies: dict[str, str] = {}
        self.timeout_s = timeout_s
        self._local = threading.local()

    def request(
        self,
        kind: str,
        path: str,
        data: dict | None = None,
        *,
        htmx: bool = False,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str, dict[str, str]]:
        """(status, body, headers); status 0 when nothing answered."""
        body = urllib.parse.urlencode(data, doseq=True).encode() if data is not None else None
        sent = {"Accept-Encoding": "identity", **(headers or {})}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent["X-CSRFToken"] = self.cookies.get("csrftoken", "")
            sent["Referer"] = self.base + path
        if htmx:
            sent["HX-Request"] = "true"
        status, text, got = self._send("POST" if body is not None else "GET", path, body, sent)
        self.record.add(kind, status, text)
        return status, text, got

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]):
        for attempt in (1, 2):  # a kept-alive connection the server closed meanwhile: once more
            connection = getattr(self._local, "connection", None)
            if connection is None:
                connection = self._local.connection = http.client.HTTPConnection(
                    self.address.hostname, self.address.port, timeout=self.timeout_s
                )
            try:
                connection.request(method, path, body, headers)
                response = connection.getresponse()
                text = response.read().decode(errors="replace")
            except (http.client.HTTPException, OSError):
                connection.close()
                self._local.connection = None
                if attempt == 2:
                    return 0, "", {}
                continue
            for cookie in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = cookie.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
            return response.status, text, dict(response.headers)
        return 0, "", {}

    def log_in(self, password: str) -> None:
        self.request("page", "/accounts/login/")
        status, _, _ = self.request(
            "page", "/accounts/login/", {"username": self.username, "password": password}
        )
        if status != 302:
            raise SystemExit(f"{self.username} could not log in (HTTP {status})")

    # What a student does; each answer is also in the record.

    def press(self, lab: str, form: dict[str, str]) -> tuple[int, str | None, str]:
        """Press Run as the page does (htmx, with the phone's idempotency key): (status, the
        run's id when one was started, the body)."""
        status, text, _ = self.request(
            "run", f"/labs/{lab}/", form, htmx=True, headers={"Idempotency-Key": _key()}
        )
        match = RUN_ID.search(text) if status == 200 else None
        return status, match.group(1) if match else None, text

    def draft(self, lab: str, form: dict[str, str]) -> int:
        status, _, _ = self.request(
            "draft", f"/labs/{lab}/draft/", form, htmx=True, headers={"Idempotency-Key": _key()}
        )
        return status

    def label(self, run_id: str, name: str) -> int:
        status, _, _ = self.request(
            "label", f"/runs/{run_id}/label/", {"name": name, "note": f"note of {name}"},
            htmx=True,
        )  # fmt: skip
        return status

    def hand_in(self, assignment_id: int, run_id: str) -> int:
        status, _, _ = self.request(
            "hand-in", f"/assignments/{assignment_id}/submit/", {"run": run_id},
            headers={"Idempotency-Key": _key()},
        )  # fmt: skip
        return status


def _key() -> str:
    return str(uuid.uuid4())


def deep_status(client: Client, token: str) -> tuple[int, str]:
    """/healthz/deep with the monitor's token: (status, its "status" word)."""
    status, text, _ = client.request(
        "deep", "/healthz/deep", headers={"Authorization": f"Bearer {token}"}
    )
    word = re.search(r'"status":\s*"(\w+)"', text)
    return status, word.group(1) if word else ""
