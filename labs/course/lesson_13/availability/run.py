"""Lesson 13's availability: copies in parallel raise it, a chain in series lowers it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.interface.figures import Figure
from labs.interface.lab_runner import LabRunner
from labs.interface.params import Param
from labs.interface.progress import Progress
from labs.runners.common import table
from labs.sim import downtime_per_year_h, parallel, parallel_sharing, serial
from labs.text import gettext, gettext_noop, given, ngettext, phrase

PARAMS = (
    Param(
        "one_copy_pct",
        gettext_noop("Availability of one copy"),
        "float_list",
        [99.0, 99.5],
        gettext_noop(
            "Comma-separated percentages, e.g. one Availability Zone (AZ) at 99.0 and at 99.5."
        ),
        min=0,
        max=100,
        max_items=4,
        group=gettext_noop("Copies in parallel"),
        unit=gettext_noop("%"),
    ),
    Param(
        "copies",
        gettext_noop("Most copies"),
        "int",
        3,
        gettext_noop("The lab compares 1, 2, … up to this many copies (one in each AZ)."),
        min=1,
        max=6,
        group=gettext_noop("Copies in parallel"),
    ),
    Param(
        "shared_pct",
        gettext_noop("Availability of a dependency every copy needs"),
        "float",
        99.9,
        gettext_noop(
            "One database, NAT gateway or config service that all the AZs share: when it "
            "is down, every copy is down at once. 100 means nothing is shared."
        ),
        min=0,
        max=100,
        group=gettext_noop("Copies in parallel"),
        unit=gettext_noop("%"),
    ),
    Param(
        "link_pct",
        gettext_noop("Availability of each link"),
        "float",
        99.9,
        gettext_noop("Every service the request needs works this share of the time."),
        min=0,
        max=100,
        group=gettext_noop("A chain in series"),
        unit=gettext_noop("%"),
    ),
    Param(
        "chain_lengths",
        gettext_noop("Chain lengths to compare"),
        "int_list",
        [3, 6],
        gettext_noop("Comma-separated: how many services one request passes through."),
        min=1,
        max=50,
        max_items=4,
        group=gettext_noop("A chain in series"),
    ),
    Param(
        "link_copies",
        gettext_noop("Copies of each link"),
        "int",
        3,
        gettext_noop("For the chain of copies: every link runs this many copies in parallel."),
        min=1,
        max=6,
        group=gettext_noop("A chain in series"),
    ),
    Param(
        "my_chain_pct",
        gettext_noop("Your own chain"),
        "float_list",
        [99.9, 99.9, 99.95],
        gettext_noop("Comma-separated percentages, one per service, e.g. API, Redis, database."),
        min=0,
        max=100,
        max_items=10,
        group=gettext_noop("Your own chain"),
        unit=gettext_noop("%"),
    ),
)


def check(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    once = {
        "one_copy_pct": gettext_noop("Give each availability only once."),
        "chain_lengths": gettext_noop("Give each chain length only once."),
    }
    for name, message in once.items():
        values = params[name]
        if len(set(values)) != len(values):
            errors[name] = gettext(message)
    return errors


def pct(a: float, copies: int = 1) -> str:
    """A share as a percentage with enough places to show what copies add.

    Each copy adds about two nines, so n copies get 2n places (two at least): 99.9900%
    for two copies of 99.0%, 99.999988% for three of 99.5%, as the lesson prints them.
    """
    places = max(2, 2 * copies)
    text = f"{a:.{places}%}"
    # Never print 100% for a service that is sometimes down: show one more place instead.
    while text.startswith("100.") and a < 1 and places < 12:
        places += 1
        text = f"{a:.{places}%}"
    return text


def downtime(a: float) -> str:
    """Time down per year in the largest unit that reads well."""
    hours = downtime_per_year_h(a)
    if hours >= 1:
        return f"{hours:,.1f} {gettext('h')}"
    if hours * 60 >= 1:
        return f"{hours * 60:.0f} {gettext('min')}"
    return f"{hours * 3600:.1f} s"


def _minutes_down(a: float) -> float:
    return downtime_per_year_h(a) * 60


def clean(a: float) -> float:
    """A share as a percentage for the summary, without float noise (99.99, not 99.99000000001)."""
    return round(a * 100, 10)


# A cell of the availability tables: the share up, and the downtime a year it means.
DOWN = gettext_noop("%(share)s (down %(time)s/yr)")


def copies_phrase(n: int) -> dict[str, Any]:
    """'1 copy', '3 copies' as the page says them (a phrase: translated where shown)."""
    return phrase(gettext_noop("1 copy")) if n == 1 else phrase(gettext_noop("%(n)s copies"), n=n)


def run(params: Mapping[str, Any], seed: int, progress: Progress) -> dict[str, Any]:
    """Work out every row; the arithmetic has no randomness."""
    shares = [p / 100 for p in params["one_copy_pct"]]
    counts = list(range(1, params["copies"] + 1))
    grid = [[parallel(a, n) for n in counts] for a in shares]
    link = params["link_pct"] / 100
    link_with_copies = parallel(link, params["link_copies"])
    lengths = params["chain_lengths"]
    chains = [(n, serial(*[link] * n), serial(*[link_with_copies] * n)) for n in lengths]
    shared = params["shared_pct"] / 100
    sharing = [parallel_sharing(shares[0], n, shared) for n in counts]
    mine = serial(*[p / 100 for p in params["my_chain_pct"]])
    longest = max(chains, key=lambda c: c[0])
    progress.update(1, 1)
    return {
        "summary": {
            "one_copy_pct": params["one_copy_pct"][0],
            "copies": params["copies"],
            "most_copies_pct": clean(grid[0][-1]),
            "most_copies_down_h_per_year": round(downtime_per_year_h(grid[0][-1]), 6),
            "longest_chain": longest[0],
            "longest_chain_pct": clean(longest[1]),
            "longest_chain_down_h_per_year": round(downtime_per_year_h(longest[1]), 6),
            "chain_of_copies_pct": clean(longest[2]),
            "shared_pct": params["shared_pct"],
            "most_copies_sharing_pct": clean(sharing[-1]),
            "most_copies_sharing_down_h_per_year": round(downtime_per_year_h(sharing[-1]), 6),
            "my_chain_pct": clean(mine),
            "my_chain_below_weakest_link": mine < min(params["my_chain_pct"]) / 100,
        },
        "series": {
            "copies": counts,
            **{
                f"down_min_per_year_at_{pct_:g}": [_minutes_down(a) for a in row]
                for pct_, row in zip(params["one_copy_pct"], grid, strict=True)
            },
        },
        "tables": {
            "parallel": table(
                gettext_noop("Copies in parallel: up while any one copy is up"),
                [
                    gettext_noop("one copy"),
                    *(copies_phrase(n) for n in counts),
                ],
                [
                    [
                        f"{given(p)}%",
                        *(
                            phrase(DOWN, share=pct(a, n), time=downtime(a))
                            for n, a in zip(counts, row, strict=True)
                        ),
                    ]
                    for p, row in zip(params["one_copy_pct"], grid, strict=True)
                ],
            ),
            "serial": table(
                phrase(
                    gettext_noop(
                        "A chain in series, each link at %(pct)s%%: up only while every link is up"
                    ),
                    pct=given(params["link_pct"]),
                ),
                [
                    gettext_noop("links"),
                    gettext_noop("one copy of each"),
                    phrase(
                        gettext_noop("%(copies)s of each"),
                        copies=copies_phrase(params["link_copies"]),
                    ),
                ],
                [
                    [
                        n,
                        phrase(DOWN, share=pct(single), time=downtime(single)),
                        phrase(
                            DOWN, share=pct(copied, params["link_copies"]), time=downtime(copied)
                        ),
                    ]
                    for n, single, copied in chains
                ],
            ),
            "shared_data": {
                "copies": counts,
                "independent": [_minutes_down(a) for a in grid[0]],
                "sharing": [_minutes_down(a) for a in sharing],
                "shared_alone": _minutes_down(shared),
            },
            "chain_data": {
                "links": list(range(1, max(lengths) + 1)),
                "single": [_minutes_down(serial(*[link] * n)) for n in range(1, max(lengths) + 1)],
                "copied": [
                    _minutes_down(serial(*[link_with_copies] * n))
                    for n in range(1, max(lengths) + 1)
                ],
            },
        },
    }


def headline(result: Mapping[str, Any]) -> list[str]:
    s, p = result["summary"], result["params"]
    lines = []
    for one in p["one_copy_pct"]:
        a = one / 100
        more = " · ".join(
            gettext("%(n)s copies %(pct)s") % {"n": n, "pct": pct(parallel(a, n), n)}
            for n in range(2, p["copies"] + 1)
        )
        if more:
            line = gettext("One copy at %(pct)s%% → %(more)s.")
        else:
            line = gettext("One copy at %(pct)s%%.")
        lines.append(line % {"pct": given(one), "more": more})
    if "most_copies_sharing_pct" in s:  # runs saved before the shared dependency have none
        lines.append(_sharing(s, p))
    link = p["link_pct"] / 100
    chains = " · ".join(
        gettext("a chain of %(n)s → %(pct)s") % {"n": n, "pct": pct(serial(*[link] * n))}
        for n in p["chain_lengths"]
    )
    lines.append(
        gettext("Each link at %(pct)s%%: %(chains)s.")
        % {"pct": given(p["link_pct"]), "chains": chains}
    )
    copied = parallel(link, p["link_copies"])
    lines.append(
        gettext("The chain of %(n)s with %(copies)s copies of each link → %(pct)s.")
        % {
            "n": s["longest_chain"],
            "copies": p["link_copies"],
            "pct": pct(serial(*[copied] * s["longest_chain"]), p["link_copies"]),
        }
    )
    mine = " × ".join(f"{given(v)}%" for v in p["my_chain_pct"])
    words = {"mine": mine, "pct": f"{s['my_chain_pct']:.2f}"}
    if s["my_chain_below_weakest_link"]:
        lines.append(
            gettext("Your chain %(mine)s = %(pct)s%%: lower than its weakest link.") % words
        )
    else:
        lines.append(gettext("Your chain %(mine)s = %(pct)s%%.") % words)
    return lines


def _sharing(s: Mapping[str, Any], p: Mapping[str, Any]) -> str:
    """The copies again, now that they all need one dependency: correlated failure."""
    one, n = p["one_copy_pct"][0], p["copies"]
    if p["shared_pct"] >= 100:
        return gettext(
            "Nothing is shared, so the copies fail only one by one, as 1 − (1 − a)ⁿ assumes."
        )
    alone = parallel(one / 100, n)
    return ngettext(
        "If %(n)s copy at %(one)s%% needs one dependency at %(shared)s%%, it is down "
        "whenever that is: %(pct)s (down %(down)s a year) instead of %(alone)s.",
        "If %(n)s copies of %(one)s%% all need one dependency at %(shared)s%%, they fail "
        "together whenever it fails: %(pct)s (down %(down)s a year) instead of %(alone)s.",
        n,
    ) % {
        "n": n,
        "one": given(one),
        "shared": given(p["shared_pct"]),
        "pct": pct(s["most_copies_sharing_pct"] / 100, n),
        "down": downtime(s["most_copies_sharing_pct"] / 100),
        "alone": pct(alone, n),
    }


FIGURES = (
    Figure("one_copy_pct", gettext_noop("One copy"), "float", gettext_noop("%")),
    Figure("copies", gettext_noop("Copies"), "int"),
    Figure("most_copies_pct", gettext_noop("With all the copies"), "float", gettext_noop("%")),
    Figure(
        "most_copies_down_h_per_year",
        gettext_noop("Downtime with all the copies"),
        "float",
        gettext_noop("h/year"),
    ),
    Figure("longest_chain", gettext_noop("Links in the longest chain"), "int"),
    Figure("longest_chain_pct", gettext_noop("Longest chain"), "float", gettext_noop("%")),
    Figure(
        "longest_chain_down_h_per_year",
        gettext_noop("Downtime of the longest chain"),
        "float",
        gettext_noop("h/year"),
    ),
    Figure(
        "chain_of_copies_pct", gettext_noop("Chain of copied links"), "float", gettext_noop("%")
    ),
    Figure("shared_pct", gettext_noop("A dependency every copy needs"), "float", gettext_noop("%")),
    Figure(
        "most_copies_sharing_pct",
        gettext_noop("All the copies, with that shared dependency"),
        "float",
        gettext_noop("%"),
    ),
    Figure(
        "most_copies_sharing_down_h_per_year",
        gettext_noop("Downtime of the copies with the shared dependency"),
        "float",
        gettext_noop("h/year"),
    ),
    Figure("my_chain_pct", gettext_noop("Your chain"), "float", gettext_noop("%")),
    Figure(
        "my_chain_below_weakest_link", gettext_noop("Your chain is below its weakest link"), "bool"
    ),
)


# What this lab's runner declares to the site (labs.interface.lab_runner).
RUNNER = LabRunner(
    params=PARAMS,
    run=run,
    headline=headline,
    figures=FIGURES,
    check=check,
)
