"""URLs of the page benchmark (benchmarks/bench_settings.py): the project's, and a bare view.

The bare view is the yardstick: the whole middleware stack and gunicorn, no work of its
own. Production never imports this module.
"""

from django.http import HttpRequest, HttpResponse
from django.urls import include, path


def bare(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


urlpatterns = [
    path("bench/bare", bare, name="bench-bare"),
    path("", include("config.urls")),
]
