from django.middleware.csrf import CsrfViewMiddleware


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
