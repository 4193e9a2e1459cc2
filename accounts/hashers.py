"""Password hashing tuned for a school server: memory-hard, but cheap enough for a class.

Django's default (PBKDF2, over a million rounds) costs most of a second of CPU per login;
thirty students logging in together then queue for many seconds. Argon2id with 19 MiB and
two passes (the lowest setting OWASP recommends) costs tens of milliseconds and stays
expensive to attack on GPUs because of the memory it needs. `bench/bench_password_hash.py`
measures it. Hashes made with other parameters are upgraded at the next login.
"""

from __future__ import annotations

from django.contrib.auth.hashers import Argon2PasswordHasher


class ClassroomArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2id, 19 MiB, 2 passes, 1 lane: about tens of ms per check on one core."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1
