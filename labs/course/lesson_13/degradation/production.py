"""The degradation lab in production: serve the last saved page while the service fails.

nginx's `proxy_cache_valid` and `proxy_cache_use_stale`; the Cache-Control extension
`stale-if-error` (RFC 5861), as Django's `patch_cache_control` writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext, num


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The degradation lab: serve the last saved page while the service fails."""
    nginx = (
        "proxy_cache_path /var/cache/nginx keys_zone=results:10m inactive=1d;\n\n"
        "location /results/ {\n"
        "    proxy_pass http://results-service;\n"
        "    proxy_cache results;\n"
        "    proxy_cache_valid 200 1m;\n"
        "    # " + gettext("while the service fails, answer with the saved page") + "\n"
        "    proxy_cache_use_stale error timeout http_500 http_502 http_503 http_504;\n"
        "}\n"
    )
    snippets = [Snippet("nginx", "nginx", nginx)]
    if values["limit_age"]:
        limit = int(values["max_stale_s"])
        django = (
            "from django.utils.cache import patch_cache_control\n\n"
            "# "
            + gettext("no page older than %(n)s s past its freshness (RFC 5861)")
            % {"n": num(limit)}
            + "\n"
            f"patch_cache_control(response, max_age=60, stale_if_error={limit})\n"
        )
        snippets.append(Snippet("Django", "python", django))
    return snippets
