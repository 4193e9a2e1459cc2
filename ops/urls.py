from django.urls import path

from ops import metrics, offline, queues, views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("healthz/deep", views.healthz_deep, name="healthz-deep"),
    path("metrics", metrics.metrics, name="metrics"),
    path("ops/queues", queues.queues_page, name="ops-queues"),
    # The service worker at the root, so it controls every page; the page it shows offline.
    path("sw.js", offline.service_worker, name="service-worker"),
    path("offline/", offline.offline, name="offline"),
]
