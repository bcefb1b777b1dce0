"""Answers -> costs -> scored result: the one path the wizard, `decide` and the API share.

Plain data in, plain data out; callers load the rule book and assumptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from decider import costs, scoring


@dataclass(frozen=True)
class Evaluation:
    result: scoring.Result
    costs: dict[str, Any]
    assumptions: dict[str, costs.Assumption]
    derived: dict[str, Any]


def cost_answers(answers: Mapping[str, Any]) -> costs.CostAnswers:
    return costs.CostAnswers(
        gpus=answers["gpus"],
        utilization=answers["utilization_pct"] / 100,
        horizon_months=answers["horizon_years"] * 12,
        dataset_tb=answers["dataset_tb"],
        has_datacenter=answers["has_datacenter"],
        demand_shape=answers["demand_shape"],
    )


def assumptions_with_overrides(
    assumptions: Mapping[str, costs.Assumption], overrides: Mapping[str, float]
) -> dict[str, costs.Assumption]:
    merged = dict(assumptions)
    for name, value in overrides.items():
        merged[name] = replace(merged[name], value=value, source="set for this assessment")
    return merged


def answers_evaluate(
    *,
    answers: Mapping[str, Any],
    rulebook: scoring.RuleBook,
    assumptions: Mapping[str, costs.Assumption],
    currency: str = "USD",
) -> Evaluation:
    used = assumptions_with_overrides(assumptions, answers.get("costs", {}))
    figures = costs.costs_compute(
        answers=cost_answers(answers), assumptions=used, currency=currency
    )
    derived = {"cost_verdict": costs.cost_verdict(figures)}
    result = scoring.answers_score(answers={**answers, **derived}, rulebook=rulebook)
    return Evaluation(result=result, costs=figures, assumptions=used, derived=derived)


def assumptions_as_dict(assumptions: Mapping[str, costs.Assumption]) -> dict[str, dict[str, Any]]:
    return {
        name: {"value": a.value, "unit": a.unit, "source": a.source, "as_of": a.as_of}
        for name, a in assumptions.items()
    }


def assumptions_from_dict(data: Mapping[str, Mapping[str, Any]]) -> dict[str, costs.Assumption]:
    return {name: costs.Assumption(name=name, **fields) for name, fields in data.items()}
