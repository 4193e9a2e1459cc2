"""Typed readers for settings that come from environment variables.

Each one fails loudly on a value it cannot read, so a typo in a deployment stops the
site at start-up instead of quietly running with a default.
"""

from __future__ import annotations

import os


class ImproperEnv(ValueError):
    """An environment variable is set to a value the site cannot use."""


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ImproperEnv(f"{name} must be true or false, got {raw!r}")


def env_int(name: str, default: int, *, low: int | None = None, high: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperEnv(f"{name} must be a whole number, got {raw!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise ImproperEnv(f"{name} must be between {low} and {high}, got {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def with_redis_db(url: str, db: int) -> str:
    """`url` pointing at Redis database `db` of the same server (user, host and port kept)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{db}"))


# Django's own deployment check asks for at least this much; shorter keys are guessable.
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_DISTINCT = 5
DEV_SECRET_KEY = "dev-only-secret-key-not-for-production"  # noqa: S105 - local default only


def secret_key(*, debug: bool) -> str:
    """The signing key: SECRET_KEY, or the contents of the file named by SECRET_KEY_FILE.

    A missing key is allowed only with DEBUG on (a laptop); a short one never, so a typo
    or a placeholder cannot end up signing real sessions.
    """
    key = os.environ.get("SECRET_KEY", "")
    path = os.environ.get("SECRET_KEY_FILE", "")
    if not key and path:
        try:
            with open(path, encoding="utf-8") as handle:
                key = handle.read().strip()
        except OSError as error:
            raise ImproperEnv(f"SECRET_KEY_FILE {path!r} cannot be read: {error}") from None
    if not key:
        if debug:
            return DEV_SECRET_KEY
        raise ImproperEnv(
            "SECRET_KEY (or SECRET_KEY_FILE) must be set when DEBUG is false; "
            "`./dev serve` makes one in var/secret_key"
        )
    if len(key) < SECRET_KEY_MIN_LENGTH or len(set(key)) < SECRET_KEY_MIN_DISTINCT:
        raise ImproperEnv(
            f"SECRET_KEY is too short or too plain: it needs at least {SECRET_KEY_MIN_LENGTH} "
            f"characters and {SECRET_KEY_MIN_DISTINCT} different ones (got {len(key)}). Make one "
            "with: python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    return key
