"""The questionnaire: every answer key, its type, bounds, label and help.

This is the one place that knows what a valid answer is. The wizard's step
forms build their fields from it and the `decide` command and the JSON API
validate answer files with `answers_validate`, so both give the same messages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.functional import Promise
from django.utils.translation import gettext as _g
from django.utils.translation import gettext_lazy as _

YES_NO = (("true", _("Yes")), ("false", _("No")))

GPU_MODELS = (
    ("h100", "NVIDIA H100"),
    ("h200", "NVIDIA H200"),
    ("b200", "NVIDIA B200"),
    ("a100", "NVIDIA A100"),
    ("l40s", "NVIDIA L40S"),
)


@dataclass(frozen=True)
class Question:
    key: str
    kind: str  # "choice" | "bool" | "int" | "float"
    label: Promise
    help: Promise = ""
    choices: tuple[tuple[str, Any], ...] = ()
    min: float | None = None
    max: float | None = None
    unit: Promise | str = ""
    validators: tuple = field(default=(), compare=False)

    def formfield(self) -> forms.Field:
        common = {"label": self.label, "help_text": self.help}
        if self.kind == "choice":
            return forms.ChoiceField(choices=self.choices, widget=forms.RadioSelect, **common)
        if self.kind == "bool":
            return forms.TypedChoiceField(
                choices=YES_NO, coerce=lambda v: v == "true", widget=forms.RadioSelect, **common
            )
        bounds = {"min_value": self.min, "max_value": self.max}
        if self.kind == "int":
            return forms.IntegerField(**bounds, **common)
        return forms.FloatField(**bounds, **common)

    def allowed(self) -> str:
        """A short description of the allowed values, for error messages."""
        if self.kind == "choice":
            return " | ".join(value for value, _label in self.choices)
        if self.kind == "bool":
            return "true | false"
        kind = _g("a whole number") if self.kind == "int" else _g("a number")
        if self.max is None:
            return _g("%(kind)s ≥ %(min)s") % {"kind": kind, "min": _fmt(self.min)}
        return _g("%(kind)s from %(min)s to %(max)s") % {
            "kind": kind,
            "min": _fmt(self.min),
            "max": _fmt(self.max),
        }

    def to_form_value(self, value: Any) -> Any:
        """The stored answer as a form's initial value."""
        if self.kind == "bool" and isinstance(value, bool):
            return "true" if value else "false"
        return value


def _fmt(number: float | None) -> str:
    if number is None:
        return ""
    return str(int(number)) if float(number).is_integer() else str(number)


QUESTIONS: dict[str, Question] = {
    q.key: q
    for q in [
        # A. Workload and stage
        Question(
            "stage",
            "choice",
            _("Which describes you best?"),
            _(
                "The source matches each stage to a way of getting compute: research labs with "
                "long training runs build their own, startups still exploring rent, growing "
                "companies mix both, inference services depend on latency and peaks."
            ),
            choices=(
                ("research_lab", _("Research institution or large AI lab")),
                ("startup", _("Startup or exploration phase")),
                ("growth", _("Growing company with mixed workloads")),
                ("inference", _("Production inference service")),
            ),
        ),
        Question(
            "workload",
            "choice",
            _("Main workload"),
            _("Long training runs keep GPUs busy; experiments and fine-tuning come and go."),
            choices=(
                ("training", _("Large-model training")),
                ("finetuning", _("Fine-tuning and experiments")),
                ("inference", _("Inference serving")),
                ("mixed", _("Mixed")),
            ),
        ),
        Question(
            "direction_settled",
            "bool",
            _("Is the algorithm direction settled?"),
            _(
                "“When the algorithm direction is not yet settled … prefer cloud, to avoid the "
                "risk of idle fixed assets.”"
            ),
        ),
        Question(
            "demand_shape",
            "choice",
            _("How does your demand for GPUs vary?"),
            _("Steady demand keeps owned hardware busy; strong peaks and troughs leave it idle."),
            choices=(
                ("steady", _("Steady")),
                ("moderate", _("Moderate swings")),
                ("peaky", _("Strong peaks and troughs")),
            ),
        ),
        Question(
            "capacity_lead_time",
            "choice",
            _("How fast must new capacity arrive?"),
            _(
                "“Expanding a self-built cluster goes through selection, procurement, racking "
                "and driver work, usually taking weeks or months”; cloud scales in minutes."
            ),
            choices=(
                ("minutes", _("Within minutes")),
                ("days", _("Within days")),
                ("months", _("Weeks or months are acceptable")),
            ),
        ),
        Question(
            "latency_critical",
            "bool",
            _("Does inference need strict latency and deterministic performance?"),
            _(
                "“If the inference service has strict latency and stability needs, a self-built "
                "cluster more easily gives exclusive resources and deterministic performance.”"
            ),
        ),
        Question(
            "multi_region",
            "bool",
            _("Do you need to expand into other regions?"),
            _("“Cloud suits traffic with clear peaks and the need to expand into other regions.”"),
        ),
        Question(
            "custom_topology",
            "bool",
            _("Do you need to customise network or storage topology deeply?"),
            _(
                "“A self-built environment can customise network topology and storage deeply, "
                "but the architecture is then entirely your team’s responsibility.”"
            ),
        ),
        # B. Utilization and scale
        Question(
            "utilization_pct",
            "float",
            _("Expected average GPU utilization (%)"),
            _(
                "“If average GPU utilization can stay above 70 %, self-build lowers the cost per "
                "GPU-hour; below 30 %, the cloud actually costs less.”"
            ),
            min=0,
            max=100,
            unit="%",
        ),
        Question(
            "gpus",
            "int",
            _("GPUs needed at peak"),
            _("The number of GPUs your heaviest period needs."),
            min=1,
            max=100_000,
            unit=_("GPUs"),
        ),
        Question(
            "gpu_model",
            "choice",
            _("GPU model"),
            _("Prices, power and server costs depend on it."),
            choices=GPU_MODELS,
        ),
        Question(
            "horizon_years",
            "int",
            _("Planning horizon (years)"),
            _("Owned hardware pays off over years; a short horizon favours renting."),
            min=1,
            max=10,
            unit=_("years"),
        ),
        # C. Ops capability
        Question(
            "ops_hardware",
            "bool",
            _("Can someone on the team handle hardware failures independently?"),
            _(
                "“Is there someone on the team who can independently handle hardware failures, "
                "parallel file-system tuning and driver compatibility? Without such skills, "
                "cloud effectively lowers the cost of trial and error.”"
            ),
        ),
        Question(
            "ops_filesystem",
            "bool",
            _("Can the team tune a parallel file system?"),
            _(
                "Shared storage for training (e.g. Lustre, GPFS) needs capacity planning and tuning."
            ),
        ),
        Question(
            "ops_drivers",
            "bool",
            _("Can the team resolve driver and CUDA compatibility problems?"),
            _(
                "“Self-built performance depends heavily on hardware quality, cooling, power "
                "and the driver version mix.”"
            ),
        ),
        Question(
            "ops_fte",
            "float",
            _("Size of the infrastructure team (full-time equivalents)"),
            _(
                "“Running a self-built cluster usually needs a team with both systems and hardware experience.”"
            ),
            min=0,
            max=1000,
            unit=_("FTE"),
        ),
        Question(
            "has_datacenter",
            "bool",
            _("Do you have data-centre or colocation space of your own?"),
            _("Without it, self-build pays for colocation space and power by the kilowatt."),
        ),
        # D. Data and compliance
        Question(
            "residency",
            "choice",
            _("Must data stay inside your premises (data may not leave the domain)?"),
            _(
                "“Is there a mandatory requirement that data may not leave the domain? If so, "
                "self-build or private deployment may be the only compliant option.”"
            ),
            choices=(
                ("none", _("No such rule")),
                ("partial", _("Only part of the data (e.g. core data)")),
                ("all", _("All training data")),
            ),
        ),
        Question(
            "sensitivity",
            "choice",
            _("How sensitive is the data?"),
            _(
                "“Self-build physically isolates data: sensitive data never leaves your machine room.”"
            ),
            choices=(("low", _("Low")), ("medium", _("Medium")), ("high", _("High"))),
        ),
        Question(
            "jurisdiction_concern",
            "bool",
            _("Are you concerned about the cloud provider’s legal jurisdiction?"),
            _(
                "“For business extremely sensitive to data sovereignty, assess the provider’s "
                "service boundary and legal-jurisdiction risk.”"
            ),
        ),
        Question(
            "dataset_tb",
            "float",
            _("Size of the training data (TB)"),
            _(
                "“Training data sets often reach tens of TB or even PB; transfer time and cost "
                "cannot be ignored.”"
            ),
            min=0,
            max=1_000_000,
            unit="TB",
        ),
        # E. Budget
        Question(
            "capex_available",
            "bool",
            _("Is capital budget available up front?"),
            _(
                "“Self-build has a high up-front capital expense; cloud is an operating expense "
                "with a small initial outlay.”"
            ),
        ),
    ]
}


@dataclass(frozen=True)
class Step:
    slug: str
    title: Promise
    intro: Promise
    keys: tuple[str, ...]


STEPS: tuple[Step, ...] = (
    Step(
        "workload",
        _("Workload and stage"),
        _("What you run and how settled it is."),
        (
            "stage",
            "workload",
            "direction_settled",
            "demand_shape",
            "capacity_lead_time",
            "latency_critical",
            "multi_region",
            "custom_topology",
        ),
    ),
    Step(
        "utilization",
        _("Utilization and scale"),
        _("How busy the GPUs will be, how many, and for how long."),
        ("utilization_pct", "gpus", "gpu_model", "horizon_years"),
    ),
    Step(
        "ops",
        _("Operations capability"),
        _("The three questions the source asks of your team."),
        ("ops_hardware", "ops_filesystem", "ops_drivers", "ops_fte", "has_datacenter"),
    ),
    Step(
        "data",
        _("Data and compliance"),
        _("Where your data may live and how much of it there is."),
        ("residency", "sensitivity", "jurisdiction_concern", "dataset_tb"),
    ),
    Step(
        "budget",
        _("Budget"),
        _("How you can pay, and the cost figures behind the comparison."),
        ("capex_available",),
    ),
)
STEP_BY_SLUG = {step.slug: step for step in STEPS}
ANSWER_KEYS = tuple(key for step in STEPS for key in step.keys)
assert set(ANSWER_KEYS) == set(QUESTIONS), "every question belongs to exactly one step"

OPTIONAL_KEYS = frozenset({"costs"})


def _type_error(question: Question, value: Any) -> str | None:
    if question.kind == "choice":
        ok = isinstance(value, str)
    elif question.kind == "bool":
        ok = isinstance(value, bool)
    elif question.kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if ok:
        return None
    return _g("must be %(allowed)s, got %(value)s") % {
        "allowed": question.allowed(),
        "value": _json_repr(value),
    }


def _json_repr(value: Any) -> str:
    import json

    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def answer_clean(key: str, value: Any) -> Any:
    """Validate one JSON-typed answer; raise ValidationError with a message for people."""
    question = QUESTIONS[key]
    problem = _type_error(question, value)
    if problem:
        raise ValidationError(problem)
    field = question.formfield()
    try:
        # The form field runs the same bound validators the wizard shows.
        cleaned = field.clean(question.to_form_value(value))
    except ValidationError as error:
        message = " ".join(error.messages)
        raise ValidationError(
            _g("%(message)s (allowed: %(allowed)s)")
            % {"message": message, "allowed": question.allowed()}
        ) from None
    return float(cleaned) if question.kind == "float" else cleaned


def answers_validate(
    raw: Any, *, cost_names: frozenset[str] | None = None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Check a whole answers document. Returns (answers, errors by key)."""
    if not isinstance(raw, Mapping):
        return {}, {"_": _g("the answers must be a JSON object with one key per answer")}
    answers: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key in ANSWER_KEYS:
        if key not in raw:
            errors[key] = _g("missing (allowed: %(allowed)s)") % {
                "allowed": QUESTIONS[key].allowed()
            }
            continue
        try:
            answers[key] = answer_clean(key, raw[key])
        except ValidationError as error:
            errors[key] = " ".join(error.messages)
    for key in raw:
        if key not in QUESTIONS and key not in OPTIONAL_KEYS:
            errors[key] = _g("unknown key")
    if "costs" in raw:
        costs, cost_errors = cost_overrides_validate(raw["costs"], cost_names=cost_names)
        errors.update(cost_errors)
        if costs:
            answers["costs"] = costs
    return answers, errors


def cost_overrides_validate(
    raw: Any, *, cost_names: frozenset[str] | None
) -> tuple[dict[str, float], dict[str, str]]:
    if not isinstance(raw, Mapping):
        return {}, {"costs": _g("must be an object of assumption name to number")}
    costs: dict[str, float] = {}
    errors: dict[str, str] = {}
    for name, value in raw.items():
        key = f"costs.{name}"
        if cost_names is not None and name not in cost_names:
            errors[key] = _g("unknown cost assumption")
        elif (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            errors[key] = _g("must be a number, got %(value)s") % {"value": _json_repr(value)}
        elif value < 0:
            errors[key] = _g("must not be negative, got %(value)s") % {"value": _json_repr(value)}
        else:
            costs[name] = float(value)
    return costs, errors


def answers_missing(answers: Mapping[str, Any]) -> list[str]:
    return [key for key in ANSWER_KEYS if key not in answers]


def first_incomplete_step(answers: Mapping[str, Any]) -> Step | None:
    for step in STEPS:
        if any(key not in answers for key in step.keys):
            return step
    return None


def answers_merge(
    *, base: Mapping[str, Any], mine: Mapping[str, Any], stored: Mapping[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Three-way merge of one person's answers into what is saved now.

    `base` is what the person saw when the form was drawn, `mine` what they
    submit, `stored` what is saved now (someone else may have saved since).
    Returns (the answers to write, the conflicts as {key: the stored answer}):
    answers only this person changed are written, answers only the other
    person changed are kept, and an answer both changed differently is a
    conflict and is not written.
    """
    changed = {key: value for key, value in mine.items() if base.get(key) != value}
    conflicts = {
        key: stored.get(key)
        for key, value in changed.items()
        if stored.get(key) != base.get(key) and stored.get(key) != value
    }
    return {k: v for k, v in changed.items() if k not in conflicts}, conflicts
