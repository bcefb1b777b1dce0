"""The job queue: Celery on Redis (docs/OPERATIONS.md, "Jobs").

PDFs and the rule-set impact preview are jobs: a web worker enqueues one and answers at
once; a Celery worker runs it. Without `CELERY_BROKER_URL` (`make run`, the tests) every job
runs inline, in the process and request that enqueued it.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("decider")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["decider"])
