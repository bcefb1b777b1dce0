"""The verdict follows the money.

The cost criterion used to be worth the same few points whatever the gap: a cloud 69 %
cheaper in every draw lost to the utilization rule alone. Here the cost model's verdict
becomes *decisive* (the derived answer `cost_decisive`) when the cheapest allowed option
beats the runner-up by at least the rule set's gap (`RuleBook.decisive_gap_pct`, shipped
25 % of the runner-up's present value) in at least its share of the odds' draws (shipped
90 %); the rule set gives it its own criterion and weight, so what it is worth is the admins' to set (fixtures/ruleset.json ships one that wins
against every other answer but the overriding ones).

A rule the rule set marks as overriding cost (strict latency, regional expansion, the
provider's jurisdiction, data residency) withholds the decisive level when its answer
favours another allowed option: the answer then carries the headline, and `extra_cost`
says what it costs against the cheapest allowed option, and which answers carry it.

When demand grows, the cost section still prices today's demand; the verdict then reads
the plan over the growing future instead (`plan_basis`): each outcome's plan priced by
engine/stages.py, so that the headline sees the growth the answers give.

Plain data in and out, like the rest of the engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from decider.engine import costs as cost_model
from decider.engine import scoring
from decider.engine.outcomes import API
from decider.engine.text import Text

# The shipped bands (a rule set sets its own: RuleBook.decisive_*).
DECISIVE_GAP_PCT = scoring.DECISIVE_GAP_PCT
DECISIVE_PROBABILITY = scoring.DECISIVE_PROBABILITY_PCT / 100
# The derived answer holding the cheapest allowed option's lead, kept with the result so that
# a draft's bands and overriding rules can be previewed on saved results without re-pricing:
# {cheapest, gap_pct, probability (None: the odds were not drawn), allowed}.
LEAD = "cost_lead"
# The derived answer (questionnaire.DERIVED_QUESTIONS): the decisively cheapest outcome,
# absent when no gap is decisive.
DECISIVE = "cost_decisive"
# The derived answer naming the overriding rules (criterion keys) that withheld it.
OVERRIDDEN_BY = "cost_overridden_by"
# How many answers the extra cost names, strongest first.
CARRIERS = 3


def is_decisive(
    gap_pct: float | None, probability: float | None, rulebook: scoring.RuleBook | None = None
) -> bool:
    """Whether a cheapest option's lead decides on cost: wide enough, in enough draws (the
    rule book's bands, the shipped ones without it)."""
    gap = rulebook.decisive_gap_pct if rulebook else DECISIVE_GAP_PCT
    share = rulebook.decisive_probability_pct / 100 if rulebook else DECISIVE_PROBABILITY
    return (
        gap_pct is not None
        and probability is not None
        and gap_pct >= gap - 1e-9
        and probability >= share - 1e-9
    )


def decisive_answers(answers: Mapping[str, Any], rulebook: scoring.RuleBook) -> dict[str, Any]:
    """The derived answers the cost lead (`LEAD` in `answers`) gives under `rulebook`: the
    decisive outcome (`DECISIVE`), or the overriding rules that withhold it (`OVERRIDDEN_BY`,
    criterion keys), or none when the lead is not decisive by the rule book's bands."""
    lead = answers.get(LEAD)
    if not lead or lead.get("cheapest") is None:
        return {}
    if not is_decisive(lead.get("gap_pct"), lead.get("probability"), rulebook):
        return {}
    plain = {k: v for k, v in answers.items() if k not in (DECISIVE, OVERRIDDEN_BY)}
    hits = scoring.rules_hit(plain, rulebook)
    if overriding := overriding_rules(hits, lead["cheapest"], lead.get("allowed") or ()):
        return {OVERRIDDEN_BY: [rule.key for rule in overriding]}
    return {DECISIVE: lead["cheapest"]}


def overriding_rules(
    hits: Iterable[tuple[scoring.Rule, scoring.Band]], cheapest: str, allowed: Iterable[str]
) -> list[scoring.Rule]:
    """The overriding rules whose answer favours another allowed option over the cheapest:
    a positive score above the cheapest's."""
    others = [outcome for outcome in allowed if outcome != cheapest]
    found = []
    for rule, band in hits:
        if not rule.overrides_cost:
            continue
        mine = band.scores.get(cheapest, 0)
        if any(band.scores.get(o, 0) > max(mine, 0) for o in others):
            found.append(rule)
    return found


def verdict_probability(costs: Mapping[str, Any], odds: Mapping[str, Any] | None) -> float | None:
    """How often the cost verdict's cheapest option is cheapest in the odds' draws."""
    cheapest = costs.get("cheapest")
    if odds is None or cheapest is None:
        return None
    probability = odds.get("cheapest_probability", {}).get(cheapest)
    return None if probability is None else float(probability)


def plan_basis(plan: Mapping[str, Any] | None, compared: Sequence[str]) -> dict[str, Any] | None:
    """When demand grows, what the verdict reads: each compared outcome's plan over that
    future (engine/stages.py: cloud only, owning in stages or the final base, owning the
    peak), cheapest first, the gap to the runner-up and how often the cheapest is cheapest
    in the plan's draws. None when demand holds: the cost section then prices the same
    future, and the verdict reads it."""
    if not plan or not plan.get("future", {}).get("grows"):
        return None
    values = plan.get("outcome_present_value") or {}
    present = {key: float(values[key]) for key in compared if values.get(key) is not None}
    if len(present) < 2:
        return None
    order = sorted(present, key=lambda key: (present[key], cost_model.TIE_ORDER.index(key)))
    cheapest, runner = order[0], present[order[1]]
    shares = (plan.get("odds") or {}).get("outcome_cheapest_probability") or {}
    return {
        "present_value": present,
        "order": order,
        "cheapest": cheapest,
        "gap_pct": round((runner - present[cheapest]) / runner * 100, 2) if runner > 0 else 0.0,
        "probability": shares.get(cheapest),
        "currency": plan["currency"],
    }


def ranked(present: Mapping[str, float]) -> dict[str, Any]:
    """Outcomes by present value, cheapest first (a tie: the cost model's order, the
    per-token outcome last), the cheapest's gap to the runner-up (% of the runner-up's) and
    the cost criterion's answer read off them (the cost model's 15 % rule; None alone)."""
    order = sorted(present, key=lambda key: (present[key], _tie_place(key)))
    if len(order) < 2:
        return {"order": order, "gap_pct": None, "verdict": None}
    runner = float(present[order[1]])
    gap = round((runner - float(present[order[0]])) / runner * 100, 2) if runner > 0 else 0.0
    clear = gap >= cost_model.CLEAR_GAP_PCT - 1e-9
    return {
        "order": order,
        "gap_pct": gap,
        "verdict": f"{order[0]}_{'clear' if clear else 'slight'}",
    }


def _tie_place(outcome: str) -> int:
    order = cost_model.TIE_ORDER
    return order.index(outcome) if outcome in order else len(order)


def basis_with(basis: Mapping[str, Any], extra: Mapping[str, float]) -> dict[str, Any]:
    """The plans' basis with outcomes priced beside the plan (the per-token one, over the same
    future): ranked again; the plan's draws say nothing of those, so when one of them is
    cheapest the share of draws is unknown (None). Nothing beside it: the basis as it is."""
    if not extra:
        return dict(basis)
    present = {**basis["present_value"], **extra}
    found = ranked(present)
    cheapest = found["order"][0]
    shares = basis["probability"] if cheapest == basis["cheapest"] else None
    return {
        **basis,
        "present_value": present,
        "order": found["order"],
        "cheapest": cheapest,
        "gap_pct": found["gap_pct"],
        "probability": None if cheapest in extra else shares,
    }


def hybrid_per_token(costs: Mapping[str, Any]) -> float | None:
    """The present value of the hybrid that owns the steady base and sends the bursts per
    token (`costs.api_hybrid`), when it is the hybrid to weigh: cheaper than the one that
    bursts to rented GPUs, or the only real one (that hybrid owning nothing or all), or the
    section's hybrid already (`hybrid_bursts`). None otherwise, or when the per-token option
    is not priced."""
    found = costs.get("api_hybrid")
    if not found:
        return None
    mixed = float(found["present_value"])
    if costs.get("hybrid_bursts") == "per_token":  # the section's hybrid is this one
        return mixed
    if costs.get("hybrid_reduces_to") is not None:
        return mixed
    return mixed if mixed < float(costs["present_value"]["hybrid"]) else None


def shown_amounts(
    result: scoring.Result, costs: Mapping[str, Any]
) -> tuple[list[str], dict[str, float]]:
    """The compared outcomes cheapest first and their present values, with the per-token one
    when the result weighs it and it is priced, and the hybrid at its cheaper form (the
    bursts rented, or sent per token)."""
    present = dict(
        cost_model.outcome_amounts(costs["present_value"], costs.get("hybrid_reduces_to"))
    )
    order = cost_model.cost_order(costs)
    if API not in result.scores:  # not weighed: the GPUs alone
        return order, present
    compared = list(order)
    api = costs["present_value"].get(API)
    if api is not None and API not in result.excluded:
        present[API] = float(api)
        compared.append(API)
    if (mixed := hybrid_per_token(costs)) is not None and "hybrid" not in result.excluded:
        present["hybrid"] = mixed if "hybrid" not in order else min(present["hybrid"], mixed)
        compared = list(dict.fromkeys([*compared, "hybrid"]))
    if compared == order:
        return order, present
    return ranked({key: present[key] for key in compared})["order"], present


def result_basis(
    result: scoring.Result,
    plan: Mapping[str, Any] | None,
    costs: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """plan_basis over the outcomes a scored result did not exclude, with the per-token one
    beside them when the result weighs it (its present value in `costs`, over the same
    future)."""
    basis = plan_basis(plan, [o for o in cost_model.TIE_ORDER if o not in result.excluded])
    api = (costs or {}).get("present_value", {}).get(API)
    if basis is None or api is None or API not in result.scores or API in result.excluded:
        return basis
    return basis_with(basis, {API: float(api)})


def basis_verdict(basis: Mapping[str, Any]) -> str:
    """The cost criterion's answer read off the plans (the cost model's 15 % rule)."""
    clear = basis["gap_pct"] >= cost_model.CLEAR_GAP_PCT - 1e-9
    return f"{basis['cheapest']}_{'clear' if clear else 'slight'}"


def extra_cost(
    result: scoring.Result,
    costs: Mapping[str, Any],
    *,
    overriding: Sequence[str] = (),
    basis: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """What the headline costs over the cheapest allowed option, and the answers that carry
    it: the overriding ones that withheld a decisive gap (`overriding`, criterion keys)
    first, then those that set the headline furthest above the cheapest. `basis`: the
    plans' present values when demand grows (plan_basis). None when the headline is the
    cheapest, or nothing was compared on cost."""
    headline = result.recommendation
    if basis is not None:
        order, present = basis["order"], dict(basis["present_value"])
    else:
        order, present = shown_amounts(result, costs)
    if headline is None or not order or headline == order[0] or headline not in order:
        return None
    cheapest = order[0]
    amount = float(present[headline]) - float(present[cheapest])
    return {
        "outcome": headline,
        "cheapest": cheapest,
        "amount": round(amount, 2),
        "pct": round(amount / float(present[cheapest]) * 100, 1) if present[cheapest] else None,
        "pct_of": cheapest,  # the base of the share: "… more than the cheapest"
        "currency": costs["currency"],
        "horizon_months": costs["horizon_months"],
        "answers": _carriers(result.contributions, headline, cheapest, overriding),
        "overridden": bool(overriding),
        "basis": "plan" if basis is not None else "costs",
    }


def _carriers(
    contributions: Sequence[scoring.Contribution],
    headline: str,
    cheapest: str,
    overriding: Sequence[str],
) -> list[dict[str, Any]]:
    """Per criterion, the points it gave the headline above the cheapest; the largest first."""
    lead: dict[str, float] = {}
    first: dict[str, scoring.Contribution] = {}
    for c in contributions:
        if c.outcome in (headline, cheapest):
            sign = 1 if c.outcome == headline else -1
            lead[c.criterion] = lead.get(c.criterion, 0.0) + sign * c.points
            first.setdefault(c.criterion, c)
    ranked = sorted(
        (key for key in lead if lead[key] > 0),
        key=lambda key: (key not in overriding, -lead[key]),
    )
    return [
        {
            "criterion": key,
            "label": first[key].label.as_dict(),
            "answer": first[key].answer.as_dict(),
            "points": round(lead[key], 2),
            "overrides_cost": key in overriding,
        }
        for key in ranked[:CARRIERS]
    ]


def constraint_cost(
    result: scoring.Result, costs: Mapping[str, Any], *, derived: Mapping[str, Any]
) -> dict[str, Any] | None:
    """What the hard constraints cost: the cheapest outcome they rule out against the
    cheapest they allow, when it is cheaper (present values over the horizon); None when
    nothing ruled out is cheaper. A hybrid left out because it is a pure option (the cost
    model's, `derived`) is no constraint."""
    present = cost_model.outcome_amounts(costs["present_value"], costs.get("hybrid_reduces_to"))
    not_constraints = set(derived.get(scoring.COST_EXCLUDES) or {})
    ruled_out = [
        o for o in cost_model.TIE_ORDER if o in result.excluded and o not in not_constraints
    ]
    allowed = [o for o in cost_model.TIE_ORDER if o not in result.excluded]
    if not ruled_out or not allowed:
        return None
    cheapest_out = min(ruled_out, key=lambda o: float(present[o]))
    instead = min(allowed, key=lambda o: float(present[o]))
    amount = float(present[instead]) - float(present[cheapest_out])
    if amount <= 0:
        return None
    return {
        "outcome": cheapest_out,
        "instead": instead,
        "amount": round(amount, 2),
        # A share of what the constraints leave (`instead`), the amount it would cost less:
        # on its own base it stays under 100 % ("121 % less" once read of the other's).
        "pct": round(amount / float(present[instead]) * 100, 1) if present[instead] else None,
        "pct_of": instead,
        "currency": costs["currency"],
        "horizon_months": costs["horizon_months"],
        "reason": result.excluded[cheapest_out].as_dict(),
    }


def constraint_cost_localized(
    found: Mapping[str, Any] | None, language: str
) -> dict[str, Any] | None:
    """`constraint_cost` in one language: the reason, and the constraint (its first
    sentence)."""
    if found is None:
        return None
    reason = Text.from_dict(found["reason"]).get(language)
    first = re.split(r"(?<=[.。])\s*", reason, maxsplit=1)[0]
    return {**found, "reason": reason, "constraint": first}


def extra_cost_localized(extra: Mapping[str, Any] | None, language: str) -> dict[str, Any] | None:
    """`extra_cost` with its labels in one language (the shape `decide` and the API print)."""
    if extra is None:
        return None
    return {
        **extra,
        "answers": [
            {
                **item,
                "label": Text.from_dict(item["label"]).get(language),
                "answer": Text.from_dict(item["answer"]).get(language),
            }
            for item in extra["answers"]
        ],
    }


def result_money(
    result: scoring.Result,
    costs: Mapping[str, Any],
    odds: Mapping[str, Any] | None,
    *,
    derived: Mapping[str, Any],
    language: str,
    plan: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What `decide` and the API add to a result about the verdict and the money: `costs`
    with `verdict_probability` (a copy: a kept result is never changed), and, when demand
    grows, the verdict's gap and odds read off the plan (`verdict_basis`: "plan", with the
    plans' `verdict_present_value`); and `summary` with `extra_cost` and `constraint_cost`."""
    basis = result_basis(result, plan, costs)
    shown = {**costs, "verdict_probability": verdict_probability(costs, odds)}
    shown["verdict_basis"] = "costs"
    order, present = shown_amounts(result, costs)
    if basis is None and API in order:
        # The per-token outcome weighed beside the GPUs: the verdict the rules read.
        found = ranked({key: present[key] for key in order})
        shares = (odds or {}).get("cheapest_probability") or {}
        shown.update(
            verdict=found["verdict"],
            verdict_gap_pct=found["gap_pct"],
            verdict_probability=shares.get(order[0]),
        )
    if basis is not None:
        shown.update(
            verdict_basis="plan",
            verdict=basis_verdict(basis),
            verdict_gap_pct=basis["gap_pct"],
            verdict_probability=basis["probability"],
            verdict_present_value=basis["present_value"],
        )
    overriding = derived.get(OVERRIDDEN_BY) or ()
    return {
        "costs": shown,
        "summary": {
            "extra_cost": extra_cost_localized(
                extra_cost(result, costs, overriding=overriding, basis=basis), language
            ),
            "constraint_cost": constraint_cost_localized(
                constraint_cost(result, costs, derived=derived), language
            ),
        },
    }
