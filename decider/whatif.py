"""Try a change on the result page: a few answers and the GPU-hour price, scored without saving.

The form is built from the questionnaire's own questions and the figure registry, so its
ranges and messages are those of the wizard; the whole changed answer set is then checked by
`validation.answers_validate`, the same check a saved step, the API and the CLI pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import get_language, gettext

from decider import services
from decider.engine import questionnaire, validation
from decider.engine.figures import FIGURES, Figure
from decider.engine.markets import currency_rate, market_of
from decider.forms import NumberField, number_message, question_field, question_message

PRICE = "gpu_hour_on_demand"
# The demand as the assessment gives it: one average, or a steady base and bursts.
AVERAGE_KEYS = ("gpus", "utilization_pct")
LEVEL_KEYS = ("gpus", "base_gpus", "peak_share_pct")
SCALE_KEYS = ("horizon_years",)


def uses_levels(answers: Mapping[str, Any]) -> bool:
    return all(key in answers for key in questionnaire.DEMAND_LEVELS)


class WhatIfForm(forms.Form):
    """The answers a CTO most often wants to try, prefilled with the saved ones."""

    def __init__(
        self,
        data: Any = None,
        *,
        answers: Mapping[str, Any],
        figures: Mapping[str, Figure],
        currency: str | None = None,
    ) -> None:
        """`currency`: the one the page shows; the price is asked in it and converted back
        to the price set's own at the dated rate (`usd_cny`)."""
        super().__init__(data, auto_id="what-if-%s")
        self.saved = answers
        self.keys = (LEVEL_KEYS if uses_levels(answers) else AVERAGE_KEYS) + SCALE_KEYS
        for key in self.keys:
            question = questionnaire.QUESTIONS[key]
            self.fields[key] = question_field(question)
            self.fields[key].required = True  # the levels too: they replace the average here
            self.fields[key].initial = answers.get(key)
            self.fields[key].help_text = ""  # the wizard explains; here the numbers count
        spec = FIGURES[PRICE]
        language = get_language() or "en"
        label = spec.label.get(language)
        prices_in = market_of(answers).currency
        self.shown_in = currency or prices_in
        self.rate = currency_rate(
            {name: f.value for name, f in figures.items()},
            prices_in=prices_in,
            shown_in=self.shown_in,
        )
        low = None if spec.min is None else spec.min * self.rate
        high = None if spec.max is None else spec.max * self.rate
        allowed = questionnaire.range_text(whole=spec.whole, low=low, high=high)
        # `figures` are the pinned figures before the assessment's own overrides.
        self.default_price = figures[PRICE].value
        self.saved_price = answers.get("costs", {}).get(PRICE, self.default_price)
        self.fields[PRICE] = NumberField(
            label=label,
            message=number_message(label, allowed),
            min_value=low,
            max_value=high,
            initial=self._shown(self.saved_price),
        )
        self.units = {key: questionnaire.QUESTIONS[key].unit for key in self.keys}
        self.units[PRICE] = spec.unit_in(self.shown_in).get(language)
        self.trial: dict[str, Any] = dict(answers)
        self.workloads_set_aside = 0  # the saved workloads a demand tried leaves out

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        trial = {**self.saved, **{key: cleaned[key] for key in self.keys}}
        if uses_levels(self.saved):
            # The average and the shape follow from the levels: drop the saved ones.
            for key in questionnaire.LEVELS_REPLACE:
                trial.pop(key, None)
        overrides = dict(self.saved.get("costs", {}))
        price = self.price()
        if price != self.saved_price:  # the user's own figure stays unless retyped
            overrides[PRICE] = price
            if price == self.default_price:
                del overrides[PRICE]  # back to the figure itself
        trial["costs"] = overrides
        # As saved answers are read everywhere: a blank is no answer, and workloads whose
        # pooled demand is no longer the one tried are set aside (the notice says so).
        trial = validation.answers_settled(trial)
        if self.saved.get("workloads") and "workloads" not in trial:
            self.workloads_set_aside = len(self.saved["workloads"])
        for key, problem in questionnaire.answers_problems(trial, name=self._label).items():
            if key in self.fields:
                self.add_error(key, f"{self._label(key)}: {problem}")
            else:
                self.add_error(None, problem)
        answers, problems = validation.answers_validate(
            trial, providers=services.provider_keys(trial)
        )
        for key, problem in problems.items():  # each field passed its own check: rare
            self.add_error(None, self._saved_problem(key, problem))
        self.trial = answers
        return cleaned

    def _saved_problem(self, key: str, problem: str) -> str:
        """A problem of a saved answer this form does not ask, naming its question in the
        page's language ("Where the compute will run: choose one of the answers.")."""
        if key in questionnaire.QUESTIONS:
            return question_message(questionnaire.QUESTIONS[key])
        name, _dot, figure = key.partition(".")
        if name == "costs" and figure in FIGURES:
            label = FIGURES[figure].label.get(get_language() or "en")
            return f"{label}: {problem}"
        return gettext("A saved answer (%(key)s): %(problem)s") % {"key": key, "problem": problem}

    def _shown(self, price: float) -> float:
        """A price of the price set as the field shows it, in the page's currency."""
        return price if self.rate == 1 else round(price * self.rate, 2)

    def price(self) -> float:
        """The price typed, in the price set's own currency: the saved one when what was
        typed is the saved one as shown (a conversion's rounding is no change)."""
        typed = self.cleaned_data[PRICE]
        for known in (self.saved_price, self.default_price):
            if abs(typed - self._shown(known)) < 0.005:
                return known
        return typed if self.rate == 1 else round(typed / self.rate, 4)

    def _label(self, key: str) -> str:
        field = self.fields.get(key)
        return str(field.label) if field else gettext(questionnaire.QUESTIONS[key].label)

    def rows(self) -> list[tuple[forms.BoundField, str]]:
        """Each field with its unit, for the template."""
        units = {name: gettext(unit) if unit else unit for name, unit in self.units.items()}
        return [(self[name], units[name]) for name in self.fields]

    def changed(self) -> list[str]:
        """Labels of the answers that differ from the saved assessment."""
        if not self.is_valid():
            return []
        labels = []
        for key in self.keys:
            if self.cleaned_data[key] != self.saved.get(key):
                labels.append(str(self.fields[key].label))
        if self.price() != self.saved_price:
            labels.append(str(self.fields[PRICE].label))
        return labels
