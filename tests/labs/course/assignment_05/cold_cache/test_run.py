"""Assignment 05, follow-up 1: a cold cache in front of a small origin."""

from __future__ import annotations

from tests.lab_helpers import headline, lab, run


def test_it_keeps_the_cold_origin_within_budget_and_accounts_for_every_read():
    result = run("cold-cache", horizon_s=20)
    s = result["summary"]
    assert s["origin_within_budget"] and s["origin_peak_rps"] <= 100
    assert s["every_read_accounted"]
    series = result["series"]
    for i, offered in enumerate(series["offered"]):
        parts = sum(series[o][i] for o in ("hit", "stale", "coalesced", "fetched", "rejected"))
        assert parts == offered


def test_it_says_where_the_other_reads_went():
    text = headline("cold-cache", run("cold-cache", horizon_s=20))
    assert "The origin took 80.8/s on average (peak 99/s, budget 100/s)." in text
    assert (
        "The other 913.9/s: 777.8 fresh hits, 8.9 joined a fetch already on its way and "
        "127.2 fast 429s." in text
    )
    assert "The origin stayed within its budget." in text


def test_it_shows_the_origin_overloaded_without_a_budget():
    result = run("cold-cache", horizon_s=10, origin_budget=False, coalescing="none")
    assert not result["summary"]["origin_within_capacity"]
    assert "more than the 100/s it can do" in headline("cold-cache", result)
    reads, origin = lab("cold-cache").charts(result)
    assert [n["text"] for n in origin["layout"]["annotations"]] == ["origin can do 100/s"]


def test_it_shows_the_first_ten_seconds_as_a_table():
    rows = run("cold-cache", horizon_s=10)["tables"]["first_10s_table"]["rows"]
    assert rows[0] == ["fetched", "80.8", "went to the origin itself (within the budget)"]


def test_it_shows_ttl_jitter_spreading_the_expiries_of_many_keys():
    plain = headline("cold-cache", run("cold-cache", horizon_s=60))
    jittered = headline("cold-cache", run("cold-cache", horizon_s=60, ttl_jitter=0.5))
    assert "Once the first copies expired (from 30 s), the origin's busiest second had 76" in plain
    assert (
        "Once the first copies expired (from 15 s), the origin's busiest second had 46 fetches "
        "(TTL jitter of ±50% spread the expiries)." in jittered
    )


def test_it_says_ttl_jitter_cannot_help_one_hot_key():
    text = headline("cold-cache", run("cold-cache", horizon_s=20, keys=1))
    assert "One hot key expires at one moment whatever its TTL" in text
