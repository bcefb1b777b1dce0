"""The decision in a few lines: the plan in one sentence, how firm it is, the next steps
and the checklist, as the result page's first lines and `summary` in the JSON give them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from decider import per_token, summary
from decider.charts import plan_sentence
from decider.checklist import checklist_for
from decider.engine import scoring, verdict
from decider.engine.outcomes import API, outcome_name
from decider.engine.sensitivity import weight_sensitivity


def summary_json(
    *,
    result: scoring.Result,
    answers: Mapping[str, Any],
    derived: Mapping[str, Any],
    costs: Mapping[str, Any],
    plan: Mapping[str, Any],
    odds: Mapping[str, Any] | None,
    rulebook: Any,
    language: str,
    start: Any,
) -> dict[str, Any]:
    """What `decide` and the API add to `summary` (issue 34), in `language`: the decision in
    one sentence (`headline`), how firm it is (`firmness`: `level` and `reason`), the next
    steps with their dates (`next_steps`: `due`, `text`) and the checklist (`title`, `text`)."""
    with translation.override(language):
        closest = [
            min(moves)
            for item in weight_sensitivity(answers={**answers, **derived}, rulebook=rulebook)
            if (moves := [abs(1 - f) for f in (item.down_factor, item.up_factor) if f is not None])
        ]
        firmness = firmness_shown(
            result,
            {"flips": [{"closest": c} for c in closest]},
            odds_of=costs.get("cheapest"),
            odds=odds,
        )
        recommendation = result.recommendation
        steps = next_steps(
            result,
            costs=costs,
            start=start,
            first_owned=first_owned(plan) if verdict.result_basis(result, plan, costs) else None,
            residency=answers.get("residency", "none"),
        )
        migration = {**costs["migration"], "currency": costs["currency"]}
        sentence = plan_line(result, costs, plan, costs["currency"])["sentence"]
        return {
            "headline": f"{outcome_name(recommendation)}: {sentence}"
            if recommendation
            else sentence,
            "firmness": {"level": firmness["key"], "reason": firmness["reason"]},
            "next_steps": [{"due": step.by.isoformat(), "text": step.text} for step in steps],
            "checklist": [
                {"title": item.title, "text": item.detail}
                for item in checklist_for(
                    recommendation,
                    answers,
                    migration,
                    bursts_per_token=bursts_per_token(result, costs),
                )
            ],
        }


def firmness_shown(
    result: scoring.Result,
    sensitivity: Mapping[str, Any],
    *,
    odds_of: str | None,
    odds: Mapping[str, Any] | None,
) -> dict[str, str]:
    """How firm the recommendation is, in one word and a line (summary.firmness): the odds
    count only when the recommendation is the cheapest (`odds_of`)."""
    flips = [row["closest"] for row in sensitivity.get("flips") or [] if row["closest"]]
    share = None
    if odds and result.recommendation and result.recommendation == odds_of:
        share = (odds.get("cheapest_probability") or {}).get(result.recommendation)
    if sum(outcome not in result.excluded for outcome in result.scores) == 1:
        key, reason = "firm", _("It is the only option your constraints leave.")
    else:
        key, reason = summary.firmness(
            margin=result.margin, closest_flip=min(flips, default=None), odds=share
        )
    return {"key": key, "word": _(summary.FIRMNESS_WORDS[key]), "reason": reason}


def bursts_per_token(result: scoring.Result, costs: Mapping[str, Any]) -> bool:
    """Whether the recommendation is the hybrid that sends its bursts per token: the answers
    serve a sized model, and that hybrid is the one weighed (verdict.py)."""
    return (
        result.recommendation == "hybrid"
        and API in result.scores
        and verdict.hybrid_per_token(costs) is not None
    )


def plan_line(
    result: scoring.Result, costs: Mapping[str, Any], plan: Mapping[str, Any], currency: str
) -> dict[str, Any]:
    """The plan in one sentence and its present value, as the first screen gives them: the
    per-token plan when that is the recommendation, the base owned with the bursts per token
    when that is the hybrid recommended, else the plan in stages."""
    if result.recommendation == API and costs.get("api"):
        return {
            "sentence": per_token.plan_sentence(costs, currency),
            "present_value": costs["present_value"][API],
        }
    if bursts_per_token(result, costs):
        return {
            "sentence": per_token.hybrid_plan_sentence(costs),
            "present_value": costs["api_hybrid"]["present_value"],
        }
    return {
        "sentence": plan_sentence(dict(plan)),
        "present_value": plan.get("chosen_present_value"),
    }


def next_steps(
    result: scoring.Result,
    *,
    costs: Mapping[str, Any],
    start: Any,
    first_owned: int | None,
    residency: str,
) -> list[summary.NextStep]:
    """The next steps with their dates: the per-token ones, those of the base owned with the
    bursts per token, or those of the GPUs."""
    recommendation = result.recommendation
    if recommendation == API and costs.get("api"):
        return per_token.next_steps(costs, start)
    if bursts_per_token(result, costs):
        return per_token.hybrid_steps(costs, start)
    return summary.next_steps(
        recommendation=recommendation,
        costs=costs,
        start=start,
        first_owned=first_owned,
        residency=residency,
    )


def first_owned(plan: Mapping[str, Any]) -> int:
    """The GPUs the plan recommended owns at its first stage (0: it rents)."""
    owning = [stage for stage in plan.get("chosen", []) if stage["action"] in ("own", "keep")]
    return int(owning[0]["gpus"]) if owning else 0
