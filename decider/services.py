"""The ORM side of evaluation: load the current rules and figures, save snapshots.

`evaluation.answers_evaluate` does the work on plain data; these functions
only fetch its inputs and store what it returns with the assessment.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from decider import costs, scoring
from decider.evaluation import (
    Evaluation,
    answers_evaluate,
    assumptions_as_dict,
    assumptions_from_dict,
    cost_answers,
)
from decider.models import Assessment, Assumption, RuleSet


class NoRuleSet(RuntimeError):
    """No published rule set: run `manage.py load_defaults`."""


def current_ruleset() -> RuleSet:
    ruleset = RuleSet.current()
    if ruleset is None:
        raise NoRuleSet("No published rule set; run `python manage.py load_defaults`.")
    return ruleset


def evaluate_now(answers: dict[str, Any], *, currency: str = "USD") -> tuple[RuleSet, Evaluation]:
    """Score answers with the current rule set and the current figures."""
    ruleset = current_ruleset()
    evaluation = answers_evaluate(
        answers=answers,
        rulebook=ruleset.rulebook(),
        assumptions=Assumption.for_gpu_model(answers["gpu_model"]),
        currency=currency,
    )
    return ruleset, evaluation


def assessment_score(assessment: Assessment) -> None:
    """Score with the current rules and figures and keep the result as a snapshot."""
    ruleset, evaluation = evaluate_now(assessment.answers)
    assessment.ruleset = ruleset
    assessment.result = {
        "scoring": scoring.result_as_dict(evaluation.result),
        "assumptions": assumptions_as_dict(evaluation.assumptions),
        # Answers the app derived, so a draft rule set can re-score without the cost model.
        "derived": evaluation.derived,
    }
    assessment.scored_at = timezone.now()
    assessment.save(update_fields=["ruleset", "result", "scored_at", "updated_at"])


def assessment_costs(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    """The cost figures of a scored assessment, from the assumptions it was scored with."""
    assumptions = assumptions_from_dict(assessment.result["assumptions"])
    return costs.costs_compute(
        answers=cost_answers(assessment.answers), assumptions=assumptions, currency=currency
    )
