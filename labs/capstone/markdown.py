"""The before/after report as Markdown, for a student to hand in or paste into a README.

Only the layout and its headings live here: every figure and sentence comes from
`labs.capstone.report.build`, made in the reader's language while the request is served.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _

from labs.text import num, plain

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


def _controls(run: Mapping[str, Any]) -> str:
    return ", ".join(run["controls_on"]) or _("none")


def _tenths(value: float) -> str:
    return num(round(value, 1))


def _secs(value: Any) -> str:
    return _("never") if value is None else f"{_tenths(value)} s"


def render(report: Mapping[str, Any], *, title: str, links: Mapping[str, str]) -> str:
    """The whole report in the reader's language; `links` holds absolute URLs of the two
    runs and the operator views. Param names, values and seeds stay as the CLI takes them."""
    runs = report["runs"]
    lines = [f"# {own_words(title)}", "", report["outcome"], ""]
    lines += [
        "- "
        + _("Before: run `%(id)s` (%(url)s), controls on: %(controls)s")
        % {
            "id": runs["before"]["id"],
            "url": links["before"],
            "controls": _controls(runs["before"]),
        },
        "- "
        + _("After: run `%(id)s` (%(url)s), controls on: %(controls)s")
        % {"id": runs["after"]["id"], "url": links["after"], "controls": _controls(runs["after"])},
        "",
        "## " + _("Before and after"),
        "",
    ]
    lines += _table(
        ["", _("before"), _("after")],
        [[row["figure"], row["before_text"], row["after_text"]] for row in report["compared"]],
    )
    lines += [
        "",
        "## "
        + _("Recovery procedure (%(worked)s of %(total)s steps worked)")
        % {"worked": report["worked"], "total": len(report["procedure"])},
        "",
    ]
    for number, step in enumerate(report["procedure"], start=1):
        verdict = step.get("verdict_text", step["verdict"])
        lines += [
            f"### {number}. {step['title']}: {verdict}",
            "",
            step["action"],
            "",
            "- " + _("Measured: %(figure)s") % {"figure": step["figure"]},
            "- " + _("Before: %(figure)s") % {"figure": step["before"]},
            *([f"- {step['tried_text']}"] if step.get("tried_text") else []),
            "",
        ]
    lines += ["## " + _("Drain: estimate and actual"), ""]
    sides = {"before": _("before"), "after": _("after")}
    drain_rows = []
    for side in ("before", "after"):
        d = report["drain"][side]
        drain_rows.append(
            [
                sides[side],
                f"{num(d['at_s'])} s",
                num(d["backlog"]),
                f"{_tenths(d['net_rps'])}/s",
                _secs(d["estimate_s"]),
                _secs(d["actual_s"]),
                _("yes") if d["held"] else _("no"),
                d["gap"] or "—",
            ]
        )
    lines += _table(
        [
            _("run"),
            _("estimated at"),
            _("backlog"),
            _("net capacity"),
            _("estimate (backlog ÷ net)"),
            _("actual drain"),
            _("estimate held"),
            _("why not"),
        ],
        drain_rows,
    )
    after = report["drain"]["after"]
    healthy = after["healthy_from_s"]
    oldest = {"age": _tenths(after["oldest_age_at_start_s"]), "at": num(after["at_s"])}
    lines += [
        "",
        (
            _(
                "Oldest request after the controls: %(age)s s old at %(at)s s; never young "
                "enough again."
            )
            % oldest
            if healthy is None
            else _(
                "Oldest request after the controls: %(age)s s old at %(at)s s; younger than "
                "half the timeout from %(t)s s."
            )
            % (oldest | {"t": num(healthy)})
        ),
        "",
        "## " + _("Backlog timeline (every %(step)s s)") % {"step": TIMELINE_STEP_S},
        "",
    ]
    lines += _table(
        [
            _("second"),
            _("backlog before"),
            _("backlog after"),
            _("oldest before (s)"),
            _("oldest after (s)"),
        ],
        _timeline_rows(report["timelines"]),
    )
    lines += [
        "",
        "## " + _("Operator view"),
        "",
        "- " + _("Before: %(url)s") % {"url": links["before_obligations"]},
        "- " + _("After: %(url)s") % {"url": links["after_obligations"]},
        "",
        "## " + _("What was simulated"),
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
        _("Before (seed %(seed)s): %(params)s")
        % {"seed": runs["before"]["seed"], "params": _params(runs["before"]["params"])},
        "",
        _("After (seed %(seed)s): %(params)s")
        % {"seed": runs["after"]["seed"], "params": _params(runs["after"]["params"])},
        "",
    ]
    if report["changed_params"]:
        changed = ", ".join(
            f"`{c['name']}` {plain(c['before'])} → {plain(c['after'])}"
            for c in report["changed_params"]
        )
        lines.append(_("Changed: %(params)s") % {"params": changed})
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


def own_words(text: str) -> str:
    """A student's text made safe for Markdown: HTML in it is shown, never passed through.

    A Markdown renderer passes raw HTML on (a `<script>` or an `<img onerror>` in a README,
    a wiki, a teacher's preview), so `&`, `<` and `>` become entities: rendered, they read
    exactly as typed.
    """
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def analysis_markdown(analysis: Any) -> str:
    """The student's analysis after the report: their words, then their numbered steps."""
    lines = ["", "## " + _("My analysis"), ""]
    for name, heading, answer in analysis.answers():
        lines += [f"### {heading}", ""]
        if name == "steps":
            lines += [f"{n}. {own_words(step)}" for n, step in enumerate(answer, start=1)] or ["—"]
        else:
            lines += [own_words(answer.strip()) or "—"]
        lines.append("")
    return "\n".join(lines)
