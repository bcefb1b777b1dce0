"""What the result page and the printed report show, built from a scored assessment.

Presentation only: the numbers come from the saved snapshot and the cost model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from decider import answers as questionnaire
from decider.charts import charts_for
from decider.checklist import checklist_for
from decider.models import Assessment
from decider.scoring import OUTCOMES
from decider.services import assessment_costs

OUTCOME_NAMES = {
    "onprem": gettext_lazy("On-premises GPU cluster"),
    "cloud": gettext_lazy("Cloud GPU platform"),
    "hybrid": gettext_lazy("Hybrid: own a base, burst to cloud"),
}
OUTCOME_SUMMARIES = {
    "onprem": gettext_lazy(
        "Buy servers, network and storage and run the cluster and its scheduler yourselves."
    ),
    "cloud": gettext_lazy(
        "Rent GPU instances, container clusters or serverless compute on demand from a provider."
    ),
    "hybrid": gettext_lazy(
        "Own a base of GPUs for steady and sensitive work and rent cloud capacity for the peaks."
    ),
}


@dataclass(frozen=True)
class ProgressStep:
    slug: str
    title: str
    number: int
    done: bool
    current: bool


def progress(answers: Mapping[str, Any], current: questionnaire.Step | None) -> list[ProgressStep]:
    return [
        ProgressStep(
            slug=step.slug,
            title=str(step.title),
            number=number,
            done=all(key in answers for key in step.keys),
            current=step is current,
        )
        for number, step in enumerate(questionnaire.STEPS, start=1)
    ]


def confidence_words(margin: float | None) -> str:
    if margin is None:
        return _("the only option left by the constraints")
    if margin < 5:
        return _("a close call")
    if margin < 15:
        return _("a clear lead")
    return _("a strong lead")


def answer_display(key: str, value: Any) -> str:
    question = questionnaire.QUESTIONS[key]
    if question.kind == "bool":
        return str(_("Yes") if value else _("No"))
    if question.kind == "choice":
        return str(dict(question.choices).get(value, value))
    unit = f" {question.unit}" if question.unit else ""
    return f"{value:g}{unit}"


def answers_table(answers: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "step": str(step.title),
            "slug": step.slug,
            "rows": [
                (str(questionnaire.QUESTIONS[key].label), answer_display(key, answers[key]))
                for key in step.keys
                if key in answers
            ],
        }
        for step in questionnaire.STEPS
    ]


def result_context(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    result = assessment.scoring_result()
    language = get_language() or "en"
    costs = assessment_costs(assessment, currency=currency)
    outcomes = []
    for outcome in sorted(OUTCOMES, key=lambda o: -result.scores[o]):
        drivers = result.drivers(outcome)
        outcomes.append(
            {
                "key": outcome,
                "name": OUTCOME_NAMES[outcome],
                "summary": OUTCOME_SUMMARIES[outcome],
                "score": result.scores[outcome],
                "recommended": outcome == result.recommendation,
                "excluded": result.excluded[outcome].get(language)
                if outcome in result.excluded
                else None,
                "warnings": [w.get(language) for w in result.warnings.get(outcome, [])],
                "for": [_driver(c, language) for c in drivers["for"]],
                "against": [_driver(c, language) for c in drivers["against"]],
            }
        )
    recommendation = result.recommendation
    runner_up = next(
        (o["key"] for o in outcomes if o["key"] != recommendation and not o["excluded"]), None
    )
    migration = {**costs["migration"], "currency": currency}
    overrides = assessment.answers.get("costs", {})
    return {
        "assessment": assessment,
        "result": result,
        "recommendation": recommendation,
        "recommendation_name": OUTCOME_NAMES.get(recommendation, ""),
        "recommendation_summary": OUTCOME_SUMMARIES.get(recommendation, ""),
        "runner_up_name": OUTCOME_NAMES.get(runner_up, "") if runner_up else "",
        "confidence": confidence_words(result.margin),
        "outcomes": outcomes,
        "costs": costs,
        "currency": currency,
        "charts": charts_for(costs),
        "checklist": checklist_for(recommendation, assessment.answers, migration),
        "answers_table": answers_table(assessment.answers),
        "assumption_rows": [
            {"name": name, "overridden": name in overrides, **data}
            for name, data in sorted(costs["assumptions"].items())
        ],
        "progress": progress(assessment.answers, None),
        "first_step": questionnaire.STEPS[0].slug,
    }


def _driver(contribution, language: str) -> dict[str, Any]:
    return {
        "label": contribution.label.get(language),
        "answer": contribution.answer.get(language),
        "reason": contribution.reason.get(language),
        "points": contribution.points,
    }
