"""Health endpoints: /healthz (this process answers) and /healthz/deep (it can do its work)."""

from __future__ import annotations

import hmac

from django.conf import settings
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
    body: dict = {
        "status": "down" if down else "degraded" if degraded else "ok",
        "down": down,
        "degraded": degraded,
    }
    if may_see_detail(request):
        body["checks"] = {c.name: {"ok": c.ok, "detail": c.detail} for c in checks}
    return JsonResponse(body, status=503 if down else 200)


def may_see_detail(request: HttpRequest) -> bool:
    """Staff, or a monitor with the health token: the detail names hosts and errors."""
    if request.user.is_authenticated and request.user.is_staff:
        return True
    token = settings.HEALTH_TOKEN
    sent = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    return bool(token) and hmac.compare_digest(sent.encode(), token.encode())
