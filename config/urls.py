"""The root URLconf: the app's pages and API, the admin and the language switch."""

from django.contrib import admin
from django.urls import include, path
from django_ratelimit.decorators import ratelimit

from decider import limits

# Sign-in attempts per client are limited (a 429 page past DECIDER_RATES["login"]).
admin.site.login = ratelimit(  # type: ignore[method-assign]
    key="ip", rate=limits.rate("login"), method="POST", block=True
)(admin.site.login)

# An unexpected error on the API answers JSON, not the 500 page (DEBUG shows the traceback).
handler500 = "decider.api.server_error"

urlpatterns = [
    path("", include("decider.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
