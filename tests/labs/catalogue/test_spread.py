"""Noise made visible: a random lab's run over 20 seeds equals 20 runs of one seed each."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse

from labs.catalogue.entries import LABS, get_lab
from labs.catalogue.spread import (
    MAX_OVER_SEEDS_S,
    OVER_SEEDS,
    SEEDS,
    seeds_after,
)
from labs.catalogue.spread_words import typical_words
from labs.course.lesson_13.retry_storm import charts as retry_storm_charts
from labs.experiments.namespace import Namespace, connect, kept_id, run_key_for
from labs.interface.figures import Figure
from labs.interface.progress import SilentProgress
from labs.runs.admission import over_budget
from labs.runs.models import Run
from labs.text import SEED_MAX
from labs.web.presenters import present_run
from tests.lab_helpers import form, refusal

# Small settings so twenty runs stay quick; the mechanism is the same at any size.
CHEAP = {
    "backoff": {},
    "retry-storm": {"clients": 100, "compare_clients": [200]},
    "job-cost": {},
    "cascade": {"rate_per_s": 20, "duration_s": 30, "down_from_s": 5, "down_until_s": 20},
}


# The phase map repeats its seeds itself ("how often trapped over 10 seeds").
OWN_SEEDS = {"phase-map"}


def test_every_random_lab_offers_its_twenty_seeds_or_names_a_twin_that_does():
    offered = {lab.slug for lab in LABS if OVER_SEEDS in lab.params}
    random_labs = {lab.slug for lab in LABS if lab.uses_seed} - OWN_SEEDS
    assert offered <= random_labs
    for slug in sorted(random_labs - offered):
        twin = get_lab(slug).seeds_twin
        assert twin in offered, (
            f"{slug} draws random numbers but neither offers 20 seeds nor names a simulated "
            "twin that does (seeds_twin)"
        )
        assert get_lab(twin).kind == "sim"
    assert not [slug for slug in offered if get_lab(slug).seeds_twin]
    assert {"retries-live", "fanout-live"} <= offered
    assert get_lab("trapped-live").seeds_twin == "trapped-service"


@pytest.mark.parametrize("slug", sorted(CHEAP))
def test_its_figures_equal_twenty_single_runs(slug):
    lab = get_lab(slug)
    params = {**lab.defaults(), **CHEAP[slug]}
    spread = lab.run({**params, "over_seeds": True}, 40, SilentProgress())
    data = spread["tables"]["seed_spread_data"]
    assert data["seeds"] == list(range(40, 40 + SEEDS))
    singles = [lab.run(params, s, SilentProgress())["summary"] for s in data["seeds"]]
    assert data["values"] == [s[data["figure"]] for s in singles]
    # The run itself is the student's own seed's, with the spread beside it.
    assert spread["summary"] == singles[0]
    assert any(row[1] for row in spread["tables"]["seed_spread"]["rows"])


def test_without_the_box_the_run_is_the_lab_as_before():
    lab = get_lab("retry-storm")
    params = {**lab.defaults(), **CHEAP["retry-storm"]}
    result = lab.run(params, 5, SilentProgress())
    assert "seed_spread" not in result["tables"]
    shown = {**result, "params": params}
    assert lab.charts(shown) == retry_storm_charts.build(shown)  # no spread chart added
    with_spread = lab.run({**params, "over_seeds": True}, 5, SilentProgress())
    assert len(lab.charts({**with_spread, "params": params})) == len(lab.charts(shown)) + 1


def test_its_cost_is_twenty_times_the_labs():
    lab = get_lab("retry-storm")
    one = lab.cost(lab.defaults())
    assert lab.cost({**lab.defaults(), "over_seeds": True}).seconds == pytest.approx(
        one.seconds * SEEDS
    )


def test_seeds_wrap_below_the_largest():
    assert seeds_after(SEED_MAX, 3) == [SEED_MAX, 0, 1]


FIGURE = Figure("busiest_slot", "Busiest slot", "int")


@pytest.mark.parametrize(
    ("values", "says"),
    [
        ([5, 1, 9, 3, 7, 2, 8, 4, 6, 5], "typical"),
        ([9, 1, 2, 3, 4, 5, 6, 7, 8, 5], "highest"),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 5], "lowest"),
        ([4] * 10, "every time"),
    ],
)
def test_it_says_whether_the_students_seed_is_typical(values, says):
    result = {"tables": {"seed_spread_data": {"values": values}}}
    (line,) = typical_words(result, FIGURE)
    assert says in line


def test_it_says_nothing_without_a_spread():
    assert typical_words({"tables": {}}, FIGURE) == []


# retries-live, small: ten payments, one receive each (a payment whose tries all fail goes
# straight to the DLQ, no visibility timeout to wait), so twenty runs take a few seconds.
SMALL_RETRIES = {"messages": 10, "workers": 2, "max_receives": 1, "base_s": 0.0, "cap_s": 0.0}


class SiteProgress(SilentProgress):
    """Progress as a run started from the site has it: its keys under the run's namespace."""

    def __init__(self) -> None:
        super().__init__()
        self.run_key = run_key_for(uuid.uuid4())


@pytest.mark.redis
def test_a_real_queue_over_twenty_seeds_equals_twenty_single_runs_and_leaves_no_keys():
    lab = get_lab("retries-live")
    params = {**lab.defaults(), **SMALL_RETRIES}
    progress = SiteProgress()
    r = connect()
    kept = Namespace(kept_id(progress.run_key))
    try:
        spread = lab.run({**params, "over_seeds": True}, 40, progress)
        data = spread["tables"]["seed_spread_data"]
        assert data["seeds"] == list(range(40, 40 + SEEDS))
        assert (progress.done, progress.total) == (SEEDS, SEEDS)
        # Nothing of the run's twenty namespaces is left; only the student's seed's DLQ is kept.
        assert Namespace(progress.run_key).keys(r) == []
        assert int(r.hget(kept.key("kept"), "kept")) == spread["summary"]["dlq"]
    finally:
        kept.cleanup(r)
    singles = [lab.run(params, s, SilentProgress())["summary"] for s in data["seeds"]]
    assert data["values"] == [s["first_try_ok_share"] for s in singles]
    assert data["expected"] == singles[0]["expected_first_try_ok_share"] == 0.5
    deterministic = ("made", "dlq", "receives", "calls", "failed_calls", "first_try_ok_share")
    assert {k: spread["summary"][k] for k in deterministic} == {
        k: singles[0][k] for k in deterministic
    }
    assert spread["summary"]["keys_left"] == 0 and not spread["summary"]["stopped_early"]
    said = lab.headline({**spread, "params": params})
    assert any(f"The expected {50:.1f}%" in line for line in said)


def test_twenty_seeds_of_an_experiment_too_long_are_refused_in_words():
    # One run bounded at 10.2 s: twenty could take 204 s, past the 110 s allowed.
    errors = refusal("retries-live", over_seeds=True, messages=200, workers=2)
    assert "20 seeds could take 204 s" in errors["over_seeds"][0]
    assert form("retries-live", messages=200, workers=2).is_valid()  # one run fits


@pytest.mark.parametrize("slug", ["retries-live", "fanout-live"])
def test_the_budget_refuses_twenty_seeds_that_one_run_fits(slug, settings):
    lab = get_lab(slug)
    one = lab.cost(lab.defaults()).seconds
    settings.LAB_EXPERIMENT_BUDGET_S = int(one * SEEDS) - 1
    assert over_budget(lab, lab.defaults()) is None
    message, drivers = over_budget(lab, {**lab.defaults(), "over_seeds": True})
    assert "over_seeds" in drivers and "real time" in message


@pytest.mark.parametrize("slug", ["retries-live", "fanout-live"])
def test_twenty_seeds_of_an_experiment_get_a_time_limit_that_covers_their_bound(slug):
    lab = get_lab(slug)
    assert lab.time_limit_for(lab.defaults()) == lab.time_limit_s
    over = {**lab.defaults(), "over_seeds": True}
    bound = lab.cost(over).seconds
    assert bound <= MAX_OVER_SEEDS_S
    assert bound < lab.time_limit_for(over) <= MAX_OVER_SEEDS_S + 15


@pytest.mark.django_db
@pytest.mark.parametrize(("over_seeds", "shows"), [(True, "Seed 4 of 20"), (False, "")])
def test_a_running_experiment_over_seeds_says_which_seed_instead_of_one_queue_live(
    over_seeds, shows
):
    lab = get_lab("retries-live")
    run = Run(
        lab=lab.slug,
        params={**lab.defaults(), "over_seeds": over_seeds},
        status=Run.Status.RUNNING,
        progress={"done": 3, "total": SEEDS, "samples": [{"t_s": 0.1, "visible": 4}]},
    )
    view = present_run(run, lab)
    assert view.hint == shows
    assert (view.live is None) == over_seeds


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "so it offers no 20-seed view"),
        ("mr", "म्हणून इथे 20 seeds चा फैलाव पाहता येत नाही"),
    ],
)
def test_trapped_live_says_why_it_has_no_twenty_seeds_and_links_its_twin(
    client, db, settings, language, words
):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    page = client.get(reverse("lab-detail", args=["trapped-live"])).content.decode()
    twin = reverse("lab-detail", args=["trapped-service"])
    note = page[page.index('class="seeds-twin"') :].split("</p>")[0]
    assert words in note and f'href="{twin}"' in note
    assert f"{get_lab('trapped-live').over_seeds_minutes()} " in note
    assert (
        'class="seeds-twin"'
        not in client.get(reverse("lab-detail", args=["retries-live"])).content.decode()
    )
