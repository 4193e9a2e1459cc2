"""The answer-fast lab in production: save, queue once committed, answer at once.

Django's `delay_on_commit` and Celery's `acks_late`, `autoretry_for`, `retry_backoff` and
`retry_backoff_max`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labs.catalogue.advice import Snippet
from labs.text import gettext


def snippets(values: Mapping[str, Any]) -> list[Snippet]:
    """The queued way in Django and Celery: save, queue once the row is committed, answer 201;
    the task sends the batches and retries with jittered backoff while the provider is down."""
    timeout = f"{values['call_timeout_ms'] / 1000:g}"
    code = (
        "from celery import shared_task\n"
        "from django.http import JsonResponse\n\n\n"
        "@shared_task(\n"
        "    acks_late=True,\n"
        "    autoretry_for=(ProviderDown,),\n"
        "    retry_backoff=True,  # "
        + gettext("a pause that doubles after each failure, jittered")
        + "\n"
        "    retry_backoff_max=30,\n"
        "    max_retries=None,\n"
        ")\n"
        "def send_notice(notice_id):\n"
        "    notice = Notice.objects.get(pk=notice_id)\n"
        "    for batch in notice.unsent_batches(size=500):\n"
        f"        provider.send(batch, timeout={timeout})\n"
        "        batch.mark_sent()  # "
        + gettext("a retry skips the batches already sent")
        + "\n\n\n"
        "def post_notice(request):\n"
        '    notice = Notice.objects.create(text=request.POST["text"])\n'
        "    # " + gettext("queued only once the notice is committed; then answer at once") + "\n"
        "    send_notice.delay_on_commit(notice.pk)\n"
        '    return JsonResponse({"id": notice.pk}, status=201)\n'
    )
    return [Snippet("Django + Celery", "python", code)]
