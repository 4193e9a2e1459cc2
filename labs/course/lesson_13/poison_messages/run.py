"""Lesson 13's poison messages: maxReceiveCount decides when a failing message is parked."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim import receive_log, redrive
from labs.text import gettext, gettext_noop, listed, num

# The PDF queue both DLQ labs make (this model and its real-Redis twin, poison-live):
# how many PDFs and which fail every time. Written once, like drain.WORKLOAD_PARAMS.
PDF_PARAMS = (
    Param(
        "messages",
        gettext_noop("PDFs to make"),
        "int",
        10,
        gettext_noop("One message per PDF, named pdf-0, pdf-1, and so on."),
        min=1,
        max=200,
        group=gettext_noop("The queue"),
    ),
    Param(
        "poison",
        gettext_noop("Poison messages"),
        "int_list",
        [3, 7],
        gettext_noop("Comma-separated numbers of the PDFs that fail every time (pdf-3, pdf-7, …)."),
        min=0,
        max=199,
        max_items=20,
        group=gettext_noop("The queue"),
    ),
)

PARAMS = (
    *PDF_PARAMS,
    Param(
        "max_receives",
        gettext_noop("maxReceiveCount on the chart"),
        "int",
        3,
        gettext_noop(
            "After this many receives a failing message moves to the dead-letter queue (DLQ)."
        ),
        min=1,
        max=20,
        group=gettext_noop("Redrive policy"),
    ),
    Param(
        "other_max_receives",
        gettext_noop("Other maxReceiveCounts to compare"),
        "int_list",
        [1, 5],
        gettext_noop("Comma-separated: the table compares these with the one above."),
        min=1,
        max=20,
        max_items=5,
        group=gettext_noop("Redrive policy"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    unknown = sorted({n for n in params["poison"] if n >= params["messages"]})
    if unknown:
        return {
            "poison": gettext(
                "There is no pdf-%(first)s: the %(n)s PDFs are pdf-0 to pdf-%(last)s."
            )
            % {"first": unknown[0], "n": params["messages"], "last": params["messages"] - 1}
        }
    return {}


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Play the queue to empty for each maxReceiveCount; no randomness."""
    pdfs = [f"pdf-{i}" for i in range(params["messages"])]
    poison = {f"pdf-{i}" for i in params["poison"]}
    counts = sorted({params["max_receives"], *params["other_max_receives"]})
    compared = {n: redrive(pdfs, poison, max_receives=n) for n in counts}
    done, dlq, receives = compared[params["max_receives"]]
    log = receive_log(pdfs, poison, max_receives=params["max_receives"])
    progress.update(1, 1)
    return {
        "summary": {
            "max_receives": params["max_receives"],
            "made": len(done),
            "dlq": len(dlq),
            "receives": receives,
            "receives_on_poison": receives - len(done),
            "dlq_messages": ", ".join(dlq),
        },
        "series": {
            "receive": [r.number for r in log],
            "message": [r.message for r in log],
            "receive_count": [r.receive_count for r in log],
            "outcome": [r.outcome for r in log],
        },
        "tables": {
            "compare": table(
                gettext_noop("Each maxReceiveCount"),
                [
                    gettext_noop("maxReceiveCount"),
                    gettext_noop("PDFs made"),
                    gettext_noop("moved to the DLQ"),
                    gettext_noop("receives in all"),
                ],
                [
                    [n, len(made), ", ".join(parked) or gettext_noop("none"), total]
                    for n, (made, parked, total) in compared.items()
                ],
            ),
            "compare_data": {
                "max_receives": counts,
                "made": [len(compared[n][0]) for n in counts],
                "dlq": [len(compared[n][1]) for n in counts],
                "receives": [compared[n][2] for n in counts],
            },
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, data = result["summary"], result["tables"]["compare_data"]
    words = {
        "mr": s["max_receives"],
        "made": num(s["made"]),
        "dlq": num(s["dlq"]),
        "which": s["dlq_messages"],
        "receives": num(s["receives"]),
    }
    if s["dlq"]:
        first = gettext(
            "With maxReceiveCount %(mr)s: %(made)s PDFs made, %(dlq)s moved to the DLQ "
            "(%(which)s), %(receives)s receives in all."
        )
    else:
        first = gettext(
            "With maxReceiveCount %(mr)s: %(made)s PDFs made, %(dlq)s moved to the DLQ, "
            "%(receives)s receives in all."
        )
    lines = [first % words]
    if s["dlq"]:
        lines.append(
            gettext("%(n)s of those receives were spent on messages that could never succeed.")
            % {"n": num(s["receives_on_poison"])}
        )
    and_word = gettext("and")
    counts = listed([str(n) for n in data["max_receives"]], and_word)
    receives = listed([num(n) for n in data["receives"]], and_word)
    if len(set(data["made"])) == 1 and len(set(data["dlq"])) == 1:
        lines.append(
            gettext(
                "maxReceiveCount %(counts)s: %(made)s made and %(dlq)s in the DLQ every time, "
                "with %(receives)s receives: a higher count parks the same messages, only later."
            )
            % {
                "counts": counts,
                "made": num(data["made"][0]),
                "dlq": num(data["dlq"][0]),
                "receives": receives,
            }
        )
    else:
        lines.append(
            gettext(
                "maxReceiveCount %(counts)s: made %(made)s, in the DLQ %(dlq)s, receives "
                "%(receives)s."
            )
            % {
                "counts": counts,
                "made": listed([num(n) for n in data["made"]], and_word),
                "dlq": listed([num(n) for n in data["dlq"]], and_word),
                "receives": receives,
            }
        )
    return lines


FIGURES = (
    Figure("max_receives", gettext_noop("maxReceiveCount"), "int"),
    Figure("made", gettext_noop("PDFs made"), "int"),
    Figure("dlq", gettext_noop("Messages in the DLQ"), "int"),
    Figure("receives", gettext_noop("Receives in all"), "int"),
    Figure("receives_on_poison", gettext_noop("Receives spent on poison messages"), "int"),
    Figure("dlq_messages", gettext_noop("Messages parked in the DLQ"), "str"),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
