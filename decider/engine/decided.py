"""One result's decision, typed: what the readers show, read once from its sections.

A scored result has three sections computed once (the cost section, the odds and the plan,
each an option's one priced plan: docs/METHOD.md). What the readers say about them (the
outcomes in play cheapest first at their present values, the basis the verdict reads,
what the headline costs beyond the cheapest, what a hard constraint costs, whether the
hybrid sends its bursts per token, how far each weight must move to change the answer) is
worked out here, once, into a frozen `Decision`. The readers (decider/summary.py,
report.py, decision.py, per_token.py, charts.py) take it and name things with the engine's
vocabulary only: they import no pricing or analysis module (tests/test_layout.py).

Plain Python: no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from decider.engine import scoring, verdict
from decider.engine.outcomes import API
from decider.engine.sensitivity import Sensitivity, weight_sensitivity


@dataclass(frozen=True)
class Decision:
    """A scored result and its sections, with every analysis the readers show."""

    result: scoring.Result
    answers: Mapping[str, Any]  # as scored: the derived answers (the cost verdict) included
    costs: dict[str, Any]
    odds: dict[str, Any]
    plan: dict[str, Any]
    # The outcomes in play cheapest first, and each one's present value (verdict.shown_amounts).
    order: tuple[str, ...]
    present: Mapping[str, float]
    # What the verdict reads when demand grows: the plans over that future (None: today's).
    basis: Mapping[str, Any] | None
    # The hybrid recommended owns the steady base and sends the bursts per token.
    bursts_per_token: bool
    extra_cost: Mapping[str, Any] | None  # what the headline costs beyond the cheapest
    constraint_cost: Mapping[str, Any] | None  # what a hard constraint costs
    # How far each criterion's weight must move (None: no rules to move, unscored).
    weights: tuple[Sensitivity, ...] | None

    @property
    def recommendation(self) -> str | None:
        return self.result.recommendation

    @property
    def currency(self) -> str:
        return str(self.costs["currency"])

    def constraint_cost_in(self, language: str) -> dict[str, Any] | None:
        """What a hard constraint costs, its reason in `language`."""
        return verdict.constraint_cost_localized(self.constraint_cost, language)


def decision_of(
    *,
    result: scoring.Result,
    answers: Mapping[str, Any],
    derived: Mapping[str, Any],
    costs: dict[str, Any],
    odds: dict[str, Any],
    plan: dict[str, Any],
    rulebook: scoring.RuleBook | None,
) -> Decision:
    """The decision of a scored result from its sections: `answers` as given, `derived` the
    answers its scoring derived, `rulebook` the rules it was scored by (None: no weights)."""
    scored = {**answers, **derived}
    basis = verdict.result_basis(result, plan, costs)
    order, present = verdict.shown_amounts(result, costs)
    overriding = derived.get(verdict.OVERRIDDEN_BY) or ()
    return Decision(
        result=result,
        answers=scored,
        costs=costs,
        odds=odds,
        plan=plan,
        order=tuple(order),
        present=present,
        basis=basis,
        bursts_per_token=(
            result.recommendation == "hybrid"
            and API in result.scores
            and verdict.hybrid_per_token(costs) is not None
        ),
        extra_cost=verdict.extra_cost(result, costs, overriding=overriding, basis=basis),
        constraint_cost=verdict.constraint_cost(result, costs, derived=derived),
        weights=None
        if rulebook is None
        else tuple(weight_sensitivity(answers=scored, rulebook=rulebook)),
    )
