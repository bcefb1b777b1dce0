"""The wizard's forms, built from the questionnaire and the figure registry.

One form class per step, made from `questionnaire.STEPS`: a new question
appears in its step without a change here. Bounds and units come from the
question, so the error shows next to the field.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping
from typing import Any, cast

from django import forms
from django.utils.translation import get_language, gettext, gettext_lazy
from django.utils.translation import gettext_lazy as _

from decider.engine import questionnaire
from decider.engine.figures import ADJUSTABLE_NAMES, FIGURES, Figure
from decider.models import NAME_MAX_LENGTH


def question_field(question: questionnaire.Question, *, required: bool = True) -> forms.Field:
    common: dict[str, Any] = {
        "label": gettext_lazy(question.label),
        "help_text": gettext_lazy(question.help),
        "required": required and not question.optional,
    }
    if question.kind in ("choice", "bool"):
        choices = questionnaire.YES_NO if question.kind == "bool" else question.choices
        translated = [(value, gettext_lazy(label)) for value, label in choices]
        if question.kind == "choice":
            return forms.ChoiceField(choices=translated, widget=forms.RadioSelect, **common)
        return forms.TypedChoiceField(
            choices=translated, coerce=lambda v: v == "true", widget=forms.RadioSelect, **common
        )
    bounds: dict[str, Any] = {"min_value": question.min, "max_value": question.max}
    if question.kind == "int":
        return forms.IntegerField(**bounds, **common)
    return forms.FloatField(**bounds, **common)


class StepForm(forms.Form):
    """One step of the wizard. `revision` and `base`: the version and answers it was drawn with."""

    step: questionnaire.Step
    revision = forms.CharField(widget=forms.HiddenInput, required=False)
    base = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, data: Any = None, *, saved: Mapping[str, Any], revision: int) -> None:
        """`saved`: the assessment's answers now."""
        self.saved = saved
        initial = {
            key: questionnaire.QUESTIONS[key].to_form_value(saved[key])
            for key in self.step.keys
            if key in saved
        }
        initial["revision"] = revision
        initial["base"] = json.dumps(questionnaire.step_answers(self.step, saved))
        super().__init__(data, initial=initial)

    def clean_revision(self) -> int | None:
        try:
            return int(self.cleaned_data["revision"])
        except ValueError:
            return None  # not sent: a client without a version, last write wins

    def clean_base(self) -> dict[str, Any] | None:
        try:
            base = json.loads(self.cleaned_data["base"])
        except ValueError:
            return None
        return base if isinstance(base, dict) else None

    def clean(self) -> dict[str, Any]:
        """The checks between answers: this step's, with the others as saved."""
        cleaned = super().clean() or {}
        mine = {key: cleaned[key] for key in self.step.keys if key in cleaned}
        merged = {k: v for k, v in {**self.saved, **mine}.items() if v is not None}
        for key in self.step.keys:
            if key in self.errors or key in merged or not questionnaire.is_required(key, merged):
                continue
            if key in questionnaire.LEVELS_REPLACE:
                self.add_error(
                    key, _("Give the average, or the steady base and the time at the peak.")
                )
        problems = questionnaire.answers_problems(merged, name=_label)
        for key, problem in problems.items():
            if key in self.step.keys and key not in self.errors:
                self.add_error(key, problem)
        return self.cleaned_data

    def answers(self) -> dict[str, Any]:
        """The valid answers of this step (all of them once is_valid()); None: cleared."""
        return {key: value for key, value in self.cleaned_data.items() if key in self.step.keys}

    def question_rows(self) -> list[tuple[forms.BoundField, str]]:
        """The questionnaire's fields with their units, for the template (forms are per request)."""
        units = {key: questionnaire.QUESTIONS[key].unit for key in self.step.keys}
        return [(self[key], gettext(unit) if unit else "") for key, unit in units.items()]

    def cost_fields(self) -> list[forms.BoundField]:
        return []

    # The sentence under the demand levels; app.js fills it in as they are typed.
    DERIVED_NOTE = _(
        "From the steady base and the time at the peak: %(pct)s %% average utilization."
    )

    def derived_note(self) -> str:
        """The average utilization the saved demand levels give, or "" without them."""
        if not questionnaire.has_levels(self.saved) or "gpus" not in self.saved:
            return ""
        demand = questionnaire.demand_of(self.saved)
        return self.DERIVED_NOTE % {"pct": f"{demand.utilization * 100:.1f}"}

    def derived_note_template(self) -> str:
        return self.DERIVED_NOTE % {"pct": "__pct__"}


class FiguresStepForm(StepForm):
    """The last step: its questions and the cost figures set for the assessment."""

    def __init__(
        self,
        data: Any = None,
        *,
        saved: Mapping[str, Any],
        revision: int,
        figures: Mapping[str, Figure],
    ) -> None:
        super().__init__(data, saved=saved, revision=revision)
        self.figures = figures
        overrides = saved.get("costs", {})
        language = get_language() or "en"  # forms are built per request
        for name in ADJUSTABLE_NAMES:
            if name not in figures:
                continue
            spec, figure = FIGURES[name], figures[name]
            self.fields[f"cost_{name}"] = forms.FloatField(
                label=spec.label.get(language),
                min_value=spec.min,
                max_value=spec.max,
                required=False,  # left empty: the default figure
                initial=_plain(overrides.get(name, figure.value)),
                help_text=f"{spec.unit.get(language)} · {figure.source} ({figure.as_of})",
            )

    def cost_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("cost_")]

    def cost_overrides(self) -> dict[str, float]:
        """Figures the user changed from the defaults."""
        overrides = {}
        for name, value in self.cleaned_data.items():
            if name.startswith("cost_") and value is not None:
                figure = self.figures[name.removeprefix("cost_")]
                if value != figure.value:
                    overrides[figure.name] = value
        return overrides

    def answers(self) -> dict[str, Any]:
        values = super().answers()
        if not self.errors:
            values["costs"] = self.cost_overrides()
        return values


def _plain(number: float) -> float | int:
    """8.0 shows as 8 in a field; 0.35 stays 0.35."""
    return int(number) if float(number).is_integer() else number


def _label(key: str) -> str:
    return gettext(questionnaire.QUESTIONS[key].label)


def _step_form_class(step: questionnaire.Step) -> type[StepForm]:
    parent = FiguresStepForm if step.slug == questionnaire.FIGURES_STEP else StepForm
    # An answer the demand levels can stand in for is checked by StepForm.clean when the
    # levels are asked on the same step.
    levels_here = set(questionnaire.DEMAND_LEVELS) <= set(step.keys)
    fields = {
        key: question_field(
            questionnaire.QUESTIONS[key],
            required=not (levels_here and key in questionnaire.LEVELS_REPLACE),
        )
        for key in step.keys
    }
    name = f"{step.slug.title()}StepForm"
    return type(name, (parent,), {"step": step, **fields})


STEP_FORMS: dict[str, type[StepForm]] = {
    step.slug: _step_form_class(step) for step in questionnaire.STEPS
}


class StartForm(forms.Form):
    preset = forms.ChoiceField(required=False, widget=forms.RadioSelect)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from decider.personas import PRESETS

        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["preset"]).choices = [
            ("", _("Start from blank answers"))
        ] + [(key, preset["label"]) for key, preset in PRESETS.items()]


def name_clean(text: str) -> str:
    """A name on one line: control characters (newlines, tabs) become spaces."""
    return " ".join(
        "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in text).split()
    )


class NameForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=NAME_MAX_LENGTH, required=False)

    def clean_name(self) -> str:
        return name_clean(self.cleaned_data["name"])
