from django.urls import path

from ops import metrics, queues, views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("healthz/deep", views.healthz_deep, name="healthz-deep"),
    path("metrics", metrics.metrics, name="metrics"),
    path("ops/queues", queues.queues_page, name="ops-queues"),
]
