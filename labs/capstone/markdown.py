"""The before/after report as Markdown, for a student to hand in or paste into a README.

Only the layout lives here: every figure and sentence comes from `labs.capstone.report.build`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from labs.text import plain

TIMELINE_STEP_S = 10  # one row every 10 simulated seconds keeps the table readable


def _cell(value: Any) -> str:
    text = "—" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(_cell(c) for c in columns) + " |"]
    out.append("|" + "|".join(" --- " for _ in columns) + "|")
    out += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return out


def _params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"`{name}={plain(value)}`" for name, value in params.items())


def render(report: Mapping[str, Any], *, title: str, links: Mapping[str, str]) -> str:
    """The whole report; `links` holds absolute URLs of the two runs and the operator views."""
    runs = report["runs"]
    lines = [f"# {title}", "", report["outcome"], ""]
    lines += [
        f"- Before: run `{runs['before']['id']}` ({links['before']}), controls on: "
        + (", ".join(runs["before"]["controls_on"]) or "none"),
        f"- After: run `{runs['after']['id']}` ({links['after']}), controls on: "
        + (", ".join(runs["after"]["controls_on"]) or "none"),
        "",
        "## Before and after",
        "",
    ]
    lines += _table(
        ["", "before", "after"],
        [[row["figure"], row["before_text"], row["after_text"]] for row in report["compared"]],
    )
    lines += [
        "",
        f"## Recovery procedure ({report['worked']} of {len(report['procedure'])} steps worked)",
        "",
    ]
    for number, step in enumerate(report["procedure"], start=1):
        lines += [
            f"### {number}. {step['title']}: {step['verdict']}",
            "",
            step["action"],
            "",
            f"- Measured: {step['figure']}",
            f"- Before: {step['before']}",
            *([f"- {step['tried_text']}"] if step.get("tried_text") else []),
            "",
        ]
    lines += ["## Drain: estimate and actual", ""]
    drain_rows = []
    for side in ("before", "after"):
        d = report["drain"][side]
        drain_rows.append(
            [
                side,
                f"{d['at_s']} s",
                d["backlog"],
                f"{d['net_rps']}/s",
                "never" if d["estimate_s"] is None else f"{d['estimate_s']} s",
                "never" if d["actual_s"] is None else f"{d['actual_s']} s",
                "yes" if d["held"] else "no",
                d["gap"] or "—",
            ]
        )
    lines += _table(
        [
            "run",
            "estimated at",
            "backlog",
            "net capacity",
            "estimate (backlog ÷ net)",
            "actual drain",
            "estimate held",
            "why not",
        ],
        drain_rows,
    )
    after = report["drain"]["after"]
    healthy = after["healthy_from_s"]
    lines += [
        "",
        f"Oldest request after the controls: {after['oldest_age_at_start_s']} s old at "
        f"{after['at_s']} s; "
        + (
            "never young enough again."
            if healthy is None
            else f"younger than half the timeout from {healthy} s."
        ),
        "",
        f"## Backlog timeline (every {TIMELINE_STEP_S} s)",
        "",
    ]
    lines += _table(
        ["second", "backlog before", "backlog after", "oldest before (s)", "oldest after (s)"],
        _timeline_rows(report["timelines"]),
    )
    lines += [
        "",
        "## Operator view",
        "",
        f"- Before: {links['before_obligations']}",
        f"- After: {links['after_obligations']}",
        "",
        "## What was simulated",
        "",
        *[f"- {line}" for line in report["simulated"]],
        "",
        str(
            _(
                "To repeat a run, open its link and press “Re-run with the same parameters "
                "and seed”: the same seed gives the same result."
            )
        ),
        "",
        f"Before (seed {runs['before']['seed']}): {_params(runs['before']['params'])}",
        "",
        f"After (seed {runs['after']['seed']}): {_params(runs['after']['params'])}",
        "",
    ]
    if report["changed_params"]:
        lines.append(
            "Changed: "
            + ", ".join(
                f"`{c['name']}` {plain(c['before'])} → {plain(c['after'])}"
                for c in report["changed_params"]
            )
        )
        lines.append("")
    return "\n".join(lines)


def _timeline_rows(t: Mapping[str, Any]) -> list[list[Any]]:
    b, a = t["before"], t["after"]
    last = max(len(b["second"]), len(a["second"]))
    rows = []
    for i in range(0, last, TIMELINE_STEP_S):
        rows.append(
            [
                i,
                b["backlog"][i] if i < len(b["backlog"]) else None,
                a["backlog"][i] if i < len(a["backlog"]) else None,
                b["oldest_age_s"][i] if i < len(b["oldest_age_s"]) else None,
                a["oldest_age_s"][i] if i < len(a["oldest_age_s"]) else None,
            ]
        )
    return rows


def analysis_markdown(analysis: Any) -> str:
    """The student's analysis after the report: their words, then their numbered steps."""
    lines = ["", "## " + _("My analysis"), ""]
    for name, heading, answer in analysis.answers():
        lines += [f"### {heading}", ""]
        if name == "steps":
            lines += [f"{n}. {step}" for n, step in enumerate(answer, start=1)] or ["—"]
        else:
            lines += [answer.strip() or "—"]
        lines.append("")
    return "\n".join(lines)
