"""Another class's lab beside a class experiment: a student pressing Run every few seconds.

Each press has a seed of its own, so the result store never answers it and a worker
computes every one; the press waits for the result as the lab's page does (`burst.
press_run`: the htmx POST, then the polls its fragment asks for). Runs in a thread of its
own, beside the experiment's phones.
"""

from __future__ import annotations

import random
import threading
import time

from burst import Student, Timing, lab_form, press_run

# A quick lab (it goes to the quick workers' queue) that takes a seed: drain has none, so
# the store would answer every press of it after the first.
OTHER_LAB = "trapped-service"


def press(student: Student, seeds: random.Random) -> Timing:
    from labs.text import SEED_MAX

    form = lab_form(OTHER_LAB, seeds.randrange(1, SEED_MAX))
    return press_run(student, OTHER_LAB, form, threading.Barrier(1))


def other_class(student: Student, every_s: float, stop: threading.Event, out: list[Timing]):
    """Press Run on OTHER_LAB with a new seed every `every_s` (or at once after a slower
    answer), each time waiting for the result as the page does, until `stop`."""
    seeds = random.SystemRandom()
    while not stop.is_set():
        started = time.monotonic()
        out.append(press(student, seeds))
        stop.wait(max(0.0, every_s - (time.monotonic() - started)))


def presses_for(student: Student, seconds: float, every_s: float) -> list[Timing]:
    stop, out = threading.Event(), []
    thread = threading.Thread(target=other_class, args=(student, every_s, stop, out))
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    return out


def warm_up(student: Student) -> None:
    """Until the workers answer a press (they start after the web does), then twice more."""
    student.request(f"/labs/{OTHER_LAB}/")
    seeds = random.SystemRandom()
    deadline = time.monotonic() + 300
    answered = 0
    while answered < 3 and time.monotonic() < deadline:
        if press(student, seeds).error:
            time.sleep(2)
        else:
            answered += 1
