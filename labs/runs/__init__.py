"""The run lifecycle: the Run record, dispatch, the Celery task, leases, progress, retained
queues."""
