"""The questionnaire: every question, the step that asks it, its type, bounds, label and help.

This is the one place that knows a question. The wizard builds its step forms
from it, `answers_validate` (engine/validation.py) checks answers documents (the
`decide` command and the JSON API) with it, the OpenAPI document and the answers
table are drawn from it. Adding a question is a change to this file only: a new entry with
its step (a criterion that scores it is data, added in the admin).

Messages copy the wording of Django's form fields, so the wizard, the API and
`decide` say the same thing in both languages.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from decider.engine import gpus, markets
from decider.engine.demand import CLOUD_SHARE_BY_RESIDENCY, DEMAND_ANSWERS, Demand
from decider.engine.figures import is_finite, key_text, value_text
from decider.engine.i18n import gettext, gettext_noop
from decider.engine.outcomes import API, COST_ODDS, COST_VERDICTS, OUTCOMES
from decider.engine.text import number_text

Kind = Literal["choice", "bool", "int", "float"]

# (key, name) of every GPU model a market offers, read from engine/gpus.py when asked.
GPU_MODELS: Sequence[tuple[str, str]] = gpus.Choices()
MARKET_CHOICES: tuple[tuple[str, str], ...] = (
    ("global", gettext_noop("Outside mainland China (global prices)")),
    ("cn", gettext_noop("Mainland China")),
)
YES_NO: tuple[tuple[str, str], ...] = (("true", gettext_noop("Yes")), ("false", gettext_noop("No")))


@dataclass(frozen=True)
class Question:
    """One question. Texts are message ids: translate them where they are shown."""

    key: str
    kind: Kind
    label: str
    help: str = ""
    choices: Sequence[tuple[str, str]] = ()
    min: float | None = None
    max: float | None = None
    unit: str = ""
    step: str = ""
    optional: bool = False  # may be left out (see also LEVELS_REPLACE)
    # Answer values a rule may leave without an option (it then scores nothing for them):
    # those about the per-token outcome, which came after rule sets were written.
    optional_values: tuple[str, ...] = ()

    def values(self) -> tuple[str, ...] | None:
        """The answer values of a choice or yes/no question, as rules write them; None for numbers."""
        if self.kind == "choice":
            return tuple(value for value, _label in self.choices)
        if self.kind == "bool":
            return ("true", "false")
        return None

    def allowed(self) -> str:
        """A short description of the allowed values, for error messages."""
        values = self.values()
        if values is not None:
            return " | ".join(values)
        return range_text(
            whole=self.kind == "int",
            low=self.min,
            high=self.max,
            unit=gettext(self.unit) if self.unit else "",
        )

    def to_form_value(self, value: Any) -> Any:
        """The stored answer as a form's initial value."""
        if self.kind == "bool" and isinstance(value, bool):
            return "true" if value else "false"
        return value

    def display(self, value: Any) -> str:
        """An answer as people read it, in the current language."""
        if self.kind == "bool":
            return gettext("Yes") if value else gettext("No")
        if self.kind == "choice":
            label = dict(self.choices).get(value)
            return gettext(label) if label else str(value)
        unit = f" {gettext(self.unit)}" if self.unit else ""
        return f"{value:g}{unit}"

    def problem(self, value: Any) -> str | None:
        """Why a JSON-typed answer is not valid, or None."""
        if not self._has_type(value):
            return gettext("must be %(allowed)s, got %(value)s") % {
                "allowed": self.allowed(),
                "value": value_text(value),
            }
        message = self._value_problem(value)
        if message is None:
            return None
        return gettext("%(message)s (allowed: %(allowed)s)") % {
            "message": message,
            "allowed": self.allowed(),
        }

    def _has_type(self, value: Any) -> bool:
        if self.kind == "choice":
            return isinstance(value, str)
        if self.kind == "bool":
            return isinstance(value, bool)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return isinstance(value, int) if self.kind == "int" else is_finite(value)

    def _value_problem(self, value: Any) -> str | None:
        if self.kind == "choice":
            if value == "":
                return gettext("This field is required.")
            if value not in (self.values() or ()):
                return gettext(
                    "Select a valid choice. %(value)s is not one of the available choices."
                ) % {"value": key_text(value)}
            return None
        if self.kind == "bool":
            return None
        if self.min is not None and value < self.min:
            return gettext("Ensure this value is greater than or equal to %(limit_value)s.") % {
                "limit_value": number_text(self.min)
            }
        if self.max is not None and value > self.max:
            return gettext("Ensure this value is less than or equal to %(limit_value)s.") % {
                "limit_value": number_text(self.max)
            }
        return None


def range_text(*, whole: bool, low: float | None, high: float | None, unit: str = "") -> str:
    """The numbers allowed, in words with their unit ("a whole number from 1 to 100,000 GPUs").

    The one wording of a range: the wizard's messages, the API's and `decide`'s say it so.
    """
    kind = gettext("a whole number") if whole else gettext("a number")
    values = {"kind": kind, "min": grouped_text(low), "max": grouped_text(high), "unit": unit}
    if high is None:
        text = gettext("%(kind)s of %(min)s or more %(unit)s") % values
    else:
        text = gettext("%(kind)s from %(min)s to %(max)s %(unit)s") % values
    return " ".join(text.split())  # no unit: no stray space


def grouped_text(number: float | None) -> str:
    """100000 -> "100,000", 0.5 -> "0.5"; bounds as people read them."""
    text = number_text(number)
    if not text or "." in text or "e" in text:
        return text
    return f"{int(text):,}"


QUESTIONS: dict[str, Question] = {
    q.key: q
    for q in [
        # A. Workload and stage
        Question(
            "stage",
            "choice",
            gettext_noop("Which describes you best?"),
            gettext_noop(
                "The source matches each stage to a way of getting compute: research labs with "
                "long training runs build their own, startups still exploring rent, growing "
                "companies mix both, inference services depend on latency and peaks."
            ),
            choices=(
                ("research_lab", gettext_noop("Research institution or large AI lab")),
                ("startup", gettext_noop("Startup or exploration phase")),
                ("growth", gettext_noop("Growing company with mixed workloads")),
                ("inference", gettext_noop("Production inference service")),
            ),
            step="workload",
        ),
        Question(
            "workload",
            "choice",
            gettext_noop("Main workload"),
            gettext_noop(
                "Long training runs keep GPUs busy; experiments and fine-tuning come and go."
            ),
            choices=(
                ("training", gettext_noop("Large-model training")),
                ("finetuning", gettext_noop("Fine-tuning and experiments")),
                ("inference", gettext_noop("Inference serving")),
                ("mixed", gettext_noop("Mixed")),
            ),
            step="workload",
        ),
        Question(
            "direction_settled",
            "bool",
            gettext_noop("Is the algorithm direction settled?"),
            gettext_noop(
                "“When the algorithm direction is not yet settled … prefer cloud, to avoid the "
                "risk of idle fixed assets.”"
            ),
            step="workload",
        ),
        Question(
            "demand_shape",
            "choice",
            gettext_noop("How does your demand for GPUs vary?"),
            gettext_noop(
                "Steady demand keeps owned hardware busy; strong peaks and troughs leave it idle."
            ),
            choices=(
                ("steady", gettext_noop("Steady")),
                ("moderate", gettext_noop("Moderate swings")),
                ("peaky", gettext_noop("Strong peaks and troughs")),
            ),
            step="workload",
        ),
        Question(
            "capacity_lead_time",
            "choice",
            gettext_noop("How fast must new capacity arrive?"),
            gettext_noop(
                "“Expanding a self-built cluster goes through selection, procurement, racking "
                "and driver work, usually taking weeks or months”; cloud scales in minutes."
            ),
            choices=(
                ("minutes", gettext_noop("Within minutes")),
                ("days", gettext_noop("Within days")),
                ("months", gettext_noop("Weeks or months are acceptable")),
            ),
            step="workload",
        ),
        Question(
            "latency_critical",
            "bool",
            gettext_noop("Does inference need strict latency and deterministic performance?"),
            gettext_noop(
                "“If the inference service has strict latency and stability needs, a self-built "
                "cluster more easily gives exclusive resources and deterministic performance.”"
            ),
            step="workload",
        ),
        Question(
            "multi_region",
            "bool",
            gettext_noop("Do you need to expand into other regions?"),
            gettext_noop(
                "“Cloud suits traffic with clear peaks and the need to expand into other regions.”"
            ),
            step="workload",
        ),
        Question(
            "custom_topology",
            "bool",
            gettext_noop("Do you need to customise network or storage topology deeply?"),
            gettext_noop(
                "“A self-built environment can customise network topology and storage deeply, "
                "but the architecture is then entirely your team’s responsibility.”"
            ),
            step="workload",
        ),
        # B. Utilization and scale
        Question(
            "utilization_pct",
            "float",
            gettext_noop("Expected average GPU utilization (%)"),
            gettext_noop(
                "“If average GPU utilization can stay above 70 %, self-build lowers the cost per "
                "GPU-hour; below 30 %, the cloud actually costs less.” Utilization is GPU-hours "
                "busy with work over GPU-hours you have, averaged over the horizon "
                "(nvidia-smi’s “util” counts a GPU busy when any kernel runs, and overstates "
                "it). Leave it empty when you give the steady base and the time at the peak "
                "below: it follows from them."
            ),
            min=0,
            max=100,
            unit="%",
            step="utilization",
        ),
        Question(
            "gpus",
            "int",
            gettext_noop("GPUs needed at peak"),
            gettext_noop("The number of GPUs your heaviest period needs."),
            min=1,
            max=100_000,
            unit=gettext_noop("GPUs"),
            step="utilization",
        ),
        Question(
            "base_gpus",
            "int",
            gettext_noop("GPUs busy around the clock (the steady base)"),
            gettext_noop(
                "Optional. The GPUs your steady work keeps busy all the time, such as an "
                "inference service; the bursts above it are counted by the time at the peak. "
                "Owning the steady base and renting the bursts is often the cheapest design."
            ),
            min=0,
            max=100_000,
            unit=gettext_noop("GPUs"),
            step="utilization",
            optional=True,
        ),
        Question(
            "peak_share_pct",
            "float",
            gettext_noop("Share of the time demand is at the peak (%)"),
            gettext_noop(
                "Optional, with the steady base: how much of the time your demand reaches the "
                "peak GPU count (training runs, traffic peaks)."
            ),
            min=0,
            max=100,
            unit="%",
            step="utilization",
            optional=True,
        ),
        Question(
            "market",
            "choice",
            gettext_noop("Where the compute will run"),
            gettext_noop(
                "Prices, the GPUs on sale and the currency they are quoted in differ by market."
            ),
            choices=MARKET_CHOICES,
            step="utilization",
            optional=True,
        ),
        Question(
            "gpu_model",
            "choice",
            gettext_noop("GPU model"),
            gettext_noop("Prices, power and server costs depend on it."),
            choices=GPU_MODELS,
            step="utilization",
        ),
        Question(
            "horizon_years",
            "int",
            gettext_noop("Planning horizon (years)"),
            gettext_noop("Owned hardware pays off over years; a short horizon favours renting."),
            min=1,
            max=10,
            unit=gettext_noop("years"),
            step="utilization",
        ),
        Question(
            "growth_pct",
            "float",
            gettext_noop("Demand growth per year (%)"),
            gettext_noop(
                "Optional. How much the base and the peak grow each year; the plan in stages "
                "then says when owning starts to pay and when to add to it. Left empty: today's "
                "demand holds."
            ),
            min=-50,
            max=1000,
            unit="%",
            step="utilization",
            optional=True,
        ),
        # C. Ops capability
        Question(
            "ops_hardware",
            "bool",
            gettext_noop("Can someone on the team handle hardware failures independently?"),
            gettext_noop(
                "“Is there someone on the team who can independently handle hardware failures, "
                "parallel file-system tuning and driver compatibility? Without such skills, "
                "cloud effectively lowers the cost of trial and error.”"
            ),
            step="ops",
        ),
        Question(
            "ops_filesystem",
            "bool",
            gettext_noop("Can the team tune a parallel file system?"),
            gettext_noop(
                "Shared storage for training (e.g. Lustre, GPFS) needs capacity planning and tuning."
            ),
            step="ops",
        ),
        Question(
            "ops_drivers",
            "bool",
            gettext_noop("Can the team resolve driver and CUDA compatibility problems?"),
            gettext_noop(
                "“Self-built performance depends heavily on hardware quality, cooling, power "
                "and the driver version mix.”"
            ),
            step="ops",
        ),
        Question(
            "ops_fte",
            "float",
            gettext_noop("Size of the infrastructure team (full-time equivalents)"),
            gettext_noop(
                "“Running a self-built cluster usually needs a team with both systems and hardware experience.”"
            ),
            min=0,
            max=1000,
            unit=gettext_noop("FTE"),
            step="ops",
        ),
        Question(
            "count_existing_team",
            "bool",
            gettext_noop("Count the team you already have at its cost?"),
            gettext_noop(
                "Optional. Yes: its people are costed (the staff cost a year each) in every "
                "option that employs them, the owned cluster first, so owning pays for the "
                "people it keeps busy. Left empty or no: the team is paid anyway, and only "
                "people to hire are costed."
            ),
            step="ops",
            optional=True,
        ),
        Question(
            "has_datacenter",
            "bool",
            gettext_noop("Do you have data-centre or colocation space of your own?"),
            gettext_noop(
                "Without it, self-build pays for colocation space and power by the kilowatt."
            ),
            step="ops",
        ),
        # D. Data and compliance
        Question(
            "residency",
            "choice",
            gettext_noop("Must data stay inside your premises (data may not leave the domain)?"),
            gettext_noop(
                "“Is there a mandatory requirement that data may not leave the domain? If so, "
                "self-build or private deployment may be the only compliant option.”"
            ),
            choices=(
                ("none", gettext_noop("No such rule")),
                ("partial", gettext_noop("Only part of the data (e.g. core data)")),
                ("all", gettext_noop("All training data")),
            ),
            step="data",
        ),
        Question(
            "cloud_share_pct",
            "float",
            gettext_noop("Share of the work whose data may run in the cloud (%)"),
            gettext_noop(
                "Optional. Only this share of the work may burst to the cloud. Left empty: 100 % "
                "with no residency rule, 50 % when part of the data must stay, 0 % when all of it "
                "must."
            ),
            min=0,
            max=100,
            unit="%",
            step="data",
            optional=True,
        ),
        Question(
            "sensitivity",
            "choice",
            gettext_noop("How sensitive is the data?"),
            gettext_noop(
                "“Self-build physically isolates data: sensitive data never leaves your machine room.”"
            ),
            choices=(
                ("low", gettext_noop("Low")),
                ("medium", gettext_noop("Medium")),
                ("high", gettext_noop("High")),
            ),
            step="data",
        ),
        Question(
            "jurisdiction_concern",
            "bool",
            gettext_noop("Are you concerned about the cloud provider’s legal jurisdiction?"),
            gettext_noop(
                "“For business extremely sensitive to data sovereignty, assess the provider’s "
                "service boundary and legal-jurisdiction risk.”"
            ),
            step="data",
        ),
        Question(
            "cloud_provider",
            "choice",
            gettext_noop("Whom would you rent cloud GPUs from?"),
            gettext_noop(
                "Optional. The cloud is priced at the cheapest listed provider you allow, at "
                "its published list prices, with the runner-up named; at the market's typical "
                "price only where no listed provider rents the GPU model."
            ),
            choices=(
                ("cheapest", gettext_noop("Any: the cheapest listed provider")),
                ("hyperscaler", gettext_noop("A hyperscaler (AWS, Azure, Google Cloud)")),
                ("neocloud", gettext_noop("A GPU cloud (CoreWeave, Lambda, RunPod and the like)")),
            ),
            step="data",
            optional=True,
        ),
        Question(
            "dataset_tb",
            "float",
            gettext_noop("Size of the training data (TB)"),
            gettext_noop(
                "“Training data sets often reach tens of TB or even PB; transfer time and cost "
                "cannot be ignored.”"
            ),
            min=0,
            max=1_000_000,
            unit="TB",
            step="data",
        ),
        # E. Budget
        Question(
            "capex_available",
            "bool",
            gettext_noop("Is capital budget available up front?"),
            gettext_noop(
                "“Self-build has a high up-front capital expense; cloud is an operating expense "
                "with a small initial outlay.”"
            ),
            step="budget",
        ),
        Question(
            "cloud_price_fall_pct",
            "float",
            gettext_noop("Cloud GPU prices fall per year (%)"),
            gettext_noop(
                "Optional. Rental prices fall over a hardware generation (an H100 went from "
                "above $8 to about $2 an hour in two years); the plan in stages waits longer "
                "to buy when they fall fast. Left empty: today's prices hold."
            ),
            min=0,
            max=90,
            unit="%",
            step="budget",
            optional=True,
        ),
        Question(
            "hardware_price_fall_pct",
            "float",
            gettext_noop("Server prices fall per year (%)"),
            gettext_noop(
                "Optional. What the same servers cost less each year as the next generation "
                "ships; the plan in stages and the buy-now-or-wait table weigh buying later "
                "at that price. Left empty: today's prices hold."
            ),
            min=0,
            max=90,
            unit="%",
            step="budget",
            optional=True,
        ),
    ]
}


@dataclass(frozen=True)
class Step:
    slug: str
    title: str
    intro: str
    keys: tuple[str, ...]


def _step(slug: str, title: str, intro: str) -> Step:
    keys = tuple(key for key, question in QUESTIONS.items() if question.step == slug)
    return Step(slug, title, intro, keys)


STEPS: tuple[Step, ...] = (
    _step(
        "workload",
        gettext_noop("Workload and stage"),
        gettext_noop("What you run and how settled it is."),
    ),
    _step(
        "utilization",
        gettext_noop("Utilization and scale"),
        gettext_noop("How busy the GPUs will be, how many, and for how long."),
    ),
    _step(
        "ops",
        gettext_noop("Operations capability"),
        gettext_noop("The three questions the source asks of your team."),
    ),
    _step(
        "data",
        gettext_noop("Data and compliance"),
        gettext_noop("Where your data may live and how much of it there is."),
    ),
    _step(
        "budget",
        gettext_noop("Budget"),
        gettext_noop("How you can pay, and the cost figures behind the comparison."),
    ),
)
STEP_BY_SLUG: dict[str, Step] = {step.slug: step for step in STEPS}
ANSWER_KEYS: tuple[str, ...] = tuple(key for step in STEPS for key in step.keys)
# The last step also carries the cost figures set for the assessment.
FIGURES_STEP = STEPS[-1].slug
# Optional: cost figures set for the assessment, the ranges its odds are drawn from, and the
# base and peak per year its staged plan is made for.
OPTIONAL_KEYS = frozenset(
    {
        "costs",
        "uncertainty",
        "growth_years",
        "owned",
        "owned_as_of",
        "providers",
        "workloads",
        "served",
    }
)

# Answers the app derives rather than asks (`evaluation.answers_evaluate`);
# rules read them like the questions.
DERIVED_QUESTIONS: dict[str, Question] = {
    "cost_verdict": Question(
        "cost_verdict",
        "choice",
        gettext_noop("Cost verdict (derived from the cost model)"),
        choices=tuple((verdict, verdict) for verdict in COST_VERDICTS),
        optional_values=tuple(v for v in COST_VERDICTS if v.startswith(f"{API}_")),
    ),
    "cost_odds": Question(
        "cost_odds",
        "choice",
        gettext_noop("Cost odds (derived from 10,000 draws of what is uncertain)"),
        gettext_noop(
            "The outcome cheapest in the most draws: _sure when it is in 80 % of them or more, "
            "_likely from 50 %, _lean below. A cost criterion may read it instead of the "
            "single comparison."
        ),
        choices=tuple((verdict, verdict) for verdict in COST_ODDS),
        optional_values=tuple(v for v in COST_ODDS if v.startswith(f"{API}_")),
    ),
    "cost_decisive": Question(
        "cost_decisive",
        "choice",
        gettext_noop("Decisive cost gap (derived from the cost model and the odds)"),
        gettext_noop(
            "The allowed option cheaper than every other by a quarter or more, in at least "
            "nine of ten of the odds' draws, when no answer that may override cost favours "
            "another; absent otherwise, so a criterion reading it counts only when the gap is "
            "decisive."
        ),
        choices=tuple((outcome, outcome) for outcome in OUTCOMES),
        optional_values=(API,),
    ),
}
RULE_QUESTIONS: dict[str, Question] = {**QUESTIONS, **DERIVED_QUESTIONS}


# Demand given as levels: both or neither. With both, the average utilization and
# the demand shape follow from them and may be left out.
DEMAND_LEVELS: tuple[str, ...] = ("base_gpus", "peak_share_pct")
# The demand keys each of several workloads gives (engine/workloads.py).
WORKLOAD_DEMAND_KEYS = DEMAND_ANSWERS
LEVELS_REPLACE: tuple[str, ...] = ("utilization_pct", "demand_shape")
# A given average may differ from the one the levels give by this much (points).
UTILIZATION_TOLERANCE_PCT = 1.0


def is_blank(value: Any) -> bool:
    """An answer that says nothing: a question a form left blank ("") or JSON's null."""
    return value is None or value == ""


def without_blanks(answers: Mapping[str, Any]) -> dict[str, Any]:
    """The answers with every question left blank taken out: "not answered" has one
    meaning, an absent key, whichever path wrote it."""
    return {
        key: value for key, value in answers.items() if not (key in QUESTIONS and is_blank(value))
    }


def has_levels(answers: Mapping[str, Any]) -> bool:
    return all(answers.get(key) is not None for key in DEMAND_LEVELS)


def is_required(key: str, answers: Mapping[str, Any]) -> bool:
    """Whether an answer must be given, with these other answers."""
    if QUESTIONS[key].optional:
        return False
    if key in WORKLOAD_DEMAND_KEYS and "workloads" in answers:
        return False  # the workloads' pooled demand stands in for it
    return not (key in LEVELS_REPLACE and has_levels(answers))


def demand_of(answers: Mapping[str, Any]) -> Demand:
    """The demand profile the answers describe: the levels if given, else the average and shape."""
    if has_levels(answers):
        return Demand(
            peak=answers["gpus"],
            base=float(answers["base_gpus"]),
            peak_share=answers["peak_share_pct"] / 100,
        )
    return Demand.from_average(
        peak=answers["gpus"],
        utilization=answers["utilization_pct"] / 100,
        shape=answers["demand_shape"],
    )


def derived_answers(answers: Mapping[str, Any]) -> dict[str, Any]:
    """The average utilization and the demand shape when the demand levels stand in for them."""
    if not has_levels(answers):
        return {}
    demand = demand_of(answers)
    derived = {
        "utilization_pct": round(demand.utilization * 100, 2),
        "demand_shape": demand.shape(),
    }
    return {key: value for key, value in derived.items() if answers.get(key) is None}


def cloud_share_pct(answers: Mapping[str, Any]) -> float:
    """The share of work whose data may run in the cloud: given, or by the residency answer."""
    given = answers.get("cloud_share_pct")
    if given is not None:
        return float(given)
    return CLOUD_SHARE_BY_RESIDENCY.get(answers.get("residency", "none"), 100.0)


def answers_problems(
    answers: Mapping[str, Any], *, name: Callable[[str], str] = str
) -> dict[str, str]:
    """What is wrong between answers that are each valid on their own, by key.

    `name` says how a message names another answer (its key for files, its label on a page).
    """
    problems: dict[str, str] = {}
    given = [key for key in DEMAND_LEVELS if answers.get(key) is not None]
    if len(given) == 1:
        missing = next(key for key in DEMAND_LEVELS if key not in given)
        problems[missing] = gettext("give it together with “%(other)s”, or neither") % {
            "other": name(given[0])
        }
    base, gpus = answers.get("base_gpus"), answers.get("gpus")
    if base is not None and gpus is not None and base > gpus:
        problems["base_gpus"] = gettext("must not exceed “%(gpus)s” (%(value)s), got %(base)s") % {
            "gpus": name("gpus"),
            "value": gpus,
            "base": base,
        }
    elif gpus is not None and has_levels(answers) and answers.get("utilization_pct") is not None:
        derived = demand_of(answers).utilization * 100
        if abs(answers["utilization_pct"] - derived) > UTILIZATION_TOLERANCE_PCT:
            problems["utilization_pct"] = gettext(
                "%(given)s %% disagrees with “%(base)s” and “%(share)s”, which give "
                "%(derived)s %%: leave it out or make them agree"
            ) % {
                "given": number_text(answers["utilization_pct"]),
                "base": name("base_gpus"),
                "share": name("peak_share_pct"),
                "derived": f"{derived:.1f}",
            }
    model, market = answers.get("gpu_model"), markets.market_of(answers)
    if model is not None and model not in market.gpu_models:
        problems["gpu_model"] = gettext(
            "%(model)s is not priced for this “%(market)s”; choose one of %(allowed)s"
        ) % {
            "model": dict(GPU_MODELS).get(model, model),
            "market": name("market"),
            "allowed": ", ".join(market.gpu_models),
        }
    if answers.get("residency") == "all" and (answers.get("cloud_share_pct") or 0) > 0:
        problems["cloud_share_pct"] = gettext(
            "must be 0 when “%(residency)s” is all (no data may leave), got %(value)s"
        ) % {"residency": name("residency"), "value": number_text(answers["cloud_share_pct"])}
    return problems


# An answers document is at most three levels deep ({"answers": {"costs": {...}}}) and
# about 1 KB long: far more is not one.
MAX_JSON_DEPTH = 8
MAX_DOCUMENT_BYTES = 64 * 1024


def too_big_text() -> str:
    return gettext("larger than %(size)s KB; an answers document is about 1 KB") % {
        "size": MAX_DOCUMENT_BYTES // 1024
    }


def json_parse(text: str) -> tuple[Any, str | None]:
    """An answers document's JSON: (value, None), or (None, why it cannot be read).

    A 5,000-digit integer (Python's int-string limit) and nesting deep enough to
    exhaust the parser are told like any other malformed JSON.
    """
    try:
        value = json.loads(text)
    except RecursionError:
        return None, gettext("not valid JSON (nested more than %(depth)s levels deep)") % {
            "depth": MAX_JSON_DEPTH
        }
    except ValueError as error:  # JSONDecodeError, or an integer with too many digits
        return None, gettext("not valid JSON (%(error)s)") % {"error": str(error)[:200]}
    problem = _json_problem(value)
    return (None, problem) if problem else (value, None)


def _json_problem(value: Any) -> str | None:
    """Nesting deeper than an answers document has, or text no page can show (a lone
    surrogate such as "\\ud800", which no UTF-8 page or database column can hold);
    walked without recursion."""
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                return gettext("not valid JSON (nested more than %(depth)s levels deep)") % {
                    "depth": MAX_JSON_DEPTH
                }
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            todo.extend((child, depth + 1) for child in children)
        elif isinstance(item, str) and not _is_unicode(item):
            return gettext("not valid JSON (text with an unpaired surrogate, e.g. \\ud800)")
    return None


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def step_answers(step: Step, answers: Mapping[str, Any]) -> dict[str, Any]:
    """The saved answers a step shows: its questions, and the cost figures on the figures step."""
    values = {key: answers[key] for key in step.keys if key in answers}
    if step.slug == FIGURES_STEP:
        values["costs"] = answers.get("costs", {})
        values["uncertainty"] = answers.get("uncertainty", {})
        values["owned"] = answers.get("owned")
        values["owned_as_of"] = answers.get("owned_as_of")
    return values


def first_incomplete_step(answers: Mapping[str, Any]) -> Step | None:
    for step in STEPS:
        if any(key not in answers and is_required(key, answers) for key in step.keys):
            return step
    return None
