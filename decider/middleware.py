import logging
import time

from django.middleware.csrf import CsrfViewMiddleware

log = logging.getLogger(__name__)


class NoReferrerCsrfViewMiddleware(CsrfViewMiddleware):
    """CSRF protection for pages sent with `Referrer-Policy: no-referrer`.

    Shared pages must not leak their capability URL, so they send no
    referrer; browsers then also send `Origin: null` on the page's own form
    posts, which Django's origin check refuses. For that one value, when the
    browser does not say the post came from another site (`Sec-Fetch-Site`),
    we skip the origin check and rely on the rest of the protection: the
    CSRF token (its cookie is SameSite=Lax, so a cross-site post does not
    carry it). Any real origin is still checked as usual.
    """

    def _origin_verified(self, request):
        if request.META.get("HTTP_ORIGIN") == "null":
            return request.META.get("HTTP_SEC_FETCH_SITE", "same-origin") == "same-origin"
        return super()._origin_verified(request)


class HealthCheckMiddleware:
    """Answer /healthz before anything reads the Host header.

    Container health checks and load balancers address the app by IP or service
    name, which ALLOWED_HOSTS rightly does not list; SecurityMiddleware and
    CommonMiddleware would refuse them (400) or redirect them to HTTPS. The check
    reveals nothing but whether the database answers, so any host may ask.
    First in MIDDLEWARE for that reason.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info == "/healthz":
            from decider.views import healthz  # the views import models: not at startup

            return healthz(request)
        return self.get_response(request)


class DatabaseAwayMiddleware:
    """A request that meets a lost database connection is not a 500.

    A request that has written nothing yet (every page, and a save whose write had not run)
    is tried again on a fresh connection, waiting a little longer each time (`RETRY_WAITS`,
    about 4 s in all: PostgreSQL restarts in 0.3 to 2.2 s here). A failed write was rolled
    back whole (every save is one transaction), so running the view again is the same save.
    A request that did write (an INSERT, UPDATE or DELETE ran) is never run twice; it, and
    one whose database stays away, answers 503 with Retry-After and a page that says
    nothing saved is lost.
    """

    RETRY_AFTER_S = 5
    RETRY_WAITS = (0.25, 0.5, 1.0, 2.0)
    WRITES = ("INSERT", "UPDATE", "DELETE")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.db import connection

        request._db_wrote = False

        def watch(execute, sql, params, many, context):
            result = execute(sql, params, many, context)
            if sql.lstrip()[:6].upper() in self.WRITES:
                request._db_wrote = True
            return result

        with connection.execute_wrapper(watch):
            return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import InterfaceError, OperationalError

        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        log.warning("database away on %s: %s", request.method, exception)
        _drop_broken_connections()
        if getattr(request, "_db_retrying", False):
            return None  # the retry below sees it
        request._db_retrying = True
        match = request.resolver_match
        for wait in self.RETRY_WAITS:
            if request._db_wrote:
                break
            time.sleep(wait)
            try:
                return match.func(request, *match.args, **match.kwargs)
            except (OperationalError, InterfaceError) as again:
                log.warning("database still away: %s", again)
                _drop_broken_connections()
        return database_away(request, self.RETRY_AFTER_S)


def _drop_broken_connections() -> None:
    """Close the connections the error broke, so the next query opens a fresh one; never one
    inside a transaction (closing it there would doom the whole transaction)."""
    from django.db import connections

    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close_if_unusable_or_obsolete()


def database_away(request, retry_after: int):
    from django.http import JsonResponse
    from django.shortcuts import render
    from django.utils.translation import gettext as _

    message = _(
        "The database is not answering for a moment. Nothing you saved is lost; try again in a few seconds."
    )
    if request.path.startswith("/api/") or request.path.endswith(".json"):
        response = JsonResponse({"error": message}, status=503)
    else:
        try:
            response = render(request, "503.html", {"message": message}, status=503)
        except Exception:  # the page itself may need the database (sessions, messages)
            from django.http import HttpResponse

            response = HttpResponse(message, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(retry_after)
    return response


class TimeBudgetMiddleware:
    """Each request within `DECIDER_REQUEST_BUDGET_S` seconds (decider/budget.py): one that
    runs past it answers 503 with a message that says what happened (JSON on the API), and
    the worker goes on to the next request. Nothing is saved half: every save is one
    transaction, rolled back by the error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings

        from decider.budget import TooSlow, time_budget

        try:
            with time_budget(settings.DECIDER_REQUEST_BUDGET_S):
                return self.get_response(request)
        except TooSlow as stopped:  # past the view (a middleware's own work)
            return _too_slow(request, stopped)

    def process_exception(self, request, exception):
        """The view ran past the budget (Django turns a view's error into a response before
        __call__ would see it)."""
        from decider.budget import TooSlow

        return _too_slow(request, exception) if isinstance(exception, TooSlow) else None


def _too_slow(request, stopped):
    from django.http import JsonResponse
    from django.shortcuts import render
    from django.utils.translation import gettext

    log.error("%s %s %s", request.method, request.path, stopped)
    _drop_broken_connections()  # a query cut off mid-way leaves its connection unusable
    message = gettext(
        "This took longer than %(seconds)s seconds to compute and was stopped. Nothing you "
        "saved is lost. If it happens again, check the answers and figures for an extreme "
        "value, or tell the operators."
    ) % {"seconds": f"{stopped.seconds:g}"}
    if request.path.startswith("/api/"):
        return JsonResponse({"error": message}, status=503)
    return render(request, "too_slow.html", {"message": message}, status=503)
