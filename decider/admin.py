from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from decider.models import Assessment, Assumption, Constraint, Criterion, Option, RuleSet


class CriterionInline(admin.TabularInline):
    model = Criterion
    fields = ["order", "key", "question", "label_en", "label_zh", "weight"]
    extra = 0
    show_change_link = True


class ConstraintInline(admin.StackedInline):
    model = Constraint
    extra = 0


@admin.register(RuleSet)
class RuleSetAdmin(admin.ModelAdmin):
    list_display = ["version", "name", "is_published", "published_at", "created_at"]
    list_filter = ["is_published"]
    search_fields = ["name", "notes"]
    inlines = [CriterionInline, ConstraintInline]


class OptionInline(admin.StackedInline):
    model = Option
    extra = 0
    fields = [
        ("value", "lower", "upper"),
        ("label_en", "label_zh"),
        ("score_onprem", "score_cloud", "score_hybrid"),
        "reason_en",
        "reason_zh",
    ]


@admin.register(Criterion)
class CriterionAdmin(admin.ModelAdmin):
    list_display = ["label_en", "label_zh", "key", "question", "weight", "ruleset"]
    list_editable = ["weight"]
    list_filter = ["ruleset"]
    search_fields = ["key", "label_en", "label_zh"]
    inlines = [OptionInline]


@admin.register(Constraint)
class ConstraintAdmin(admin.ModelAdmin):
    list_display = ["key", "question", "value", "outcome", "excludes", "ruleset"]
    list_filter = ["ruleset", "outcome"]


@admin.register(Assumption)
class AssumptionAdmin(admin.ModelAdmin):
    list_display = ["name", "gpu_model", "value", "unit", "as_of", "source"]
    list_editable = ["value"]
    list_filter = ["gpu_model"]
    search_fields = ["name", "source"]


@admin.register(Assessment)
class AssessmentAdmin(admin.ModelAdmin):
    list_display = ["__str__", "recommendation", "ruleset", "updated_at"]
    list_filter = ["ruleset"]
    search_fields = ["name"]
    readonly_fields = ["answers", "result", "ruleset", "revision", "created_at", "scored_at"]
    exclude = ["edit_hash", "view_hash"]

    @admin.display(description=_("recommendation"))
    def recommendation(self, obj: Assessment) -> str:
        return (obj.result or {}).get("scoring", {}).get("recommendation") or "—"
