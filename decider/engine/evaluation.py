"""Answers -> costs -> scored result: the one path the wizard, `decide` and the API share.

Plain data in, plain data out; callers load the rule book and the figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from decider.engine import costs, scoring
from decider.engine.figures import Figure, figures_with_overrides


@dataclass(frozen=True)
class Evaluation:
    result: scoring.Result
    costs: dict[str, Any]
    figures: dict[str, Figure]  # the figures used: the assessment's own overrides applied
    derived: dict[str, Any]  # answers the app derived (the cost verdict), as the rules read them


def cost_answers(answers: Mapping[str, Any]) -> costs.CostAnswers:
    return costs.CostAnswers(
        gpus=answers["gpus"],
        utilization=answers["utilization_pct"] / 100,
        horizon_months=answers["horizon_years"] * 12,
        dataset_tb=answers["dataset_tb"],
        has_datacenter=answers["has_datacenter"],
        demand_shape=answers["demand_shape"],
    )


def answers_evaluate(
    *,
    answers: Mapping[str, Any],
    rulebook: scoring.RuleBook,
    figures: Mapping[str, Figure],
    currency: str = "USD",
) -> Evaluation:
    used = figures_with_overrides(figures, answers.get("costs", {}))
    computed = costs.costs_compute(answers=cost_answers(answers), figures=used, currency=currency)
    derived = {"cost_verdict": costs.cost_verdict(computed)}
    result = scoring.answers_score(answers={**answers, **derived}, rulebook=rulebook)
    return Evaluation(result=result, costs=computed, figures=used, derived=derived)
