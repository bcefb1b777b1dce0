"""The wizard's forms, built from the questionnaire and the figure registry.

One form class per step, made from `questionnaire.STEPS`: a new question
appears in its step without a change here. Bounds and units come from the
question, so the error shows next to the field.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Mapping
from typing import Any, cast

from django import forms
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import get_language, gettext, gettext_lazy, gettext_noop
from django.utils.translation import gettext_lazy as _

from decider.engine import fleet, gpus, markets, odds, providers, questionnaire, ranges, sizing
from decider.engine.figures import ADJUSTABLE_NAMES, FIGURES, Figure
from decider.engine.workloads import MAX_WORKLOADS
from decider.engine.workloads import NAME_MAX as WORKLOAD_NAME_MAX
from decider.formats import month_text, small_price
from decider.models import NAME_MAX_LENGTH
from decider.models import Provider as ProviderRow


def number_message(label: str, allowed: str) -> str:
    """The one message a number field gives, whatever is wrong: what to enter, with its range."""
    return gettext("%(label)s: enter %(allowed)s.") % {"label": label, "allowed": allowed}


class NumberField(forms.FloatField):
    """A number typed into a text box, so whatever was typed comes back as typed.

    A number input (type="number") sends "" for "1e", "12,5" or a pasted "150 %",
    so the typed text would vanish; a text box with a numeric keyboard keeps it.
    Every problem (empty, not a number, out of range, not whole) gets one message
    that names the field, the range and the unit.
    """

    def __init__(self, *, whole: bool = False, message: Any, **kwargs: Any) -> None:
        self.whole = whole
        self.message = message
        inputmode = "numeric" if whole else "decimal"
        widget = forms.TextInput(attrs={"inputmode": inputmode, "autocomplete": "off"})
        super().__init__(widget=widget, **kwargs)

    def clean(self, value: Any) -> float | int | None:
        try:
            number = super().clean(value)
        except forms.ValidationError as error:
            code = error.error_list[0].code if error.error_list else None
            raise forms.ValidationError(self.message, code=code) from None
        if number is not None and self.whole:
            if not float(number).is_integer():
                raise forms.ValidationError(self.message, code="whole")
            return int(number)
        return number


def question_field(question: questionnaire.Question, *, required: bool = True) -> forms.Field:
    label = gettext_lazy(question.label)
    common: dict[str, Any] = {
        "label": label,
        "help_text": gettext_lazy(question.help),
        "required": required and not question.optional,
    }
    if question.kind in ("choice", "bool"):
        choices = questionnaire.YES_NO if question.kind == "bool" else question.choices
        translated = [(value, gettext_lazy(text)) for value, text in choices]
        message = _choice_message(question)
        messages = {"required": message, "invalid_choice": message}
        if question.kind == "choice":
            return forms.ChoiceField(
                choices=translated, widget=forms.RadioSelect, error_messages=messages, **common
            )
        return forms.TypedChoiceField(
            choices=translated,
            coerce=lambda v: v == "true",
            widget=forms.RadioSelect,
            error_messages=messages,
            **common,
        )
    message = _number_message(question)
    return NumberField(
        whole=question.kind == "int",
        min_value=question.min,
        max_value=question.max,
        message=message,
        **common,
    )


def speed_rows() -> tuple[tuple[str, str, float], ...]:
    """The speed figures the GPU model choices show, as stored (what a step page showing
    them is kept by)."""
    from decider.models import Assumption

    return Assumption.speed_rows()


def gpu_model_choices(
    rows: tuple[tuple[str, str, float], ...] | None = None,
) -> list[tuple[str, str]]:
    """Each GPU model with where it is priced and its speed against an H100, from the figures
    ("NVIDIA H20 · Mainland China · training 0.15×, inference 1.1× an H100")."""
    return list(_gpu_model_choices(speed_rows() if rows is None else rows, get_language() or "en"))


@functools.lru_cache(maxsize=64)
def _gpu_model_choices(
    rows: tuple[tuple[str, str, float], ...], language: str
) -> tuple[tuple[str, str], ...]:
    speeds: dict[tuple[str, str], float] = {}
    for model, name, value in rows:
        speeds[(model or gpus.DEFAULT, name)] = value  # the generic row is the H100 itself
    choices = []
    for value, label in questionnaire.GPU_MODELS:
        where = " / ".join(
            m.label.get(language) for m in markets.MARKETS.values() if value in m.gpu_models
        )
        train = speeds.get((value, "perf_train_vs_h100"))
        infer = speeds.get((value, "perf_infer_vs_h100"))
        text = f"{label} · {where}"
        if train is not None and infer is not None:
            text += " · " + gettext("training %(train)s×, inference %(infer)s× an H100") % {
                "train": f"{train:g}",
                "infer": f"{infer:g}",
            }
        choices.append((value, text))
    return tuple(choices)


def question_message(question: questionnaire.Question) -> str:
    """The one message a question's field gives, naming it: what to choose or enter."""
    if question.kind in ("choice", "bool"):
        return _choice_message_now(question)
    return _number_message_now(question)


def _choice_message_now(question: questionnaire.Question) -> str:
    if question.kind == "bool":
        return gettext("%(label)s: choose Yes or No.") % _named(question)
    return gettext("%(label)s: choose one of the answers.") % _named(question)


def _number_message_now(question: questionnaire.Question) -> str:
    return number_message(gettext(question.label), question.allowed())


# Made lazy once: each `lazy()` call builds a proxy class (a fifth of a millisecond), and
# the messages are translated when shown, in the language of that request.
_choice_message = lazy(_choice_message_now, str)
_number_message = lazy(_number_message_now, str)


def _named(question: questionnaire.Question) -> dict[str, str]:
    return {"label": gettext(question.label)}


def listed_prices_text(answers: Mapping[str, Any]) -> str:
    """The listed providers' on-demand prices for the answers' GPU model, by kind: the
    figures the cloud is priced at, never a range typed beside them."""
    gpu_model = answers.get("gpu_model") or "h100"
    market = markets.market_of(answers)
    found = providers.listed_ranges(ProviderRow.listed(market.key), gpu_model)
    if not found:
        return ""
    kinds = {"neocloud": gettext("GPU clouds"), "hyperscaler": gettext("hyperscalers")}
    parts = [
        gettext("%(low)s to %(high)s at %(kind)s")
        % {
            "low": small_price(item.low, market.currency),
            "high": small_price(item.high, market.currency),
            "kind": kinds.get(item.kind, item.kind),
        }
        for item in found
    ]
    return gettext("Listed %(model)s prices an hour on demand: %(ranges)s (as of %(date)s).") % {
        "model": gpus.GPUS[gpu_model].label if gpu_model in gpus.GPUS else gpu_model,
        "ranges": gettext("; ").join(parts),
        "date": month_text(max(item.latest for item in found)),
    }


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
        if "gpu_model" in self.fields:
            cast(forms.ChoiceField, self.fields["gpu_model"]).choices = gpu_model_choices()
        if "cloud_provider" in self.fields:
            field = self.fields["cloud_provider"]
            field.help_text = f"{field.help_text} {listed_prices_text(saved)}".strip()

    def clean_revision(self) -> int | None:
        try:
            revision = int(self.cleaned_data["revision"])
        except ValueError:
            return None  # not sent: a client without a version, last write wins
        # A revision is a database integer; one no row can have is no version at all.
        return revision if 0 <= revision < 2**31 else None

    def clean_base(self) -> dict[str, Any] | None:
        base, problem = questionnaire.json_parse(self.cleaned_data["base"])
        if problem:
            return None
        return base if isinstance(base, dict) else None

    def clean(self) -> dict[str, Any]:
        """The checks between answers: this step's, with the others as saved."""
        cleaned = super().clean() or {}
        mine = {key: cleaned[key] for key in self.step.keys if key in cleaned}
        merged = questionnaire.without_blanks({**self.saved, **mine})
        for key in self.step.keys:
            if key in self.errors or key in merged or not questionnaire.is_required(key, merged):
                continue
            if key in questionnaire.LEVELS_REPLACE:
                problem = gettext("Give the average, or the steady base and the time at the peak.")
                self.add_error(key, _named_problem(key, problem))
        problems = questionnaire.answers_problems(merged, name=_label)
        for key, problem in problems.items():
            if key in self.step.keys and key not in self.errors:
                self.add_error(key, _named_problem(key, problem))
        return self.cleaned_data

    def error_summary(self) -> list[dict[str, str]]:
        """Each field in error, in page order: the link to it and its message naming it."""
        entries = []
        shown = [*self.cost_fields(), *getattr(self, "fleet_fields", list)()]
        for name in [*self.step.keys, *(f.name for f in shown)]:
            if name not in self.errors:
                continue
            field = self[name]
            label = str(field.label)
            for message in map(str, self.errors[name]):
                text = message if message.startswith(label) else f"{label}: {message}"
                entries.append({"href": f"#{_input_id(field)}", "text": text})
        return entries

    def typed_errors(self) -> list[str]:
        """The fields in error that hold something typed (not just left empty)."""
        return [name for name in self.errors if name in self.fields and self[name].data]

    def keep_typed_errors_only(self) -> None:
        """Forget "required" for fields left empty: going back or switching never asks for them."""
        for name in [n for n in self.errors if n in self.fields and not self[n].data]:
            del self.errors[name]

    def answers(self) -> dict[str, Any]:
        """The valid answers of this step (all of them once is_valid()); None: cleared, as is
        a question left blank (a choice field gives "" for it)."""
        return {
            key: None if questionnaire.is_blank(value) else value
            for key, value in self.cleaned_data.items()
            if key in self.step.keys
        }

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
            currency = markets.market_of(saved).currency  # the price set's own
            label = spec.label.get(language)
            allowed = questionnaire.range_text(whole=spec.whole, low=spec.min, high=spec.max)
            self.fields[f"cost_{name}"] = NumberField(
                label=label,
                message=number_message(label, allowed),
                whole=spec.whole,
                min_value=spec.min,
                max_value=spec.max,
                required=False,  # left empty: the default figure
                initial=_plain(overrides.get(name, figure.value)),
                help_text=f"{spec.unit_in(currency).get(language)} · "
                f"{figure.source_in(language)} ({month_text(figure.as_of)})",
            )

        self._range_fields(saved.get("uncertainty", {}))
        self._fleet_fields(saved)

    def _fleet_fields(self, saved: Mapping[str, Any]) -> None:
        """The GPUs of this model owned already: shown when the saved `owned` is none, or
        one entry of this model (a longer list, sent through the API, is left as it is)."""
        owned = saved.get("owned") or []
        model = saved.get("gpu_model") or gpus.DEFAULT
        if len(owned) > 1 or (owned and owned[0]["gpu_model"] != model):
            return
        entry = owned[0] if owned else {}
        label = gettext("GPUs of this model you own already")
        allowed = questionnaire.range_text(whole=True, low=0, high=fleet.MAX_GPUS)
        self.fields["owned_gpus"] = NumberField(
            label=label,
            message=number_message(label, allowed),
            whole=True,
            min_value=0,
            max_value=fleet.MAX_GPUS,
            required=False,
            initial=entry.get("gpus"),
            help_text=gettext(
                "Optional. A cluster that runs already: owning keeps it with no purchase and "
                "no cloud while hardware arrives; renting sells it today at its resale value."
            ),
        )
        self.fields["owned_bought"] = forms.CharField(
            label=gettext("Month they were bought"),
            required=False,
            max_length=7,
            initial=entry.get("bought", ""),
            widget=forms.TextInput(attrs={"type": "month", "placeholder": "2024-06"}),
            help_text=gettext("As YYYY-MM, e.g. 2024-06: their age sets their resale value."),
        )

    def fleet_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in ("owned_gpus", "owned_bought") if name in self.fields]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name, value in list(cleaned.items()):
            # What the field's bounds do not say (a depreciation period in whole months).
            if not name.startswith("cost_") or value is None or name in self.errors:
                continue
            if problem := FIGURES[name.removeprefix("cost_")].problem(float(value)):
                self.add_error(name, f"{self.fields[name].label}: {problem}")
        if "owned_gpus" in self.fields and cleaned.get("owned_gpus"):
            bought = fleet.month_of(cleaned.get("owned_bought"))
            today = timezone.now().date()
            if bought is None or bought[0] < fleet.EARLIEST_YEAR:
                self.add_error(
                    "owned_bought",
                    gettext("Give the month they were bought, as YYYY-MM (e.g. 2024-06)."),
                )
            elif bought > (today.year, today.month):
                self.add_error("owned_bought", gettext("Must not be after this month."))
        return cleaned

    def fleet_answers(self) -> dict[str, Any]:
        """`owned` and `owned_as_of` as typed: one entry of this model, or none (cleared)."""
        if "owned_gpus" not in self.fields:
            return {}
        count = self.cleaned_data.get("owned_gpus")
        if not count:
            return {"owned": None, "owned_as_of": None}
        model = self.saved.get("gpu_model") or gpus.DEFAULT
        owned = [
            {"gpu_model": model, "gpus": int(count), "bought": self.cleaned_data["owned_bought"]}
        ]
        # Ages count to the month the fleet was entered: a saved result prices it alike.
        same = owned == self.saved.get("owned")
        as_of = self.saved.get("owned_as_of") if same else None
        return {"owned": owned, "owned_as_of": as_of or fleet.month_text(timezone.now().date())}

    def _range_fields(self, given: Mapping[str, Mapping[str, float]]) -> None:
        """Low and high multipliers of each input the odds draw (engine/odds.py)."""
        least, most = odds.RANGE_LIMITS
        for name, spread in ranges.SPREADS.items():
            label = gettext(spread.label)
            for side, low, high, default in (
                ("low", least, 1.0, spread.low),
                ("high", 1.0, most, spread.high),
            ):
                text = (
                    gettext("%(input)s: lowest") if side == "low" else gettext("%(input)s: highest")
                )
                shown = text % {"input": label}
                allowed = questionnaire.range_text(whole=False, low=low, high=high, unit="×")
                self.fields[f"range_{name}_{side}"] = NumberField(
                    label=shown,
                    message=number_message(shown, allowed),
                    min_value=low,
                    max_value=high,
                    required=False,  # left empty: the default range
                    initial=_plain(given.get(name, {}).get(side, default)),
                    help_text=spread.source_in(get_language() or "en") if side == "high" else "",
                )

    def cost_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in self.fields if name.startswith("cost_")]

    def range_rows(self) -> list[tuple[str, forms.BoundField, forms.BoundField, str]]:
        """(input, its low field, its high field, its source) per input the odds draw."""
        return [
            (
                gettext(spread.label),
                self[f"range_{name}_low"],
                self[f"range_{name}_high"],
                spread.source_in(get_language() or "en"),
            )
            for name, spread in ranges.SPREADS.items()
        ]

    def ranges_changed(self) -> dict[str, dict[str, float]]:
        """The ranges the user moved from the defaults."""
        changed = {}
        for name, spread in ranges.SPREADS.items():
            low = self.cleaned_data.get(f"range_{name}_low")
            high = self.cleaned_data.get(f"range_{name}_high")
            low = spread.low if low is None else float(low)
            high = spread.high if high is None else float(high)
            if (low, high) != (spread.low, spread.high):
                changed[name] = {"low": low, "high": high}
        return changed

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
            values["uncertainty"] = self.ranges_changed()
            values |= self.fleet_answers()
        return values


def _plain(number: float) -> float | int:
    """8.0 shows as 8 in a field; 0.35 stays 0.35."""
    return int(number) if float(number).is_integer() else number


def _label(key: str) -> str:
    return gettext(questionnaire.QUESTIONS[key].label)


def _named_problem(key: str, problem: str) -> str:
    """A problem between answers, prefixed with the field it is shown next to."""
    return gettext("%(label)s: %(problem)s") % {"label": _label(key), "problem": problem}


def _input_id(field: forms.BoundField) -> str:
    """The id of the input a link to the field focuses: the first radio of a choice."""
    if isinstance(field.field.widget, forms.RadioSelect):
        return f"{field.auto_id}_0"
    return field.auto_id


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


# --- sizing from the work (engine/sizing.py) -------------------------------------------

# Each input of the sizing page: (part, input) → (label, help), message ids.
WORK_INPUTS: dict[tuple[str, str], tuple[str, str]] = {
    ("training", "params_b"): (
        gettext_noop("Model parameters (billions)"),
        gettext_noop("Llama 3 70B: 70; a 7B model: 7."),
    ),
    ("training", "active_params_b"): (
        gettext_noop("Parameters active per token (billions), for a mixture of experts"),
        gettext_noop(
            "Optional. DeepSeek-V3: 37 of its 671. Compute follows these; memory all of them."
        ),
    ),
    ("training", "tokens_b"): (
        gettext_noop("Tokens per training run (billions)"),
        gettext_noop("Llama 3 was pre-trained on 15,600 billion tokens; a fine-tune may use 1–10."),
    ),
    ("training", "runs_per_year"): (gettext_noop("Training runs per year"), ""),
    ("training", "days_per_run"): (gettext_noop("Days one run may take"), ""),
    ("training", "mfu"): (
        gettext_noop("Share of the GPUs' peak a run achieves (MFU, 0–1)"),
        gettext_noop(
            "Optional. Left empty: 0.40 (Llama 3 reached 0.38–0.43 on H100s), 0.48 on A100s, "
            "0.25 for a mixture of experts."
        ),
    ),
    ("training", "goodput"): (
        gettext_noop("Share of the run's time doing useful work (0.3–1)"),
        gettext_noop(
            "Optional. Left empty: 0.9 (Llama 3 lost under a tenth of its time to 466 "
            "interruptions in 54 days)."
        ),
    ),
    ("inference", "params_b"): (gettext_noop("Served model parameters (billions)"), ""),
    ("inference", "input_tokens_per_day_m"): (
        gettext_noop("Input tokens read per day (millions: prompts, documents, history)"),
        gettext_noop("Prompt tokens are read in one parallel pass: far cheaper than answers."),
    ),
    ("inference", "output_tokens_per_day_m"): (
        gettext_noop("Output tokens written per day (millions: the answers)"),
        "",
    ),
    ("inference", "tokens_per_day_m"): (
        gettext_noop("Or: all tokens served per day (millions, prompts and answers)"),
        gettext_noop("When you do not know them apart: taken as half prompts, half answers."),
    ),
    ("inference", "request_tokens"): (
        gettext_noop("Tokens of a typical request (prompt and answer)"),
        gettext_noop(
            "Optional. Left empty: 2,000. Each answer token reads the request's context again."
        ),
    ),
    ("inference", "peak_to_average"): (
        gettext_noop("Busiest hour over the average hour"),
        gettext_noop("About 2 to 4 for a service used in office hours; 1 for batch work."),
    ),
    ("inference", "latency_ms"): (
        gettext_noop("Time per output token (ms)"),
        gettext_noop("Optional. 50 ms is 20 tokens a second, faster than people read."),
    ),
    ("inference", "mfu"): (
        gettext_noop("Share of the GPUs' peak serving achieves (0–1)"),
        gettext_noop(
            "Optional. Left empty: the published throughput table where it has your GPU "
            "model, else 0.25 (an estimate). Typed: sized by the FLOPs at this share."
        ),
    ),
}


class WorkForm(forms.Form):
    """The sizing page: a training plan, an inference service, or both. A part is sized when
    any of its inputs is typed; then each of its required inputs is needed."""

    def __init__(self, data: Any = None) -> None:
        super().__init__(data)
        for (part, name), (label, help_text) in WORK_INPUTS.items():
            low, high = _work_bounds(part)[name]
            allowed = questionnaire.range_text(whole=False, low=low, high=high)
            self.fields[f"{part}-{name}"] = NumberField(
                label=gettext(label),
                help_text=gettext(help_text) if help_text else "",
                message=number_message(gettext(label), allowed),
                required=False,
                min_value=low,
                max_value=high,
            )
        self.fields["training-precision"] = forms.ChoiceField(
            label=gettext("Precision of the run's matrix multiplies"),
            help_text=gettext(
                "FP8 runs about 1.3× as fast on GPUs that have it (H100, H200, B200, L40S, "
                "H20, L20); the A100 and the Ascend 910B train in BF16."
            ),
            choices=[("bf16", "BF16"), ("fp8", "FP8")],
            widget=forms.RadioSelect,
            required=False,
            initial="bf16",
        )

        self.fields["inference-precision"] = forms.ChoiceField(
            label=gettext("Precision the model is served in"),
            help_text=gettext(
                "Left as it is: FP8 on GPUs that have it (the published throughput is "
                "measured so), BF16 on the A100 and the Ascend 910B. BF16 weights take twice "
                "the memory."
            ),
            choices=[("", gettext("As the GPU model suits")), ("fp8", "FP8"), ("bf16", "BF16")],
            widget=forms.RadioSelect,
            required=False,
            initial="",
        )

    def parts(self) -> list[tuple[str, list[forms.BoundField]]]:
        shown = {
            part: [self[f"{part}-{name}"] for p, name in WORK_INPUTS if p == part]
            for part in ("training", "inference")
        }
        shown["training"].append(self["training-precision"])
        shown["inference"].append(self["inference-precision"])
        return list(shown.items())

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        given = self.work()
        if not given and not self.errors:
            raise forms.ValidationError(
                gettext("Fill in a training plan, an inference service, or both.")
            )
        for part in given:
            for name in _work_bounds(part):
                key = f"{part}-{name}"
                missing = name not in sizing.OPTIONAL_INPUTS and cleaned.get(key) is None
                if missing and key not in self.errors:
                    label = gettext(WORK_INPUTS[(part, name)][0])
                    self.add_error(
                        key, gettext("%(label)s: needed for this part.") % {"label": label}
                    )
        if "inference" in given and not any(k.startswith("inference-") for k in self.errors):
            for name, _message in sizing.tokens_problems(given["inference"]).items():
                self.add_error(f"inference-{name}", self._tokens_message(name))
        active, total = cleaned.get("training-active_params_b"), cleaned.get("training-params_b")
        if active is not None and total is not None and active > total:
            self.add_error(
                "training-active_params_b",
                gettext("Must not exceed the model's parameters (%(total)s billion).")
                % {"total": f"{total:g}"},
            )
        return cleaned

    @staticmethod
    def _tokens_message(name: str) -> str:
        if name == "tokens_per_day_m":
            return gettext(
                "Give the tokens a day: input and output apart, or all of them here. "
                "If both, this must be their sum."
            )
        return gettext("Give input and output tokens both, or only the total below.")

    def work(self) -> dict[str, dict[str, Any]]:
        """The parts typed, as engine/sizing.py reads them ({"training": {...}})."""
        data = getattr(self, "cleaned_data", {})
        work: dict[str, dict[str, Any]] = {}
        for part, name in WORK_INPUTS:
            value = data.get(f"{part}-{name}")
            if value is not None:
                work.setdefault(part, {})[name] = float(value)
        for part in ("training", "inference"):
            if part in work and data.get(f"{part}-precision"):
                work[part]["precision"] = data[f"{part}-precision"]
        return work


def _work_bounds(part: str) -> dict[str, tuple[float, float]]:
    return sizing.TRAINING_INPUTS if part == "training" else sizing.INFERENCE_INPUTS


# --- several workloads (engine/workloads.py) --------------------------------------------

WORKLOAD_FIELDS = (
    "workload",
    "gpus",
    "utilization_pct",
    "demand_shape",
    "residency",
    "latency_critical",
    "growth_pct",
)


class WorkloadForm(forms.Form):
    """One workload of several: its name, kind, demand (an average and a shape; the API
    takes the levels too) and data residency. A row left empty is no workload."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["name"] = forms.CharField(
            label=gettext("Name"),
            max_length=WORKLOAD_NAME_MAX,
            required=False,
            error_messages={"max_length": gettext("at most %(limit_value)d characters")},
        )
        for key in WORKLOAD_FIELDS:
            question = questionnaire.QUESTIONS[key]
            field = question_field(question, required=False)
            field.help_text = ""  # the questions' help is on their steps; a row stays short
            if isinstance(field, forms.ChoiceField):  # a row of selects, not of radios
                given = questionnaire.YES_NO if question.kind == "bool" else question.choices
                choices = [("", "—"), *((v, gettext_lazy(t)) for v, t in given)]
                field.choices = choices
                field.widget = forms.Select(choices=choices)
            self.fields[key] = field
        self.fields["separate"] = forms.BooleanField(
            label=gettext("Latency-bound, in another region: a cluster of its own"),
            required=False,
        )

    def workload(self) -> dict[str, Any] | None:
        """The row as the answers' `workloads` item, or None when left empty."""
        data = {key: value for key, value in self.cleaned_data.items() if value not in (None, "")}
        if not data.get("separate"):
            data.pop("separate", None)  # unticked: pooled, as an item says by leaving it out
        if not data:
            return None
        return data


class BaseWorkloadFormSet(forms.BaseFormSet):
    def workloads(self) -> list[dict[str, Any]]:
        return [item for form in self.forms if (item := form.workload()) is not None]


WorkloadFormSet = forms.formset_factory(
    WorkloadForm,
    formset=BaseWorkloadFormSet,
    extra=2,
    max_num=MAX_WORKLOADS,
    absolute_max=MAX_WORKLOADS,
)
