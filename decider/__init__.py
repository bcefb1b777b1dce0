# The Celery app loads with Django, so `shared_task`s bind to it (decider/celery.py).
from decider.celery import app as celery_app

__all__ = ["celery_app"]
