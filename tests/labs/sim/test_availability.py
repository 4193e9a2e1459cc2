"""Lesson 13's multi-AZ and dependency-chain figures, reproduced by `labs.sim.availability`."""

from __future__ import annotations

import pytest

from labs.sim import downtime_per_month_min, downtime_per_year_h, parallel, serial


@pytest.mark.parametrize(
    ("one_az", "two_azs", "three_azs"),
    [(0.99, "99.9900%", "99.999900%"), (0.995, "99.9975%", "99.999988%")],
)
def test_it_raises_availability_with_copies_as_the_lesson_prints(one_az, two_azs, three_azs):
    assert f"{parallel(one_az, 2):.4%}" == two_azs
    assert f"{parallel(one_az, 3):.6%}" == three_azs


def test_it_lowers_availability_along_a_chain_as_the_lesson_prints():
    assert f"{serial(0.999, 0.999, 0.999):.2%}" == "99.70%"
    assert f"{serial(*[0.999] * 6):.2%}" == "99.40%"
    assert f"{serial(*[parallel(0.999, 3)] * 6):.6%}" == "99.999999%"


def test_it_multiplies_api_redis_and_database_to_the_lessons_total():
    assert f"{serial(0.999, 0.999, 0.9995):.2%}" == "99.75%"
    assert serial(0.999, 0.999, 0.9995) < min(0.999, 0.999, 0.9995)


def test_it_is_down_only_when_every_copy_is_down():
    assert parallel(0.9, 2) == pytest.approx(0.99)
    assert parallel(0.8, 1) == pytest.approx(0.8)
    assert parallel(0.0, 5) == 0.0


def test_it_treats_a_chain_of_one_as_that_link():
    assert serial(0.97) == 0.97


@pytest.mark.parametrize(
    ("availability", "per_year_h", "per_month_min"),
    [(0.999, 8.76, 43.2), (0.99, 87.6, 432.0), (1.0, 0.0, 0.0)],
)
def test_it_turns_availability_into_downtime(availability, per_year_h, per_month_min):
    assert downtime_per_year_h(availability) == pytest.approx(per_year_h)
    assert downtime_per_month_min(availability) == pytest.approx(per_month_min)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: parallel(1.5, 2), "a must be between 0 and 1"),
        (lambda: parallel(0.9, 0), "copies must be >= 1"),
        (lambda: serial(), "at least one"),
        (lambda: serial(0.9, -0.1), r"a\[1\] must be between 0 and 1"),
        (lambda: downtime_per_year_h(2), "a must be between 0 and 1"),
        (lambda: downtime_per_month_min(-1), "a must be between 0 and 1"),
    ],
)
def test_it_refuses_bad_arguments_with_the_name(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_copies_that_share_a_dependency_are_never_above_it():
    from labs.sim import parallel_sharing

    assert parallel_sharing(0.999, 2, 1.0) == parallel(0.999, 2)
    assert f"{parallel_sharing(0.999, 2, 0.999):.4%}" == "99.8999%"
    assert all(parallel_sharing(0.99, n, 0.999) < 0.999 for n in range(1, 7))
    with pytest.raises(ValueError, match="shared must be between 0 and 1"):
        parallel_sharing(0.99, 2, 1.5)
