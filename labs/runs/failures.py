"""Why a run failed: saved as a code and its values, said in the reader's language when shown.

A run fails where nobody reads it (a worker, a sweeper, a publish that the broker refused),
so the words cannot be chosen there. The run keeps `error_code` and `error_args`, and the
English in `error` (for the admin, the JSON download, and the runs saved before codes
existed); `said` turns them into the reader's words when a page renders.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop

# Code -> the English msgid; `%(name)s` are the values saved with the run.
MESSAGES = {
    "unknown_lab": gettext_noop("This lab no longer exists, so the run was not started."),
    "time_limit": gettext_noop("The run took longer than its limit of %(limit_s)s s."),
    # `reasons` are the field names and bounds the worker checked, in English.
    "refused": gettext_noop("The lab refused these parameters: %(reasons)s"),
    # `error` is the exception's name and text: a bug report, left as Python wrote it.
    "crashed": gettext_noop("The lab crashed: %(error)s"),
    # No address: a broker URL may carry a password (the log has the address).
    "offline": gettext_noop(
        "The lab runner is offline (its Redis does not answer), so this run was not "
        "started. Press Run again in a little while; if this keeps happening, tell your "
        "teacher that the lab runners need starting."
    ),
    "redis_full": gettext_noop(
        "The site is short of memory (its Redis is full), so this run could not be done. Press "
        "Run again in a few minutes; if this keeps happening, tell your teacher that Redis "
        "needs more memory."
    ),
    "redis_lost": gettext_noop(
        "The lab's Redis restarted or stopped answering while this run was going, so the "
        "run was stopped. Press Run again in a little while."
    ),
    "worker_gone": gettext_noop(
        "The worker running this lab stopped before it finished. Press Run again."
    ),
    "message_lost": gettext_noop(
        "The message that hands this run to a worker was lost twice (the queue's Redis "
        "restarted, or a worker could not reach the database), so the run was stopped "
        "rather than left waiting. Press Run again."
    ),
    "busy_or_down": gettext_noop(
        "No runner picked this run up in time, so it was stopped: the runners are all busy, "
        "or none is running. Press Run again in a little while; if this keeps happening, "
        "tell your teacher that the lab runners need starting."
    ),
}

ERROR_MAX_CHARS = 2000


def failure(code: str, **args: Any) -> dict[str, Any]:
    """The fields a failed run saves: its code and values, and the same in English."""
    english = MESSAGES[code] % args
    return {"error": english[:ERROR_MAX_CHARS], "error_code": code, "error_args": args}


def said(code: str, args: dict[str, Any] | None, stored: str) -> str:
    """The failure in the reader's language.

    A run without a code (saved before codes existed) shows its stored English, translated
    when it is one of the fixed messages (the sweeps saved those as msgids).
    """
    message = MESSAGES.get(code)
    if message is not None:
        try:
            return gettext(message) % (args or {})
        except (KeyError, TypeError, ValueError):
            pass  # values that do not fit the message: the English saved with them
    return gettext(stored) if stored else ""
