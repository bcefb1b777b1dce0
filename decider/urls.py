"""The app's pages and API (config/urls.py mounts them beside the admin)."""

from django.urls import path, register_converter

from decider import api, views


class TokenConverter:
    """A link token: `secrets.token_urlsafe` characters, never a dot (so `.json` can follow)."""

    regex = "[A-Za-z0-9_-]{16,64}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TokenConverter, "token")

EDIT, VIEW = {"kind": "edit"}, {"kind": "view"}

urlpatterns = [
    path("", views.home, name="decider-home"),
    path("mine/", views.mine, name="decider-mine"),
    path("compare/", views.compare, name="decider-compare"),
    path("method/", views.method, name="decider-method"),
    # Edit links.
    path("a/<token:token>/step/<slug:slug>/", views.step, name="decider-step"),
    path("a/<token:token>/size/", views.size_work, name="decider-size"),
    path("a/<token:token>/workloads/", views.workloads, name="decider-workloads"),
    path("a/<token:token>/", views.result, name="decider-result"),
    path("a/<token:token>/what-if/", views.what_if, EDIT, name="decider-edit-what-if"),
    path("a/<token:token>/scenario/", views.save_scenario, EDIT, name="decider-edit-scenario"),
    path("a/<token:token>.json", api.assessment_json, EDIT, name="decider-edit-json"),
    path("a/<token:token>/report/", views.printable, EDIT, name="decider-edit-report"),
    path("a/<token:token>/report.pdf", views.report_pdf, EDIT, name="decider-edit-pdf"),
    path("a/<token:token>/rename/", views.rename, name="decider-rename"),
    path("a/<token:token>/copy/", views.copy, name="decider-copy"),
    path("a/<token:token>/links/", views.links, name="decider-links"),
    path("a/<token:token>/rescore/", views.rescore, name="decider-rescore"),
    # View-only links.
    path("v/<token:token>/", views.result, VIEW, name="decider-view"),
    path("v/<token:token>/what-if/", views.what_if, VIEW, name="decider-view-what-if"),
    path("v/<token:token>/scenario/", views.save_scenario, VIEW, name="decider-view-scenario"),
    path("v/<token:token>.json", api.assessment_json, VIEW, name="decider-view-json"),
    path("v/<token:token>/report/", views.printable, VIEW, name="decider-view-report"),
    path("v/<token:token>/report.pdf", views.report_pdf, VIEW, name="decider-view-pdf"),
    # JSON API.
    path("api/assessments", api.assessments, name="decider-api-assessments"),
    path("api/openapi.json", api.openapi, name="decider-api-openapi"),
    path("currency/", views.set_currency, name="decider-currency"),
    path("healthz", views.healthz, name="decider-healthz"),
]
