"""What the result page and the printed report show, built from a scored assessment.

Presentation only: the numbers come from the saved snapshot and the cost model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from decider import answers as questionnaire
from decider import scoring
from decider.charts import chart_compare, charts_for
from decider.checklist import checklist_for
from decider.models import Assessment
from decider.scoring import OUTCOMES
from decider.sensitivity import weight_sensitivity
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


def outcome_rows(result: scoring.Result) -> list[dict[str, Any]]:
    """Scores of one result, for a side-by-side table."""
    language = get_language() or "en"
    return [
        {
            "key": outcome,
            "name": OUTCOME_NAMES[outcome],
            "score": result.scores[outcome],
            "recommended": outcome == result.recommendation,
            "excluded": result.excluded[outcome].get(language)
            if outcome in result.excluded
            else None,
        }
        for outcome in OUTCOMES
    ]


def figure_changes(
    old: Mapping[str, Mapping[str, Any]], new: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Cost figures whose value differs between a saved snapshot and the current figures."""
    return [
        {
            "name": name,
            "old": old[name]["value"] if name in old else None,
            "new": figure.value,
            "unit": figure.unit,
            "source": figure.source,
        }
        for name, figure in sorted(new.items())
        if name not in old or old[name]["value"] != figure.value
    ]


TOTAL_LABELS = {
    "onprem": gettext_lazy("On-premises GPU cluster"),
    "cloud_on_demand": gettext_lazy("Cloud, on demand"),
    "cloud_reserved": gettext_lazy("Cloud, reserved"),
    "hybrid": gettext_lazy("Hybrid"),
}


def compare_context(assessments: list[Assessment], *, currency: str) -> dict[str, Any]:
    """Answers (differences marked), scores, recommendations, totals and overlaid costs."""
    columns = []
    for number, assessment in enumerate(assessments, start=1):
        result = assessment.scoring_result()
        costs = assessment_costs(assessment, currency=currency)
        columns.append(
            {
                "assessment": assessment,
                "title": assessment.name or _("Assessment %(number)s") % {"number": number},
                "recommendation": OUTCOME_NAMES.get(result.recommendation, ""),
                "outcomes": outcome_rows(result),
                "costs": costs,
            }
        )
    answer_rows = []
    for key, question in questionnaire.QUESTIONS.items():
        values = [a.answers.get(key) for a in assessments]
        answer_rows.append(
            {
                "label": str(question.label),
                "values": [answer_display(key, v) if v is not None else "—" for v in values],
                "differs": len({json_key(v) for v in values}) > 1,
            }
        )
    overrides = [json_key(a.answers.get("costs", {})) for a in assessments]
    if len(set(overrides)) > 1:
        answer_rows.append(
            {
                "label": _("Cost figures changed for the assessment"),
                "values": [
                    ", ".join(f"{k} = {v:g}" for k, v in sorted(a.answers.get("costs", {}).items()))
                    or "—"
                    for a in assessments
                ],
                "differs": True,
            }
        )
    totals = [
        {
            "label": label,
            "values": [c["costs"]["totals"][key] for c in columns],
        }
        for key, label in TOTAL_LABELS.items()
    ]
    score_rows = [
        {"name": OUTCOME_NAMES[outcome], "cells": [c["outcomes"][i] for c in columns]}
        for i, outcome in enumerate(OUTCOMES)
    ]
    return {
        "columns": columns,
        "score_rows": score_rows,
        "answer_rows": answer_rows,
        "totals": totals,
        "currency": currency,
        "chart": chart_compare([(c["title"], c["costs"]) for c in columns]),
    }


def json_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def sensitivity_summary(assessment: Assessment) -> dict[str, Any]:
    """Per criterion: how far its weight must move to change the recommendation.

    Computed from the rule set the assessment is pinned to and the answers it
    was scored with (derived ones included), so it explains the result shown.
    """
    if assessment.ruleset is None or not assessment.result:
        return {}
    language = get_language() or "en"
    answers = {**assessment.answers, **assessment.derived}
    rows = []
    for item in weight_sensitivity(answers=answers, rulebook=assessment.ruleset.rulebook()):
        moves = [
            abs(1 - factor) for factor in (item.down_factor, item.up_factor) if factor is not None
        ]
        rows.append(
            {
                "label": item.label.get(language),
                "weight": item.weight,
                "down_factor": item.down_factor,
                "down_to": OUTCOME_NAMES.get(item.down_to, ""),
                "up_factor": item.up_factor,
                "up_to": OUTCOME_NAMES.get(item.up_to, ""),
                "closest": min(moves) if moves else None,
            }
        )
    rows.sort(key=lambda r: (r["closest"] is None, r["closest"] or 0, r["label"]))
    return {
        "flips": [r for r in rows if r["closest"] is not None],
        "steady": [r["label"] for r in rows if r["closest"] is None],
    }
