"""The admin of imported prices (issue 53): each import's draft with its diff and flags, and
the observations it kept. A draft is made current only by someone with the right to publish;
a large move only on its own (Figure changes)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.utils.text import format_lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from decider import figure_changes, price_import
from decider.models import FigureChange, PriceImport, PriceObservation
from decider.price_import import FLAG_PCT


def failed_sources() -> list[PriceImport]:
    """Each source's latest run, where it failed: its prices are the last approved ones."""
    latest: dict[tuple[str, str], PriceImport] = {}
    for run in PriceImport.objects.order_by("started_at"):
        latest[(run.source, run.provider)] = run
    return [run for run in latest.values() if run.state == PriceImport.FAILED]


def warn_failed_sources(request: HttpRequest) -> None:
    for run in failed_sources():
        messages.warning(
            request,
            gettext(
                "The last import from %(source)s failed on %(when)s (%(error)s): its prices "
                "are the last approved ones."
            )
            % {
                "source": f"{run.source} {run.provider}".strip(),
                "when": f"{run.started_at:%Y-%m-%d %H:%M}",
                "error": run.error,
            },
        )


@admin.register(PriceImport)
class PriceImportAdmin(admin.ModelAdmin):
    list_display = ["__str__", "state", "read", "proposed", "awaiting", "flags", "error"]
    list_filter = ["state", "source"]
    actions = ["publish_drafts"]
    readonly_fields = [
        "source",
        "provider",
        "url",
        "started_at",
        "observed_at",
        "state",
        "error",
        "read",
        "draft",
        "flag_list",
        "refused_list",
    ]
    exclude = ["report"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by `manage.py refresh_prices`

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the record of what was read stays

    def has_publish_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(figure_changes.PUBLISH_RIGHT)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None):
        warn_failed_sources(request)
        return super().changelist_view(request, extra_context)

    @admin.display(description=_("proposed"))
    def proposed(self, run: PriceImport) -> int:
        return len(run.report.get("proposed", []))

    @admin.display(description=_("awaiting approval"))
    def awaiting(self, run: PriceImport) -> int:
        return len(run.report.get("awaiting_approval", []))

    @admin.display(description=_("flags"))
    def flags(self, run: PriceImport) -> int:
        return len(run.report.get("flags", []))

    @admin.display(description=_("draft: what it changes"))
    def draft(self, run: PriceImport) -> SafeString:
        changes = run.changes.order_by("-large_move", "pk")
        if not changes:
            return format_html(
                "<p>{}</p>", gettext("Nothing to change: every price is unchanged or skipped.")
            )
        rows = format_html_join(
            "",
            "<tr><td><a href='{}'>{}</a></td><td>{}</td><td>{}</td></tr>",
            (
                (
                    reverse("admin:decider_figurechange_change", args=[c.pk]),
                    c.summary,
                    gettext("large move: approve it on its own") if c.large_move else "",
                    c.get_state_display(),
                )
                for c in changes
            ),
        )
        head = format_html(
            "<tr><th>{}</th><th>{}</th><th>{}</th></tr>",
            gettext("change"),
            gettext("check"),
            gettext("state"),
        )
        return format_html("<table class='price-draft'>{}{}</table>", head, rows)

    @admin.display(
        description=format_lazy(_("flags: sources more than {pct:g} % apart"), pct=FLAG_PCT)
    )
    def flag_list(self, run: PriceImport) -> SafeString:
        return format_html_join(
            "",
            "<p class='price-flag'>{} {} {}: {} ({} %)</p>",
            (
                (
                    f["provider"],
                    f["gpu_model"],
                    f["tier"],
                    ", ".join(f"{k} {v:g}" for k, v in f["prices"].items()),
                    f["gap_pct"],
                )
                for f in run.report.get("flags", [])
            ),
        ) or format_html("{}", gettext("none"))

    @admin.display(description=_("refused rows"))
    def refused_list(self, run: PriceImport) -> SafeString:
        return format_html_join(
            "",
            "<p>{} {}: {}</p>",
            (
                (gettext("line"), r["row"].get("line"), r["reason"])
                for r in run.report.get("refused", [])
            ),
        ) or format_html("{}", gettext("none"))

    @admin.action(
        description=_("Publish the draft (all but the large moves)"), permissions=["publish"]
    )
    def publish_drafts(self, request: HttpRequest, queryset: QuerySet) -> None:
        done = 0
        for run in queryset.order_by("started_at"):
            published, refused = price_import.publish_draft(run, user=request.user)
            done += published
            for refusal in refused:
                self.message_user(request, refusal, messages.ERROR)
        if done:
            self.message_user(
                request,
                ngettext(
                    "%(count)d price published: new assessments are scored with it.",
                    "%(count)d prices published: new assessments are scored with them.",
                    done,
                )
                % {"count": done},
            )


@admin.register(PriceObservation)
class PriceObservationAdmin(admin.ModelAdmin):
    list_display = [
        "provider",
        "gpu_model",
        "tier",
        "region",
        "sku",
        "gpu_count",
        "price_per_gpu_hour",
        "currency",
        "observed_at",
        "source",
    ]
    list_filter = ["source", "provider", "gpu_model", "tier"]
    search_fields = ["sku", "region"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # history: nothing is overwritten


__all__ = ["FigureChange", "PriceImportAdmin", "PriceObservationAdmin", "warn_failed_sources"]
