"""Admin for the rules and figures.

Published rule sets are read-only: an admin makes a draft from a version, edits it,
previews what it would change and publishes it. Every save runs the checks of
`decider.rulesets` on what was typed, so a bad edit is refused with the message on
its field, inside the admin's transaction (nothing half-saved).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.http import content_disposition_header
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext, ngettext
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from decider import figure_changes
from decider.engine import gpus
from decider.engine.figures import FIGURE_NAMES, FIGURES
from decider.engine.markets import MARKETS
from decider.engine.outcomes import OUTCOME_NAMES, OUTCOMES, outcome_name
from decider.engine.providers import INDEXED
from decider.engine.questionnaire import GPU_MODELS, RULE_QUESTIONS
from decider.engine.ruledocs import (
    Problem,
    RuleSetProblems,
    bands_problems,
    constraint_document,
    constraint_problems,
    criterion_document,
    option_document,
    option_problems,
    ruleset_problems,
    text_problems,
    weight_problems,
    weights_problems,
)
from decider.engine.text import is_chinese
from decider.models import (
    Assessment,
    Assumption,
    Constraint,
    Criterion,
    FigureChange,
    Option,
    Provider,
    ProviderPrice,
    RuleSet,
    TokenPrice,
)
from decider.roles import BY_NAME
from decider.rulesets import (
    RuleSetPublished,
    documents_read,
    no_publish_right,
    publish_refusal,
    ruleset_draft,
    ruleset_export,
    ruleset_histories,
    ruleset_last_edit,
    ruleset_publish,
    rulesets_import,
)

READ_ONLY_NOTE = _("Published versions are read-only: make a draft from this version to change it.")
CHANGES_SHOWN = 300
IMPACT_POLL_S = 2  # the impact page looks again this often while a worker computes it


def _question_choices() -> list[tuple[str, Any]]:
    return [("", "---------")] + [(key, _(q.label)) for key, q in RULE_QUESTIONS.items()]


def _outcome_choices() -> list[tuple[str, Any]]:
    return [("", "---------")] + [(outcome, _(OUTCOME_NAMES[outcome])) for outcome in OUTCOMES]


class ChoicesFromCode:
    """Fields whose choices the code defines (questions, outcomes), not the database schema.

    So a new question needs no migration; the checks of `ruledocs` refuse
    anything else that is posted.
    """

    code_choices: dict[str, Any] = {"question": _question_choices}
    fields: dict[str, forms.Field]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, choices in self.code_choices.items():
            if name in self.fields:
                field = self.fields[name]
                self.fields[name] = forms.ChoiceField(
                    label=field.label, choices=choices, help_text=field.help_text
                )


def _add_problems(form: forms.BaseForm, problems: Iterable[Problem]) -> None:
    """Each problem on its field; on the form when the field is not in it.

    A field that already failed its own validation keeps only that message.
    """
    for problem in problems:
        field = problem.field if problem.field in form.fields else None
        if field is not None and field in form.errors:
            continue
        form.add_error(field, problem.message)


def _ruleset_of(obj: Any) -> RuleSet | None:
    if isinstance(obj, RuleSet):
        return obj
    if isinstance(obj, Criterion | Constraint):
        return obj.ruleset
    if isinstance(obj, Option):
        return obj.criterion.ruleset
    return None


def _is_published(obj: Any) -> bool:
    ruleset = _ruleset_of(obj)
    return ruleset is not None and ruleset.is_published


def _forms_kept(formset: forms.BaseFormSet) -> list[forms.BaseForm]:
    """The forms that will be saved: not deleted, not an untouched extra form."""
    return [
        form
        for form in formset.forms
        if form.cleaned_data and not (formset.can_delete and form.cleaned_data.get("DELETE"))
    ]


# The mixin below sits in front of a model admin or an inline; type it as one.
_AdminBase: Any = admin.options.BaseModelAdmin if TYPE_CHECKING else object


class PublishedReadOnly(_AdminBase):
    """Rows of a published rule set can be viewed, never changed or deleted.

    Bulk deletion is off: it would skip the per-object check.
    """

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _is_published(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _is_published(obj) and super().has_delete_permission(request, obj)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Inlines get the parent as obj; model admins get no obj.
        if obj is not None and _is_published(obj):
            return False
        if isinstance(self, admin.options.InlineModelAdmin):
            return super().has_add_permission(request, obj)  # type: ignore[call-arg]
        return super().has_add_permission(request)


class HistoryAdmin(SimpleHistoryAdmin):
    """History to read, not to revert: reverting would skip the rule set checks."""

    def revert_disabled(self, request: HttpRequest, obj: Any = None) -> bool:
        return True

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        if request.method == "POST":
            raise PermissionDenied
        return super().history_form_view(request, object_id, version_id, extra_context)

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


# --- forms ---------------------------------------------------------------------


class OptionForm(forms.ModelForm):
    class Meta:
        model = Option
        fields = [
            "value",
            "lower",
            "upper",
            "label_en",
            "label_zh",
            "score_onprem",
            "score_cloud",
            "score_hybrid",
            "score_api",
            "reason_en",
            "reason_zh",
        ]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        _add_problems(self, option_problems(option_document(data)))
        return data


class OptionFormSet(forms.BaseInlineFormSet):
    """The options of one criterion together: bands cover the range, one option per answer."""

    def clean(self) -> None:
        super().clean()
        if any(form.errors for form in self.forms):
            return
        kept = _forms_kept(self)
        question = self.instance.question
        if not question:
            return
        problems = bands_problems(question, [option_document(f.cleaned_data) for f in kept])
        general = []
        for problem in problems:
            if problem.option is None:
                general.append(problem.message)
            else:
                _add_problems(kept[problem.option], [problem])
        if general:
            raise ValidationError(general)


# What a criterion's form and its admin page edit (the same list: the page shows the form).
CRITERION_FIELDS = [
    "ruleset",
    "order",
    "key",
    "question",
    "label_en",
    "label_zh",
    "weight",
    "overrides_cost",
]


class CriterionForm(ChoicesFromCode, forms.ModelForm):
    # Off in the rule set's inline, whose formset checks all weights together.
    check_other_weights = True

    class Meta:
        model = Criterion
        fields = CRITERION_FIELDS

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        problems = weight_problems(data.get("weight"))
        problems += text_problems(criterion_document(data, []), "label")
        ruleset = data.get("ruleset") or getattr(self.instance, "ruleset", None)
        if self.check_other_weights and ruleset is not None and not problems:
            others = Criterion.objects.filter(ruleset=ruleset).exclude(pk=self.instance.pk)
            weights = [*others.values_list("weight", flat=True), data.get("weight")]
            problems += weights_problems(weights)
        _add_problems(self, problems)
        return data


class CriterionInlineForm(CriterionForm):
    check_other_weights = False


class CriterionInlineFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        if any(form.errors for form in self.forms):
            return
        kept = _forms_kept(self)
        if not kept:
            raise ValidationError(gettext("A rule set needs at least one criterion."))
        problems = weights_problems(f.cleaned_data.get("weight") for f in kept)
        if problems:
            for form in kept:
                _add_problems(form, problems)
            raise ValidationError([p.message for p in problems])


class ReadOnlyValue(forms.Widget):
    """A published value as text, not a greyed input beside a Save button: the field is
    disabled, so whatever is posted for it is ignored."""

    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note

    def render(self, name: str, value: Any, attrs: Any = None, renderer: Any = None) -> SafeString:
        return format_html(
            '<span class="read-only-value" title="{}">{} <small>({})</small></span>',
            self.note,
            value,
            gettext("published"),
        )

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        return None


WEIGHT_SCALE = _(
    "Weights are relative: a criterion's share of an option's score is its weight over the "
    "sum of the weights in its rule set, so only the ratios matter. Most criteria weigh 1 to "
    "4. A decisive cost gap (the cheapest allowed option a quarter or more below the "
    "runner-up in nine draws of ten or more) weighs far more, to outweigh the other answers "
    "together, unless an answer marked as overriding cost favours another option. Weights of "
    "a published version are shown as text: make a draft to change them."
)


class CriterionWeightForm(forms.ModelForm):
    """A row of the criteria list: the weight, editable for drafts only."""

    class Meta:
        model = Criterion
        fields = ["weight"]
        widgets = {"weight": forms.NumberInput(attrs={"step": "any", "style": "width: 6em"})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk and self.instance.ruleset.is_published:
            # A disabled field keeps its saved value whatever is posted.
            self.fields["weight"].disabled = True
            self.fields["weight"].widget = ReadOnlyValue(str(READ_ONLY_NOTE))

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        _add_problems(self, weight_problems(data.get("weight")))
        return data


class CriterionWeightFormSet(forms.BaseModelFormSet):
    def clean(self) -> None:
        super().clean()
        if any(form.errors for form in self.forms):
            return
        by_ruleset: dict[int, list[forms.ModelForm]] = {}
        for form in self.forms:
            if not form.fields["weight"].disabled:
                by_ruleset.setdefault(form.instance.ruleset_id, []).append(form)
        for ruleset_id, rows in by_ruleset.items():
            listed = [form.instance.pk for form in rows]
            others = Criterion.objects.filter(ruleset_id=ruleset_id).exclude(pk__in=listed)
            weights: list[Any] = [*others.values_list("weight", flat=True)]
            weights += [form.cleaned_data.get("weight") for form in rows]
            problems = weights_problems(weights)
            for form in rows:
                _add_problems(form, problems)


class ConstraintForm(ChoicesFromCode, forms.ModelForm):
    code_choices = {"question": _question_choices, "outcome": _outcome_choices}

    class Meta:
        model = Constraint
        fields = ["ruleset", "key", "question", "value", "outcome", "excludes"]
        fields += ["reason_en", "reason_zh"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        _add_problems(self, constraint_problems(constraint_document(data)))
        return data


def _figure_problem(form: forms.BaseForm, name: str | None, value: float | None) -> None:
    """A figure's value within the bounds of what it means (`decider.engine.figures`)."""
    if name in FIGURES and value is not None and (problem := FIGURES[name].problem(value)):
        form.add_error("value", problem)


def _is_fallback_figure(obj: Any) -> bool:
    """A figure's row for every GPU model of its market: scoring fails without it (no figure
    to fall back on)."""
    return (
        isinstance(obj, Assumption)
        and obj.pk is not None
        and obj.gpu_model == ""
        and (obj.name in FIGURES)
    )


def _fallback_figure_message(obj: Assumption) -> str:
    return gettext(
        "“%(name)s” for every GPU model is what the cost model falls back on, so it cannot be "
        "deleted or moved to one GPU model: every new assessment would fail to score. Change "
        "its value instead, or add a row for one GPU model beside it."
    ) % {"name": obj.name}


class AssumptionForm(ChoicesFromCode, forms.ModelForm):
    code_choices = {"name": lambda: [(name, name) for name in FIGURE_NAMES]}

    class Meta:
        model = Assumption
        fields = ["market", "name", "gpu_model", "value", "source", "source_zh", "as_of"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        _figure_problem(self, data.get("name"), data.get("value"))
        # The instance still holds the saved row here (the form copies into it later).
        if _is_fallback_figure(self.instance):
            saved_fields = (
                ("market", self.instance.market),
                ("name", self.instance.name),
                ("gpu_model", ""),
            )
            for field, saved in saved_fields:
                if field in data and data[field] != saved:
                    self.add_error(field, _fallback_figure_message(self.instance))
        return data


class AssumptionValueForm(forms.ModelForm):
    """A row of the figures list: the value only."""

    class Meta:
        model = Assumption
        fields = ["value"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        _figure_problem(self, self.instance.name, data.get("value"))
        return data


class ImportForm(forms.Form):
    file = forms.FileField(
        label=_("Rule set file (JSON)"),
        help_text=_("A file written by “Export as JSON” or `manage.py ruleset_export`."),
    )
    publish = forms.BooleanField(
        label=_("Publish at once"),
        required=False,
        help_text=_("Off: the rule set is imported as a draft to review and publish later."),
    )

    def clean_file(self) -> list[dict[str, Any]]:
        raw = self.cleaned_data["file"].read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValidationError(gettext("The file is not UTF-8 text.")) from None
        try:
            return documents_read(text)
        except RuleSetProblems as error:
            raise ValidationError([str(p) for p in error.problems]) from None


# --- inlines -------------------------------------------------------------------


class CriterionInline(PublishedReadOnly, admin.TabularInline):
    model = Criterion
    form = CriterionInlineForm
    formset = CriterionInlineFormSet
    fields = ["order", "key", "label_en", "label_zh", "weight", "overrides_cost", "option_count"]
    readonly_fields = ["option_count"]
    extra = 0
    show_change_link = True
    verbose_name = _("criterion")
    verbose_name_plural = _("criteria (open one to edit its answer options)")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # A new criterion needs its options (and its question decides them): it is added
        # and its question changed on the criterion page, where the options are checked.
        return False

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name in ("order", "weight"):
            field.widget.attrs["style"] = "width: 5em"
        return field

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(options_total=Count("options"))

    @admin.display(description=_("options"))
    def option_count(self, obj: Criterion) -> int:
        return getattr(obj, "options_total", None) or obj.options.count()


class ConstraintInline(PublishedReadOnly, admin.StackedInline):
    model = Constraint
    form = ConstraintForm
    extra = 0
    fields = [("key", "question", "value"), ("outcome", "excludes"), "reason_en", "reason_zh"]


class OptionInline(PublishedReadOnly, admin.StackedInline):
    model = Option
    form = OptionForm
    formset = OptionFormSet
    extra = 0
    fields = [
        ("value", "lower", "upper"),
        ("label_en", "label_zh"),
        ("score_onprem", "score_cloud", "score_hybrid", "score_api"),
        "reason_en",
        "reason_zh",
    ]


# --- rule sets -----------------------------------------------------------------


@admin.register(RuleSet)
class RuleSetAdmin(PublishedReadOnly, HistoryAdmin):
    list_display = [
        "version",
        "name",
        "is_published",
        "published_at",
        "criteria_count",
        "assessments_count",
    ]
    list_display_links = ["version", "name"]
    list_filter = ["is_published"]
    search_fields = ["name", "notes"]
    fields = [
        "version",
        "name",
        "notes",
        "decisive_gap_pct",
        "decisive_probability_pct",
        "is_published",
        "published_at",
        "created_at",
    ]
    readonly_fields = ["version", "is_published", "published_at", "created_at"]
    inlines = [CriterionInline, ConstraintInline]
    actions = ["make_draft", "publish_draft", "export_json"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return (
            super()
            .get_queryset(request)
            .annotate(
                criteria_total=Count("criteria", distinct=True),
                assessments_total=Count("assessments", distinct=True),
            )
        )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # New versions come from a draft of an existing one, or from an import.
        return False

    @admin.display(description=_("criteria"), ordering="criteria_total")
    def criteria_count(self, obj: RuleSet) -> int:
        return obj.criteria_total  # type: ignore[attr-defined]  # annotated by get_queryset

    @admin.display(description=_("assessments scored with it"), ordering="assessments_total")
    def assessments_count(self, obj: RuleSet) -> int:
        return obj.assessments_total  # type: ignore[attr-defined]  # annotated by get_queryset

    # Actions on the list

    def has_draft_permission(self, request: HttpRequest) -> bool:
        # A draft is a new rule set: the "add" permission (has_add_permission is off).
        return request.user.has_perm("decider.add_ruleset")

    @admin.action(description=_("Make a draft from this version"), permissions=["draft"])
    def make_draft(self, request: HttpRequest, queryset: QuerySet) -> None:
        for ruleset in queryset.order_by("version"):
            draft = ruleset_draft(ruleset)
            self.message_user(
                request,
                gettext("Draft version %(draft)d made from version %(version)d.")
                % {"draft": draft.version, "version": ruleset.version},
                messages.SUCCESS,
            )

    def has_publish_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("decider.publish_ruleset")

    @admin.action(description=_("Publish the selected draft…"), permissions=["publish"])
    def publish_draft(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        """Not a shortcut: it opens the draft's "Publish?" page, with its impact preview."""
        drafts = list(queryset.filter(is_published=False)[:2])
        if len(drafts) != 1:
            self.message_user(request, gettext("Select one draft to publish."), messages.WARNING)
            return None
        return self._render_impact(request, drafts[0], confirm=True)

    @admin.action(description=_("Export selected as JSON"))
    def export_json(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse:
        rulesets = list(queryset.order_by("version"))
        if len(rulesets) == 1:
            return _json_download(ruleset_export(rulesets[0]), f"ruleset-v{rulesets[0].version}")
        versions = "-".join(str(r.version) for r in rulesets)
        return _json_download([ruleset_export(r) for r in rulesets], f"rulesets-v{versions}")

    # Pages of one rule set

    def get_urls(self) -> list:
        view = self.admin_site.admin_view
        return [
            path("import/", view(self.import_view), name="decider_ruleset_import"),
            path("<int:pk>/draft/", view(self.draft_view), name="decider_ruleset_draft"),
            path("<int:pk>/impact/", view(self.impact_view), name="decider_ruleset_impact"),
            path("<int:pk>/publish/", view(self.publish_view), name="decider_ruleset_publish"),
            path("<int:pk>/export/", view(self.export_view), name="decider_ruleset_export"),
            path("<int:pk>/changes/", view(self.changes_view), name="decider_ruleset_changes"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        ruleset = self.get_object(request, object_id)
        context = {"read_only_note": READ_ONLY_NOTE, **(extra_context or {})}
        if ruleset is not None and not ruleset.is_published:
            context["problems"] = ruleset_problems(ruleset_export(ruleset))
        return super().change_view(request, object_id, form_url, context)

    def _context(self, request: HttpRequest, ruleset: RuleSet, title: str) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "original": ruleset,
            "ruleset": ruleset,
            "title": title,
        }

    def _get_ruleset(self, request: HttpRequest, pk: int) -> RuleSet:
        ruleset = get_object_or_404(RuleSet, pk=pk)
        if not self.has_view_permission(request, ruleset):
            raise PermissionDenied
        return ruleset

    def _get_draft(self, request: HttpRequest, pk: int) -> RuleSet:
        ruleset = self._get_ruleset(request, pk)
        if ruleset.is_published or not self.has_change_permission(request, ruleset):
            raise PermissionDenied
        return ruleset

    def draft_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:decider_ruleset_change", args=[pk]))
        ruleset = self._get_ruleset(request, pk)
        if not request.user.has_perm("decider.add_ruleset"):
            raise PermissionDenied
        draft = ruleset_draft(ruleset)
        self.message_user(
            request,
            gettext(
                "Draft version %(draft)d made from version %(version)d: edit it, preview its impact, publish."
            )
            % {"draft": draft.version, "version": ruleset.version},
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:decider_ruleset_change", args=[draft.pk]))

    def impact_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        ruleset = self._get_draft(request, pk)
        if request.method == "POST":  # "Compute again": saved assessments changed since
            from decider.services import impact_preview
            from decider.tasks import compute_impact

            impact_preview(ruleset, enqueue=compute_impact.delay, again=True)
            return HttpResponseRedirect(reverse("admin:decider_ruleset_impact", args=[pk]))
        return self._render_impact(request, ruleset, confirm=False)

    def publish_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:decider_ruleset_impact", args=[pk]))
        ruleset = self._get_ruleset(request, pk)
        if ruleset.is_published or not self.has_publish_permission(request):
            raise PermissionDenied
        if "confirm" not in request.POST:
            return self._render_impact(request, ruleset, confirm=True)
        if refusal := publish_refusal(
            request.user, ruleset, review=settings.DECIDER_PUBLISH_REVIEW
        ):
            self.message_user(request, refusal, messages.ERROR)
            response = self._render_impact(request, ruleset, confirm=True)
            response.status_code = 403
            return response
        try:
            with transaction.atomic():
                previous = RuleSet.current()
                published = ruleset_publish(
                    ruleset, published_by=request.user, impact=self._impact_seen(ruleset)
                )
        except RuleSetProblems:
            self.message_user(
                request,
                gettext("This draft breaks the rules below; fix them first."),
                messages.ERROR,
            )
            return self._render_impact(request, ruleset, confirm=True)
        except RuleSetPublished as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.log_change(request, published, gettext("Published."))
            self.message_user(
                request,
                gettext("Version %(version)d is published: new assessments are scored with it.")
                % {"version": published.version}
                + (
                    " "
                    + gettext("Assessments saved with v%(old)d keep their results.")
                    % {"old": previous.version}
                    if previous
                    else ""
                ),
                messages.SUCCESS,
            )
        return HttpResponseRedirect(reverse("admin:decider_ruleset_change", args=[pk]))

    @staticmethod
    def _impact_seen(ruleset: RuleSet) -> dict[str, Any] | None:
        """The preview the publisher's confirm page showed: the kept one, if it is of the
        draft as it is now and was done computing."""
        from decider.models import ImpactPreview
        from decider.services import ruleset_digest

        preview = ImpactPreview.objects.filter(
            ruleset=ruleset, state=ImpactPreview.DONE, digest=ruleset_digest(ruleset)
        ).first()
        return preview.impact if preview else None

    def _render_impact(self, request: HttpRequest, ruleset: RuleSet, *, confirm: bool):
        from decider.services import impact_from_dict, impact_preview
        from decider.tasks import compute_impact

        preview = impact_preview(ruleset, enqueue=compute_impact.delay)
        kept = preview.impact if preview.state == preview.DONE else None
        impact = impact_from_dict(kept) if kept is not None else None
        current = RuleSet.current()
        transitions = [
            {
                "from": outcome_name(t.from_outcome) or gettext("none"),
                "to": outcome_name(t.to_outcome) or gettext("none"),
                "count": t.count,
                "examples": [
                    (pk, reverse("admin:decider_assessment_change", args=[pk]))
                    for pk in t.example_ids
                ],
            }
            for t in (impact.transitions if impact else ())
        ]
        context = {
            **self._context(
                request,
                ruleset,
                gettext("Publish v%(version)d?") % {"version": ruleset.version}
                if confirm
                else gettext("Impact of v%(version)d") % {"version": ruleset.version},
            ),
            "impact": impact,
            "preview": preview,
            "poll_s": IMPACT_POLL_S,
            "transitions": transitions,
            "current": current,
            "confirm": confirm,
            "problems": ruleset_problems(ruleset_export(ruleset)),
            "last_edit": ruleset_last_edit(ruleset),
            "refusal": publish_refusal(
                request.user, ruleset, review=settings.DECIDER_PUBLISH_REVIEW
            ),
        }
        return TemplateResponse(request, "admin/decider/ruleset/impact.html", context)

    def changes_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        """Every recorded change to this rule set and its rows, newest first, with who and what."""
        ruleset = self._get_ruleset(request, pk)
        records = sorted(
            (
                r
                for h in ruleset_histories(pk)
                for r in h.select_related("history_user")[:CHANGES_SHOWN]
            ),
            key=lambda r: r.history_date,
            reverse=True,
        )[:CHANGES_SHOWN]
        rows = []
        for record in records:
            changes = []
            if record.history_type == "~" and record.prev_record is not None:
                delta = record.diff_against(record.prev_record)
                changes = [
                    {
                        "field": record.instance._meta.get_field(c.field).verbose_name,
                        "old": c.old,
                        "new": c.new,
                    }
                    for c in delta.changes
                ]
            rows.append(
                {
                    "record": record,
                    "kind": record.instance._meta.verbose_name,
                    "changes": changes,
                }
            )
        created = RuleSet.history.filter(id=pk, history_type="+").select_related("history_user")
        context = {
            **self._context(
                request, ruleset, gettext("Changes to v%(version)d") % {"version": ruleset.version}
            ),
            "rows": rows,
            "limit": CHANGES_SHOWN,
            "drafted": created.order_by("history_date").first(),
            "publication": _publication_shown(ruleset),
        }
        return TemplateResponse(request, "admin/decider/ruleset/changes.html", context)

    def _import_refusal(self, request: HttpRequest) -> str | None:
        if not self.has_publish_permission(request):
            return no_publish_right()
        if settings.DECIDER_PUBLISH_REVIEW:
            return gettext(
                "You drafted it by importing it: someone else must publish it (a second pair "
                "of eyes is required here)."
            )
        return None

    def export_view(self, request: HttpRequest, pk: int) -> HttpResponse:
        ruleset = self._get_ruleset(request, pk)
        return _json_download(ruleset_export(ruleset), f"ruleset-v{ruleset.version}")

    def import_view(self, request: HttpRequest) -> HttpResponse:
        if not request.user.has_perm("decider.add_ruleset"):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        problems: list[Problem] = []
        if request.method == "POST" and form.is_valid():
            publish = form.cleaned_data["publish"]
            # The importer drafted what they import: under a second pair of eyes they are
            # its last editor, and someone else publishes it.
            if publish and (refusal := self._import_refusal(request)):
                publish = False
                self.message_user(
                    request,
                    gettext("Imported as a draft. %(why)s") % {"why": refusal},
                    messages.WARNING,
                )
            try:
                rulesets = rulesets_import(
                    form.cleaned_data["file"], publish=publish, published_by=request.user
                )
            except RuleSetProblems as error:
                problems = error.problems
            else:
                for ruleset in rulesets:
                    self.log_addition(request, ruleset, gettext("Imported."))
                self.message_user(
                    request,
                    ngettext("Imported %(versions)s.", "Imported %(versions)s.", len(rulesets))
                    % {"versions": ", ".join(f"v{r.version}" for r in rulesets)},
                    messages.SUCCESS,
                )
                target = (
                    reverse("admin:decider_ruleset_change", args=[rulesets[0].pk])
                    if len(rulesets) == 1
                    else reverse("admin:decider_ruleset_changelist")
                )
                return HttpResponseRedirect(target)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": gettext("Import a rule set"),
            "form": form,
            "problems": problems,
        }
        return TemplateResponse(request, "admin/decider/ruleset/import.html", context)


def _publication_shown(ruleset: RuleSet) -> dict[str, Any] | None:
    """Who published `ruleset` and what its impact preview showed them (issue 35)."""
    from decider.models import Publication

    publication = Publication.objects.filter(ruleset=ruleset).select_related("published_by")
    found = publication.first()
    if found is None:
        return None
    impact = found.impact
    transitions = [
        gettext("%(old)s → %(new)s: %(count)d")
        % {
            "old": outcome_name(t["from_outcome"]) or gettext("none"),
            "new": outcome_name(t["to_outcome"]) or gettext("none"),
            "count": t["count"],
        }
        for t in (impact or {}).get("transitions", [])
    ]
    return {"record": found, "impact": impact, "transitions": transitions}


def _json_download(data: Any, stem: str) -> HttpResponse:
    response = HttpResponse(
        json.dumps(data, ensure_ascii=False, indent=2) + "\n",
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = content_disposition_header(True, f"{stem}.json")
    return response


# --- criteria, options, constraints, figures ------------------------------------


class DraftRuleSetField:
    """New rows go into drafts only."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "ruleset":
            kwargs["queryset"] = RuleSet.objects.filter(is_published=False)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@admin.register(Criterion)
class CriterionAdmin(PublishedReadOnly, DraftRuleSetField, HistoryAdmin):
    form = CriterionForm
    list_display = [
        "label_en",
        "label_zh",
        "key",
        "weight",
        "overrides_cost",
        "ruleset_version",
        "option_count",
    ]
    list_display_links = ["label_en"]
    list_editable = ["weight"]
    list_filter = ["ruleset__is_published", "ruleset"]
    list_select_related = ["ruleset"]
    search_fields = ["key", "label_en", "label_zh", "question"]
    fields = CRITERION_FIELDS
    inlines = [OptionInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).annotate(options_total=Count("options"))

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any):
        return CriterionWeightForm

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        context = {"weight_scale": WEIGHT_SCALE, **(extra_context or {})}
        return super().changelist_view(request, context)

    def get_changelist_formset(self, request: HttpRequest, **kwargs: Any):
        kwargs.setdefault("formset", CriterionWeightFormSet)
        return super().get_changelist_formset(request, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # A criterion stays in the rule set it was made in.
        return ["ruleset"] if obj is not None else []

    @admin.display(description=_("rule set version"), ordering="ruleset__version")
    def ruleset_version(self, obj: Criterion) -> str:
        state = gettext("published") if obj.ruleset.is_published else gettext("draft")
        return f"v{obj.ruleset.version} ({state})"

    @admin.display(description=_("options"), ordering="options_total")
    def option_count(self, obj: Criterion) -> int:
        return obj.options_total  # type: ignore[attr-defined]  # annotated by get_queryset


@admin.register(Option)
class OptionAdmin(HistoryAdmin):
    """Read-only: options are edited on their criterion's page, where bands are checked."""

    list_display = ["label_en", "label_zh", "value", "lower", "upper", "criterion", "version"]
    list_filter = ["criterion__ruleset"]
    list_select_related = ["criterion__ruleset"]
    search_fields = ["label_en", "label_zh", "value", "criterion__key"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("rule set version"), ordering="criterion__ruleset__version")
    def version(self, obj: Option) -> str:
        return f"v{obj.criterion.ruleset.version}"


@admin.register(Constraint)
class ConstraintAdmin(PublishedReadOnly, DraftRuleSetField, HistoryAdmin):
    form = ConstraintForm
    list_display = ["key", "question", "value", "outcome", "excludes", "ruleset"]
    list_filter = ["ruleset__is_published", "ruleset", "outcome"]
    list_select_related = ["ruleset"]
    search_fields = ["key", "reason_en", "reason_zh"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["ruleset"] if obj is not None else []


class LiveFigureAdmin(HistoryAdmin):
    """A live figure (a price set's figure, a provider, its price, a per-token price): an
    edit here is a change that waits for a publisher (decider/figure_changes.py), unless the
    one who saves it may make it current at once. The live row moves only when published."""

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        action = FigureChange.CHANGE if change else FigureChange.ADD
        self._propose(request, obj, action)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        self._propose(request, obj, FigureChange.DELETE)

    def _propose(self, request: HttpRequest, obj: Any, action: str) -> None:
        proposal = figure_changes.change_propose(user=request.user, row=obj, action=action)
        if proposal is None:
            return
        if figure_changes.may_publish_at_once(request.user):
            row = figure_changes.change_publish(proposal, user=request.user)
            if row is not None and obj.pk is None:  # added: the form's row is the saved one
                obj.pk = row.pk
                obj._state.adding, obj._state.db = False, row._state.db
            return
        request._figure_waiting = True  # type: ignore[attr-defined]
        self.message_user(
            request,
            gettext(
                "Saved as a change waiting for a publisher: “%(change)s”. The live figures "
                "are unchanged until it is published (Figure changes)."
            )
            % {"change": proposal.summary},
            messages.WARNING,
        )

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        """Inline rows (a provider's prices) are live figures too: proposed one by one."""
        if figure_changes.may_publish_at_once(request.user):
            for row in formset.save(commit=False):
                self._propose(request, row, FigureChange.CHANGE if row.pk else FigureChange.ADD)
            for row in formset.deleted_objects:
                self._propose(request, row, FigureChange.DELETE)
            formset.save_m2m()
            return
        if form.instance.pk is None:
            if any(f.has_changed() for f in formset.forms):
                self.message_user(
                    request,
                    gettext("Add its prices once the provider itself is published."),
                    messages.WARNING,
                )
            return
        for row in formset.save(commit=False):
            self._propose(request, row, FigureChange.CHANGE if row.pk else FigureChange.ADD)
        for row in formset.deleted_objects:
            self._propose(request, row, FigureChange.DELETE)

    def message_user(self, request: HttpRequest, message: Any, *args: Any, **kwargs: Any) -> None:
        # Django's "… was changed successfully." would contradict the change that waits.
        level = args[0] if args else kwargs.get("level", messages.INFO)
        if getattr(request, "_figure_waiting", False) and level == messages.SUCCESS:
            return
        super().message_user(request, message, *args, **kwargs)

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None):
        if obj.pk is None:  # waiting: there is no row to show yet
            return HttpResponseRedirect(reverse("admin:decider_figurechange_changelist"))
        return super().response_add(request, obj, post_url_continue)

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: Any):
        if getattr(request, "_figure_waiting", False):
            return HttpResponseRedirect(reverse("admin:decider_figurechange_changelist"))
        return super().response_delete(request, obj_display, obj_id)

    def log_addition(self, request: HttpRequest, obj: Any, message: Any):
        if obj.pk is None:
            return None  # nothing was added yet: the figure change records it
        return super().log_addition(request, obj, message)

    def log_deletion(self, request: HttpRequest, obj: Any, object_repr: str):
        if getattr(request, "_figure_waiting", False):
            return None
        return super().log_deletion(request, obj, object_repr)


@admin.register(FigureChange)
class FigureChangeAdmin(admin.ModelAdmin):
    """Changes to the live figures: waiting ones to publish or discard, and the record of
    who proposed and who published each."""

    list_display = [
        "summary",
        "state",
        "proposed_by",
        "proposed_at",
        "published_by",
        "published_at",
    ]
    list_filter = ["state", "model", "action"]
    search_fields = ["summary"]
    actions = ["publish_changes", "discard_changes"]
    readonly_fields = [
        "summary",
        "model",
        "object_id",
        "action",
        "values",
        "before",
        "state",
        "proposed_by",
        "proposed_at",
        "published_by",
        "published_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # changes are made where the figures are edited

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the record of who published what stays

    def has_publish_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(figure_changes.PUBLISH_RIGHT)

    def has_discard_permission(self, request: HttpRequest) -> bool:
        return request.user.is_active and request.user.is_staff

    @admin.action(description=_("Publish the selected changes"), permissions=["publish"])
    def publish_changes(self, request: HttpRequest, queryset: QuerySet) -> None:
        done = 0
        for change in queryset.filter(state=FigureChange.WAITING).order_by("proposed_at"):
            try:
                figure_changes.change_publish(change, user=request.user)
            except figure_changes.ChangeRefused as refused:
                self.message_user(request, f"{change.summary}: {refused}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                ngettext(
                    "%(count)d change published: new assessments are scored with it.",
                    "%(count)d changes published: new assessments are scored with them.",
                    done,
                )
                % {"count": done},
            )

    @admin.action(description=_("Discard the selected changes"), permissions=["discard"])
    def discard_changes(self, request: HttpRequest, queryset: QuerySet) -> None:
        for change in queryset.filter(state=FigureChange.WAITING):
            try:
                figure_changes.change_discard(change, user=request.user)
            except figure_changes.ChangeRefused as refused:
                self.message_user(request, f"{change.summary}: {refused}", messages.ERROR)


@admin.register(Assumption)
class AssumptionAdmin(LiveFigureAdmin):
    """Editable: saved assessments keep the figures they were scored with; history records it."""

    form = AssumptionForm
    list_display = ["name", "market", "gpu_model", "value", "unit", "as_of", "source_shown"]
    list_editable = ["value"]
    list_filter = ["market", "gpu_model"]
    search_fields = ["name", "source", "source_zh"]

    def get_changelist_form(self, request: HttpRequest, **kwargs: Any):
        return AssumptionValueForm

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return not _is_fallback_figure(obj) and super().has_delete_permission(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        # Say why instead of the bare 403 that has_delete_permission alone would give.
        obj = self.get_object(request, unquote(object_id))
        if obj is not None and _is_fallback_figure(obj):
            self.message_user(request, _fallback_figure_message(obj), messages.ERROR)
            return HttpResponseRedirect(reverse("admin:decider_assumption_change", args=[obj.pk]))
        return super().delete_view(request, object_id, extra_context)

    @admin.display(description=_("unit"))
    def unit(self, obj: Assumption) -> str:
        spec = FIGURES.get(obj.name)
        currency = MARKETS[obj.market].currency if obj.market in MARKETS else "USD"
        return spec.unit_in(currency).get(get_language() or "en") if spec else ""

    @admin.display(description=_("source"), ordering="source")
    def source_shown(self, obj: Assumption) -> str:
        """In the admin's language: the Chinese source where there is one."""
        if is_chinese(get_language()) and obj.source_zh:
            return obj.source_zh
        return obj.source

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        """The source column says first when a GPU-hour price is not read: the listed
        providers rent the model, and the market index is derived from their prices."""
        rented = {
            (market, model)
            for market in MARKETS
            for providers in [Provider.listed(market)]
            for model in gpus.in_market(market)
            if any(p.rents(model) for p in providers)
        }

        @admin.display(description=_("source"), ordering="source")
        def source(obj: Assumption) -> str:
            shown = self.source_shown(obj)
            if obj.name in INDEXED and (obj.market, obj.gpu_model or gpus.DEFAULT) in rented:
                return gettext(
                    "Not read while listed providers rent this GPU model: the market index "
                    "is derived from their prices (Cloud providers). Kept for when none "
                    "does. %(source)s"
                ) % {"source": shown}
            return shown

        return [name for name in self.list_display if name != "source_shown"] + [source]


class ProviderPriceForm(forms.ModelForm):
    gpu_model = forms.ChoiceField(
        label=_("GPU model"),
        required=False,
        choices=lambda: [("", _("every GPU model")), *GPU_MODELS],
        help_text=_("Empty: applies to every GPU model unless a model-specific row exists."),
    )

    class Meta:
        model = ProviderPrice
        fields = ["name", "gpu_model", "value", "source", "source_zh", "as_of"]

    def clean(self) -> dict[str, Any]:
        super().clean()
        _figure_problem(self, self.cleaned_data.get("name"), self.cleaned_data.get("value"))
        return self.cleaned_data


class ProviderPriceInline(admin.TabularInline):
    model = ProviderPrice
    form = ProviderPriceForm
    extra = 0


class ProviderForm(forms.ModelForm):
    price_page = forms.URLField(label=_("price page"), required=False, assume_scheme="https")

    class Meta:
        model = Provider
        fields = ["key", "name", "name_zh", "kind", "market", "price_page"]


@admin.register(Provider)
class ProviderAdmin(LiveFigureAdmin):
    """Providers and their list prices. Editable: a saved assessment keeps the prices it was
    scored with (its result pins them); the history records each change."""

    form = ProviderForm
    inlines = [ProviderPriceInline]
    list_display = ["name", "key", "kind", "market", "price_count"]
    list_filter = ["market", "kind"]
    search_fields = ["key", "name", "name_zh"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Provider]:
        return super().get_queryset(request).annotate(price_total=Count("prices"))

    @admin.display(description=_("prices"), ordering="price_total")
    def price_count(self, obj: Provider) -> int:
        return getattr(obj, "price_total", 0)


@admin.register(ProviderPrice)
class ProviderPriceAdmin(LiveFigureAdmin):
    form = ProviderPriceForm
    list_display = ["provider", "name", "gpu_model", "value", "as_of"]
    list_editable = ["value"]
    list_filter = ["provider__market", "provider", "gpu_model", "name"]
    search_fields = ["provider__name", "source", "source_zh"]

    def get_form(self, request: HttpRequest, obj: Any = None, **kwargs: Any):
        kwargs["fields"] = ["provider", *ProviderPriceForm.Meta.fields]
        return super().get_form(request, obj, **kwargs)

    def changelist_view(self, request: HttpRequest, extra_context: Any = None):
        admin_prices.warn_failed_sources(request)  # its prices are the last approved
        return super().changelist_view(request, extra_context)


@admin.register(TokenPrice)
class TokenPriceAdmin(LiveFigureAdmin):
    """Hosted models' list prices per million tokens (issue 36). Editable: the next assessment
    scored reads them; a saved one keeps the price it was scored with (its result pins it);
    the history records each change. How fast they fall is the cost figure
    `token_price_fall`."""

    list_display = [
        "provider",
        "model",
        "model_class",
        "market",
        "price_in_per_m",
        "price_out_per_m",
        "currency",
        "as_of",
    ]
    list_editable = ["price_in_per_m", "price_out_per_m"]
    list_filter = ["market", "model_class", "jurisdiction", "currency"]
    search_fields = ["provider", "model", "source"]


@admin.register(Assessment)
class AssessmentAdmin(admin.ModelAdmin):
    list_display = ["__str__", "recommendation", "ruleset", "updated_at"]
    list_filter = ["ruleset", "recommendation"]
    # The rule set in the same query; the list never reads the answers or the saved result
    # (tens of kB each), so they stay in the database.
    list_select_related = ["ruleset"]
    search_fields = ["name"]

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        queryset = super().get_queryset(request)
        match = request.resolver_match
        if match is not None and (match.url_name or "").endswith("_changelist"):
            queryset = queryset.defer("answers", "result", "derived")
        return queryset

    readonly_fields = [
        "recommendation",
        "answers",
        "result",
        "derived",
        "ruleset",
        "revision",
        "scored_revision",
        "created_at",
        "scored_at",
    ]
    exclude = ["edit_hash", "view_hash", "view_sealed"]


# --- the shipped roles -----------------------------------------------------------------


admin.site.unregister(Group)


@admin.register(Group)
class RoleGroupAdmin(GroupAdmin):
    """Django's groups, with what each shipped role is for (decider/roles.py)."""

    list_display = ["name", "role"]

    @admin.display(description=_("what it is for"))
    def role(self, obj: Group) -> str:
        role = BY_NAME.get(obj.name)
        if role is None:
            return ""
        language = get_language() or "en"
        return f"{role.title.get(language)}: {role.description.get(language)}"


# The imports' drafts and observations (issue 53), registered with the rest.
from decider import admin_prices  # noqa: E402
