"""The decision in a few lines: the plan in one sentence, how firm it is, the next steps
and the checklist, as the result page's first lines and `summary` in the JSON give them."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from decider import per_token, summary
from decider.charts import plan_sentence
from decider.checklist import checklist_for
from decider.engine.decided import Decision
from decider.engine.outcomes import API, cost_option_label, outcome_name
from decider.engine.text import Text
from decider.formats import money, tokens_text


def summary_json(decision: Decision, *, language: str, start: Any) -> dict[str, Any]:
    """What `decide` and the API add to `summary` (issue 34), in `language`: the decision in
    one sentence (`headline`), how firm it is (`firmness`: `level` and `reason`), the next
    steps with their dates (`next_steps`: `due`, `text`) and the checklist (`title`, `text`)."""
    result, costs, answers = decision.result, decision.costs, decision.answers
    with translation.override(language):
        firmness = firmness_shown(decision)
        recommendation = result.recommendation
        steps = next_steps(
            decision,
            start=start,
            first_owned=first_owned(decision.plan) if decision.basis else None,
            residency=answers.get("residency", "none"),
        )
        migration = {**costs["migration"], "currency": costs["currency"]}
        sentence = plan_line(decision)["sentence"]
        return {
            "headline": f"{outcome_name(recommendation)}: {sentence}"
            if recommendation
            else sentence,
            "firmness": {"level": firmness["key"], "reason": firmness["reason"]},
            "verdict": verdict_line(decision),
            "break_even": break_even_lines(decision),
            "next_steps": [{"due": step.by.isoformat(), "text": step.text} for step in steps],
            "checklist": [
                {"title": item.title, "text": item.detail}
                for item in checklist_for(
                    recommendation,
                    answers,
                    migration,
                    bursts_per_token=decision.bursts_per_token,
                )
            ],
        }


def firmness_shown(decision: Decision) -> dict[str, str]:
    """How firm the recommendation is, in one word and a line: one function of the decision
    (summary.firmness) wherever it is shown, from the scores, the closest weight that changes
    the recommendation, and the odds."""
    result = decision.result
    flips = [
        min(moves)
        for item in decision.weights or ()
        if (moves := [abs(1 - f) for f in (item.down_factor, item.up_factor) if f is not None])
    ]
    chosen = result.recommendation
    if sum(outcome not in result.excluded for outcome in result.scores) == 1:
        key, reason = "firm", _("It is the only option your constraints leave.")
        return {"key": key, "word": _(summary.FIRMNESS_WORDS[key]), "reason": reason}
    shares = (decision.odds or {}).get("cheapest_probability") or {}
    others = [o for o in result.scores if o != chosen and o not in result.excluded]
    # The highest score; on a tie the first by name (a stored result keeps no key order).
    runner = min(others, key=lambda o: (-result.scores[o], o), default=None)
    language = translation.get_language() or "en"
    overriding = [
        Text.from_dict(dict(item["label"])).get(language)
        for item in (decision.extra_cost or {}).get("answers", [])
        if item.get("overrides_cost")
    ]
    key, reason = summary.firmness(
        margin=result.margin,
        closest_flip=min((f for f in flips if f), default=None),
        odds=shares.get(chosen) if chosen else None,
        runner=_option_name(decision.costs, runner) if runner else None,
        overriding=overriding,
    )
    return {"key": key, "word": _(summary.FIRMNESS_WORDS[key]), "reason": reason}


def plan_line(decision: Decision) -> dict[str, Any]:
    """The plan in one sentence and its present value, as the first screen gives them: the
    per-token plan when that is the recommendation, the base owned with the bursts per token
    when that is the hybrid recommended, else the plan in stages."""
    costs, plan = decision.costs, decision.plan
    if decision.recommendation == API and costs.get("api"):
        return {
            "sentence": per_token.plan_sentence(costs, decision.currency),
            "present_value": costs["present_value"][API],
        }
    if decision.bursts_per_token:
        return {
            "sentence": per_token.hybrid_plan_sentence(costs),
            "present_value": costs["api_hybrid"]["present_value"],
        }
    return {
        "sentence": plan_sentence(dict(plan)),
        "present_value": plan.get("chosen_present_value"),
    }


def next_steps(
    decision: Decision, *, start: Any, first_owned: int | None, residency: str
) -> list[summary.NextStep]:
    """The next steps with their dates: the per-token ones, those of the base owned with the
    bursts per token, or those of the GPUs."""
    recommendation, costs = decision.recommendation, decision.costs
    if recommendation == API and costs.get("api"):
        return per_token.next_steps(costs, start)
    if decision.bursts_per_token:
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


def decision_json(decision: Decision) -> dict[str, Any]:
    """`decision` (issue 50): each outcome in play once, cheapest first, with the figures
    every section reads for it (`options`: present value, total, capital, cost per useful
    GPU-hour, how often it is cheapest, its P10, P50 and P90), and the plan recommended
    (`recommended_plan`: its stages, servers, power and first purchase)."""
    result, costs, odds = decision.result, decision.costs, decision.odds
    order, present = decision.order, decision.present
    rows = {row.key: row for row in summary.option_figures(costs, result.recommendation)}
    shares = (odds or {}).get("cheapest_probability") or {}
    bands = (odds or {}).get("present_value") or {}
    options = []
    for outcome in order:
        option = costs["cheapest_cloud_mode"] if outcome == "cloud" else outcome
        per_token_form = outcome == "hybrid" and present[outcome] != costs["present_value"].get(
            "hybrid"
        )
        row = None if per_token_form else rows.get(option)
        drawn = bands.get(outcome) or {}
        options.append(
            {
                "outcome": outcome,
                # The cost option that prices it; the hybrid that sends its bursts per token
                # is priced by its owned base and the tokens (costs.api_hybrid).
                "option": "api_hybrid" if per_token_form else option,
                "recommended": outcome == result.recommendation,
                "present_value": round(float(present[outcome]), 2),
                "total": _total_of(costs, option, row, per_token_form),
                "capital": None if row is None else round(row.upfront, 2),
                "per_useful_gpu_hour": None if row is None else row.per_useful_hour,
                "cheapest_probability": shares.get(outcome),
                "p10": drawn.get("p10"),
                "p50": drawn.get("p50"),
                "p90": drawn.get("p90"),
            }
        )
    return {"options": options, "recommended_plan": _recommended_plan(decision)}


def _total_of(
    costs: Mapping[str, Any], option: str, row: summary.OptionFigures | None, per_token_form: bool
) -> float | None:
    if per_token_form:
        return None
    if row is not None:
        return round(row.total, 2)
    total = (costs.get("totals") or {}).get(option)
    return None if total is None else round(float(total), 2)


def _recommended_plan(decision: Decision) -> dict[str, Any]:
    """The plan the headline, the first step and the chart describe: its stages (the GPUs
    owned from each month), the servers and the power its first owned stage needs, and the
    month its first purchase is ordered (the hybrid that sends its bursts per token: its plan
    owns the base, engine/stages.py's _bursts_sent)."""
    result, costs, plan = decision.result, decision.costs, decision.plan
    figures = costs["assumptions"]
    per_node = int(figures["gpus_per_node"]["value"])
    chosen: list[dict[str, Any]] = list(plan.get("chosen", []))
    name = plan.get("chosen_plan")
    if result.recommendation == API and costs.get("api"):
        chosen, name = [], API  # nothing owned: the tokens are sent per token
    owning = [stage for stage in chosen if stage["action"] in ("own", "keep")]
    gpus = int(owning[0]["gpus"]) if owning else 0
    servers = -(-gpus // per_node)
    ordered = [stage["order_month"] for stage in owning if stage.get("order_month") is not None]
    return {
        "outcome": result.recommendation,
        "plan": name,
        "present_value": plan_line(decision)["present_value"] if result.recommendation else None,
        "stages": [
            {
                key: stage.get(key)
                for key in ("month", "order_month", "action", "gpus", "owned_gpus")
            }
            for stage in chosen
        ],
        "first_owned_gpus": gpus,
        "servers": servers,
        "power_kw": round(servers * figures["node_kw"]["value"] * figures["pue"]["value"], 1),
        "first_purchase_month": min(ordered) if ordered else None,
    }


def _option_name(costs: Mapping[str, Any], outcome: str) -> str:
    """An outcome by its short name, as the first screen's lines name it: cloud by the mode
    that prices it."""
    if outcome == "cloud":
        return cost_option_label(costs.get("cheapest_cloud_mode") or "cloud_on_demand")
    return cost_option_label(outcome)


def _span(months: int) -> str:
    if months % 12 == 0:
        years = months // 12
        return ngettext("%(n)s year", "%(n)s years", years) % {"n": years}
    return ngettext("%(n)s month", "%(n)s months", months) % {"n": months}


def verdict_line(decision: Decision) -> dict[str, Any] | None:
    """The verdict in one sentence (issue 52): the option recommended, its present value over
    the horizon, and the difference from the cheapest other option the constraints allow,
    all read from the ranked present values every section reads (`decision.present`)."""
    result, costs, present = decision.result, decision.costs, decision.present
    outcome = result.recommendation
    if not outcome or outcome not in present:
        return None
    amount = float(present[outcome])
    values = {
        "outcome": _option_name(costs, outcome),
        "amount": money(amount, decision.currency),
        "span": _span(int(costs["horizon_months"])),
    }
    others = [o for o in decision.order if o != outcome and o not in result.excluded]
    if not others:
        return {
            "sentence": _(
                "%(outcome)s: %(amount)s over %(span)s in present value, the only option your "
                "constraints leave."
            )
            % values,
            "outcome": outcome,
            "runner_up": None,
            "difference_pct": None,
        }
    runner = min(others, key=lambda o: float(present[o]))
    other = float(present[runner])
    gap = other - amount
    pct = abs(gap) / other * 100 if other else 0.0
    values |= {
        "runner": _option_name(costs, runner),
        "gap": money(abs(gap), decision.currency),
        "pct": summary.percent_text(pct / 100),
    }
    if gap >= 0:
        sentence = (
            _(
                "%(outcome)s: %(amount)s over %(span)s in present value, %(gap)s (%(pct)s) less "
                "than %(runner)s."
            )
            % values
        )
    else:
        sentence = (
            _(
                "%(outcome)s: %(amount)s over %(span)s in present value, %(gap)s (%(pct)s) more "
                "than %(runner)s; your answers, not the money, carry it."
            )
            % values
        )
    return {
        "sentence": sentence,
        "outcome": outcome,
        "runner_up": runner,
        "difference_pct": round(pct if gap >= 0 else -pct, 1),
    }


def break_even_lines(decision: Decision) -> list[str]:
    """Where the money turns, beside the user's own figure (issue 52): the utilization at
    which owning every GPU and renting them on demand cost the same, and for a service the
    volume from which GPUs cost less than paying per token."""
    costs = decision.costs
    found = []
    compared = costs.get("options_compared") or ()
    tie = costs.get("break_even_utilization_pct")
    if tie is not None and "onprem" in compared and "cloud" in compared:
        found.append(
            _(
                "Owning and renting on demand cost the same at %(tie)s %% average utilization; "
                "you expect %(pct)s %%."
            )
            % {"tie": f"{tie:.0f}", "pct": f"{costs['demand']['utilization_pct']:.0f}"}
        )
    volume = costs.get("api_break_even_tokens_per_day_m")
    if costs.get("api") and volume is not None:
        found.append(
            _(
                "GPUs cost less than paying per token from %(volume)s tokens a day; you serve %(served)s."
            )
            % {
                "volume": tokens_text(volume),
                "served": tokens_text(costs["api"]["tokens_per_day_m"]),
            }
        )
    return found


def options_at_glance(decision: Decision) -> list[dict[str, Any]]:
    """Each outcome once for the first screen (issue 52): those in play cheapest first, with
    the present value and the share of drawn worlds in which it is cheapest that every
    section reads (`decision.options`), a tick for the recommendation and one line for the
    others (what it costs against the recommendation, or the score that keeps it second);
    then those the constraints rule out, with the reason."""
    result, present = decision.result, decision.present
    shares = (decision.odds or {}).get("cheapest_probability") or {}
    language = translation.get_language() or "en"
    chosen = result.recommendation
    rows = []
    for outcome in decision.order:
        if outcome in result.excluded:
            continue
        share = shares.get(outcome)
        rows.append(
            {
                "outcome": outcome,
                "name": _option_name(decision.costs, outcome),
                "present_value": float(present[outcome]),
                "probability": None if share is None else summary.percent_text(share),
                "recommended": outcome == chosen,
                "why_not": None if outcome == chosen else _why_second(decision, outcome),
            }
        )
    # Ruled out, cheapest first too (a stored result's JSON keeps no key order on PostgreSQL).
    ruled_out = sorted(
        result.excluded.items(),
        key=lambda item: (float(present.get(item[0], math.inf)), item[0]),
    )
    for outcome, reason in ruled_out:
        rows.append(
            {
                "outcome": outcome,
                "name": _option_name(decision.costs, outcome),
                "present_value": present.get(outcome),
                "probability": None,
                "recommended": False,
                "why_not": _("Ruled out: %(reason)s") % {"reason": reason.get(language)},
            }
        )
    return rows


def _why_second(decision: Decision, outcome: str) -> str | None:
    """Why an outcome in play is not the recommendation, in one line."""
    chosen = decision.result.recommendation
    if not chosen or chosen not in decision.present:
        return None
    gap = float(decision.present[outcome]) - float(decision.present[chosen])
    amount = money(abs(gap), decision.currency)
    if gap > 0:
        return _("%(amount)s more in present value") % {"amount": amount}
    scores = decision.result.scores
    behind = scores.get(chosen, 0.0) - scores.get(outcome, 0.0)
    return _(
        "%(amount)s less in present value, but %(points)s points behind on the answers' "
        "score (0–100)"
    ) % {"amount": amount, "points": f"{behind:.1f}"}
