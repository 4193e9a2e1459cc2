"""The drain lab's headline says what was left at the end as a student reads it (second
language review §5, item 20: "0 jobs were still waiting after 10 s")."""

from __future__ import annotations

from django.utils import translation

from labs.course.lesson_12.drain.run import left_words


def test_nothing_left_is_said_as_no_jobs_and_one_job_as_one():
    with translation.override("en"):
        assert left_words(0, 10) == "No jobs were left waiting after 10 s."
        assert left_words(1, 10) == "1 job was still waiting after 10 s."
        assert left_words(150, 10) == "150 jobs were still waiting after 10 s."
    with translation.override("mr"):
        assert left_words(0, 10) == "10 s नंतर एकही काम थांबलेले नव्हते."
        assert left_words(1, 10) == "10 s नंतर अजून 1 काम थांबले होते."
