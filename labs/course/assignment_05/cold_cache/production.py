"""The cold-cache lab in production: freshness, one fetch per key, and stale copies.

nginx's `proxy_cache_valid`, `proxy_cache_lock`, `proxy_cache_lock_timeout`,
`proxy_cache_use_stale` and `proxy_cache_background_update`; the Cache-Control extension
`stale-while-revalidate` (RFC 5861).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The cold-cache lab in nginx: freshness, one fetch per key, stale copies."""
    ttl = max(1, math.ceil(values["ttl_s"]))
    lines = [
        "location /reading-list/ {",
        "    proxy_pass http://origin;",
        "    proxy_cache lists;",
        f"    proxy_cache_valid 200 {ttl}s;",
    ]
    if values["coalescing"] != "none":
        lock_ms = int(values["client_timeout_ms"])
        lines += [
            "    # " + gettext("one fetch per key; the others wait for it (within one server)"),
            "    proxy_cache_lock on;",
            f"    proxy_cache_lock_timeout {lock_ms}ms;",
        ]
    if values["serve_stale"]:
        lines += [
            "    # " + gettext("serve the expired copy while one fetch renews it"),
            "    proxy_cache_use_stale updating error timeout;",
            "    proxy_cache_background_update on;",
        ]
    lines.append("}")
    snippets = [Snippet("nginx", "nginx", "\n".join(lines) + "\n")]
    if values["serve_stale"]:
        header = (
            f"Cache-Control: max-age={ttl}, stale-while-revalidate={int(values['stale_max_s'])}\n"
        )
        snippets.append(Snippet("HTTP (RFC 5861)", "http", header))
    return snippets
