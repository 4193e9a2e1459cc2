"""Health endpoints: /healthz (this process answers) and /healthz/deep (it can do its work)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from ops.health import deep_checks


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@require_GET
@never_cache
def healthz_deep(request: HttpRequest) -> JsonResponse:
    """200 `ok`; 200 `degraded` (it answers, stored results too, but new runs are refused:
    a queue has no worker or its oldest run is too old); 503 `down` (a dependency is)."""
    checks = deep_checks()
    down = [check.name for check in checks if not check.ok and check.failing == "down"]
    degraded = [check.name for check in checks if not check.ok and check.failing != "down"]
    body = {
        "status": "down" if down else "degraded" if degraded else "ok",
        "down": down,
        "degraded": degraded,
        "checks": {c.name: {"ok": c.ok, "detail": c.detail} for c in checks},
    }
    return JsonResponse(body, status=503 if down else 200)
