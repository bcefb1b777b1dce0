"""The project's configuration: settings, the root URLconf, the WSGI entry point and the
Celery app. The `decider` app and its pure engine import without any of it."""

# The Celery app loads with Django, so `shared_task`s bind to it (config/celery.py).
from config.celery import app as celery_app

__all__ = ["celery_app"]
