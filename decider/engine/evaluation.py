"""Answers -> costs -> scored result: the one path the wizard, `decide` and the API share.

Plain data in, plain data out; callers load the rule book and the figures.

The order matters. The rules' constraints are applied first, so that the cost
model never prices an excluded outcome as a choice. The cost model's verdict
then becomes an answer the rules score; when fewer than two outcomes are left
to compare there is no verdict, and the cost criterion scores nothing. A
hybrid whose cheapest mix owns nothing or rents nothing is not a hybrid: it is
excluded with that reason, so the headline, the scores and the costs agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from decider.engine import (
    costs,
    gpus,
    hosted,
    markets,
    odds,
    providers,
    questionnaire,
    scoring,
    stages,
    tiers,
    tokens,
    verdict,
)
from decider.engine import workloads as pool
from decider.engine.figures import Figure, figures_for_fleet, figures_values, figures_with_overrides
from decider.engine.fleet import fleet_of
from decider.engine.outcomes import API
from decider.engine.text import Text

# Why a hybrid that reduces to a pure option is not recommended as a hybrid.
_REDUCES = {
    "onprem": Text(
        "The cheapest mix owns {owned} GPUs and rents nothing: a hybrid is an on-premises "
        "cluster here.",
        "成本最低的组合自有 {owned} 块GPU、不租用云资源：此时混合架构就是本地自建集群。",
    ),
    "cloud": Text(
        "The cheapest mix owns no GPUs: a hybrid is plain cloud here.",
        "成本最低的组合不自有任何GPU：此时混合架构就是纯云方案。",
    ),
}


@dataclass(frozen=True)
class Evaluation:
    result: scoring.Result
    costs: dict[str, Any]
    figures: dict[str, Figure]  # the figures used: the assessment's own overrides applied
    derived: dict[str, Any]  # answers the app derived, as the rules read them
    # The odds, when the scoring drew them: those of the result it gives (same exclusions).
    odds: dict[str, Any] | None = None
    # The provider the cloud is priced at and the runner-up (engine/providers.py), their
    # money in the price set's currency; None: priced at the market's figures.
    provider: dict[str, Any] | None = None
    listed: tuple[providers.Provider, ...] = ()  # the providers it could be priced at


def cost_answers(
    answers: Mapping[str, Any], *, excluded: frozenset[str] = frozenset()
) -> costs.CostAnswers:
    effective = {**answers, **questionnaire.derived_answers(answers)}
    levels = questionnaire.has_levels(answers)
    demand = questionnaire.demand_of(effective)
    fleet = fleet_of(answers)
    return costs.CostAnswers(
        gpus=answers["gpus"],
        utilization=demand.utilization,
        horizon_months=answers["horizon_years"] * 12,
        dataset_tb=answers["dataset_tb"],
        has_datacenter=answers["has_datacenter"],
        demand_shape=effective["demand_shape"],
        base_gpus=demand.base if levels else None,
        team_fte=float(answers.get("ops_fte", 0.0)),
        count_team=bool(answers.get("count_existing_team", False)),
        cloud_share=questionnaire.cloud_share_pct(answers) / 100,
        excluded=excluded,
        prices_in=markets.market_of(answers).currency,
        workload=answers.get("workload", "training"),
        capex_available=bool(answers.get("capex_available", True)),
        cloud_fall_pct=float(answers.get("cloud_price_fall_pct") or 0.0),
        fleet_gpus=fleet.gpus,
        fleet_age_years=fleet.age_years,
        fleet_others=tuple((entry["gpu_model"], entry["gpus"]) for entry in fleet.others),
    )


def answers_evaluate(
    *,
    answers: Mapping[str, Any],
    rulebook: scoring.RuleBook,
    figures: Mapping[str, Figure],
    currency: str = "USD",
    odds_seed: int = 0,
    listed: Sequence[providers.Provider] = (),
    book: tokens.PriceBook | None = None,
) -> Evaluation:
    """`odds_seed`: the odds' draws, should a rule read them (`cost_odds`); `listed`: the
    providers the cloud may be priced at (`providers`); `book`: the per-token prices."""
    derived: dict[str, Any] = questionnaire.derived_answers(answers)
    if answers.get("served"):
        derived[scoring.PER_TOKEN] = True
    excluded, _warnings = scoring.exclusions({**answers, **derived}, rulebook.constraints)
    figures, provider, priced = provider_priced(answers, figures, listed, excluded)
    used = _figures_used(answers, figures)
    computed = (
        {**priced, **_provider_keys(provider, 1.0)}  # the chosen's, computed once
        if priced is not None and priced["currency"] == currency
        else answers_costs(
            answers=answers, figures=used, excluded=excluded, currency=currency, provider=provider
        )
    )
    # The per-token outcome is priced first: the verdict weighs it beside the GPUs.
    shown = with_api(
        computed, answers=answers, figures=used, excluded=excluded, currency=currency, book=book
    )
    api, parts = _api_weighed(shown, excluded), per_token_parts(shown, excluded)
    # With growth, the verdict reads the plan over that future (engine/verdict.py).
    basis = _plan_basis(answers, used, excluded, shown, currency=currency, seed=odds_seed)
    if basis is not None:
        basis = verdict.basis_with(basis, _api_hybrid_weighed(shown, api, excluded, basis))
    lead = _verdict_answers(derived, shown, api=api, basis=basis, excluded=excluded)
    if basis is not None:
        _decisive(derived, {**answers, **derived}, rulebook, basis, basis["order"])
    reduces = basis is None and _reduces(shown, api, excluded)
    found = None
    gap = computed["verdict_gap_pct"] if lead is None else lead["gap_pct"]
    if _odds_wanted(rulebook, gap, planned=basis is not None):
        # With the outcomes the result will exclude: the saved result's own odds.
        drawn = [*excluded, *(["hybrid"] if reduces else [])]
        found = _odds_read(
            derived, answers, used, drawn, currency=currency, seed=odds_seed, api=parts
        )
    if basis is None:
        # Kept whether or not it is decisive, so that a draft with other bands can be
        # previewed on it (a lead whose odds were not drawn has no probability).
        allowed = [o for o in computed["options_compared"] if o not in excluded]
        allowed += [o for o in _api_hybrid_weighed(shown, api, excluded) if o not in allowed]
        _decisive(
            derived, {**answers, **derived}, rulebook, _cost_lead(computed, found, lead), allowed
        )
    if excludes := _cost_excludes(shown, excluded, reduces=bool(reduces)):
        derived[scoring.COST_EXCLUDES] = excludes
    result = scoring.answers_score(answers={**answers, **derived}, rulebook=rulebook)
    return Evaluation(
        result, shown, used, derived, odds=found, provider=provider, listed=(*listed,)
    )


def provider_priced(
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    listed: Sequence[providers.Provider],
    excluded: Iterable[str],
) -> tuple[Mapping[str, Figure], dict[str, Any] | None, dict[str, Any] | None]:
    """The figures at the cheapest provider the answers allow, what names it and the
    runner-up, and its cost section in the price set's currency (None, and the market's
    figures, where no listed provider rents the GPU model; `chosen` None: none the answers
    allow rents it in the answers' market; `chosen.ruled_out`: the answers rule renting out,
    and the cloud is shown at the price it would be rented at). The two cheapest on today's demand
    are priced in full, over the answers' future: the cheaper of those is chosen."""
    choice = providers.choice_of(answers)
    gpu_model = gpus.gpu(answers.get("gpu_model")).key
    market = markets.market_of(answers).key
    in_market = [p for p in listed if p.market == market]
    # The market's GPU-hour prices, where listed providers rent the model, are theirs.
    figures = providers.market_index(figures, in_market, gpu_model=gpu_model)
    cost_in = cost_answers(answers, excluded=frozenset(excluded))
    # Ruled out (data that may not leave), the cloud is still shown, at the price it would
    # be rented at: what the constraint costs is read against a real provider's prices.
    ruled_out = not _rents(cost_in, excluded)
    candidates = providers.allowed(in_market, choice, gpu_model=gpu_model)
    if not candidates:
        return figures, {"chosen": None, "runner_up": None, "allowed": []}, None

    def light(at: Mapping[str, Figure]) -> float:
        """The cloud on today's demand, without the rest of the cost model."""
        return round(
            costs.cloud_present_value(answers=cost_in, figures=_figures_used(answers, at)), 2
        )

    ranked = providers.ranked(figures, candidates, gpu_model=gpu_model, cost=light)
    if not stages.future_of(answers).grows:
        # Today's demand is the whole future: the ranking's values are the cost section's.
        chosen, rest, chosen_costs = ranked[0], ranked[1:2], None
        at_market = light(figures)
    else:
        # Priced over the growth, the two cheapest today may swap.
        in_full = {
            p.provider.key: _in_full(answers, p.figures, excluded, cost_in) for p in ranked[:2]
        }
        chosen, *rest = sorted(
            (replace(p, cost=_cloud_value(in_full[p.provider.key])) for p in ranked[:2]),
            key=lambda p: (p.cost, p.provider.key),
        )
        chosen_costs = in_full[chosen.provider.key]
        at_market = _cloud_value(_in_full(answers, figures, excluded, cost_in))
    facts = {
        "chosen": {
            **providers.provider_facts(
                chosen.provider, chosen.cost, market_present_value=at_market
            ),
            **({"ruled_out": True} if ruled_out else {}),
        },
        "runner_up": providers.provider_facts(rest[0].provider, rest[0].cost) if rest else None,
        "allowed": [p.key for p in candidates],
    }
    return chosen.figures, facts, chosen_costs


def _in_full(
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    cost_in: costs.CostAnswers,
) -> dict[str, Any]:
    """The cost section at `figures`, in the price set's currency."""
    return answers_costs(
        answers=answers,
        figures=_figures_used(answers, figures),
        excluded=excluded,
        currency=cost_in.prices_in,
    )


def _cloud_value(computed: Mapping[str, Any]) -> float:
    """The cloud's present value at its cheapest pricing mode."""
    return float(min(computed["present_value"][mode] for mode in costs.CLOUD_OPTIONS))


def _provider_keys(provider: Mapping[str, Any] | None, rate: float) -> dict[str, Any]:
    """The cost section's provider keys: the provider the figures are priced at and the
    runner-up, their money at `rate` (provider_priced's facts; None: the market's figures)."""
    facts = provider or {}
    return {
        # Asked for, but none the answers allow rents the GPU model here: the market's.
        "provider_unlisted": provider is not None and facts.get("chosen") is None,
        "provider": providers.facts_shown(facts.get("chosen"), rate),
        "provider_runner_up": providers.facts_shown(facts.get("runner_up"), rate),
    }


def _figures_used(answers: Mapping[str, Any], figures: Mapping[str, Figure]) -> dict[str, Figure]:
    """The figures with the answers' own overrides; a fleet smaller than one server priced
    as the smallest server that holds it (growing demand keeps whole servers: the plan may
    add them)."""
    used = figures_with_overrides(figures, answers.get("costs", {}))
    if not stages.future_of(answers).grows:
        used = figures_for_fleet(used, answers["gpus"])
    return used


def _plan_basis(
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Mapping[str, Text],
    shown: Mapping[str, Any],
    *,
    currency: str,
    seed: int,
) -> dict[str, Any] | None:
    """What the verdict reads when demand grows: the allowed outcomes' plans over that
    future (verdict.plan_basis), the per-token outcomes of the cost section `shown` drawn
    beside them (per_token_parts); None when it holds, or the plan gives no basis."""
    if not stages.future_of(answers).grows:
        return None
    plan = answers_plan(
        answers=answers,
        figures=figures,
        excluded=excluded,
        currency=currency,
        seed=seed,
        fixed=per_token_parts(shown, excluded),
        bursts_owned=bursts_owned(shown),
    )
    allowed = [outcome for outcome in costs.TIE_ORDER if outcome not in excluded]
    return verdict.plan_basis(plan, allowed)


def _odds_wanted(rulebook: scoring.RuleBook, gap: float | None, *, planned: bool) -> bool:
    """The odds cost 5–10 cost models: drawn only for a rule set whose rules read them, or
    for a lead wide enough to be decisive (`planned`: the plan's draws decide that with
    growth)."""
    return any(rule.question == "cost_odds" for rule in rulebook.rules) or (
        not planned and gap is not None and gap >= rulebook.decisive_gap_pct - 1e-9
    )


def _odds_read(
    derived: dict[str, Any],
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Sequence[str],
    *,
    currency: str,
    seed: int,
    api: Mapping[str, tuple[float, float]],
) -> dict[str, Any]:
    """The odds drawn (with the per-token outcomes beside them: per_token_parts), and the
    cost odds' answer they give when a rule reads it."""
    found = answers_odds(
        answers=answers, figures=figures, excluded=excluded, currency=currency, seed=seed, fixed=api
    )
    if odds_verdict := odds.odds_verdict(found["cheapest_probability"]):
        derived["cost_odds"] = odds_verdict
    return found


def per_token_parts(
    shown: Mapping[str, Any], excluded: Mapping[str, Any]
) -> dict[str, tuple[float, float]]:
    """The per-token outcomes the verdict weighs (the cost section `shown` with them), each
    as (what is not sent per token, what is) in present value: per token itself (unless the
    rules exclude it), and the hybrid that owns the base and sends the bursts per token when
    that is the hybrid weighed (verdict.hybrid_per_token), though per token alone may be
    excluded (its bursts carry only data that may leave). The odds draw the second part's
    price level."""
    if shown.get("api") is None:
        return {}
    api = float(shown["present_value"][API])
    parts = {} if API in excluded else {API: (0.0, api)}
    mixed = verdict.hybrid_per_token(shown)
    if mixed is not None and "hybrid" not in excluded:
        sent = api * float(shown["api_hybrid"]["burst_share_pct"]) / 100
        parts["hybrid"] = (mixed - sent, sent)
    return parts


def bursts_owned(shown: Mapping[str, Any]) -> int:
    """The GPUs the section's hybrid owns when it sends its bursts per token (0: it rents
    them, or is not that hybrid): what the plan of that hybrid owns."""
    if shown.get("hybrid_bursts") != "per_token":
        return 0
    return int(shown["api_hybrid"]["owned_gpus"])


def _cost_excludes(
    shown: Mapping[str, Any], excluded: Mapping[str, Text], *, reduces: bool
) -> dict[str, Any]:
    """The outcomes the cost model shows to be no real choice, with the reason in each
    language: a per-token outcome not offered, a hybrid that is a pure option."""
    found = _api_excludes(shown, excluded)
    if reduces:
        found |= _reduces_reason(shown["hybrid_reduces_to"], shown["hybrid_owned_gpus"])
    return found


def _verdict_answers(
    derived: dict[str, Any],
    computed: Mapping[str, Any],
    *,
    api: Mapping[str, float],
    basis: Mapping[str, Any] | None,
    excluded: Mapping[str, Text],
) -> dict[str, Any] | None:
    """Derive the cost criterion's answer and the order that breaks a tie on points: from
    the plans with growth, from the cost section and the per-token outcome's price, or from
    the cost section alone; the ranking with the per-token outcome (_api_lead) when that was
    it."""
    if basis is not None:
        derived["cost_verdict"] = verdict.basis_verdict(basis)
        derived[scoring.COST_ORDER] = basis["order"]
        return None
    if _api_hybrid_weighed(computed, api, excluded):
        lead = _api_lead(computed, api, excluded)
        if lead["verdict"]:
            derived["cost_verdict"] = lead["verdict"]
            derived[scoring.COST_ORDER] = lead["order"]
        return lead
    if found_verdict := costs.cost_verdict(computed):
        derived["cost_verdict"] = found_verdict
    if len(order := costs.cost_order(computed)) > 1:
        derived[scoring.COST_ORDER] = order
    return None


def _cost_lead(
    computed: Mapping[str, Any],
    found: Mapping[str, Any] | None,
    lead: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The cost model's cheapest outcome (`lead`: ranked with the per-token one,
    _api_lead), its gap to the runner-up, and how often it is cheapest in the odds' draws
    (None: the odds were not drawn)."""
    if lead is None:
        return {
            "cheapest": computed["cheapest"],
            "gap_pct": computed["verdict_gap_pct"],
            "probability": verdict.verdict_probability(computed, found),
        }
    cheapest = lead["order"][0] if lead["order"] else None
    shares = (found or {}).get("cheapest_probability") or {}
    return {"cheapest": cheapest, "gap_pct": lead["gap_pct"], "probability": shares.get(cheapest)}


def _api_weighed(shown: Mapping[str, Any], excluded: Mapping[str, Text]) -> dict[str, float]:
    """{"api": its present value} when the per-token outcome is priced and not excluded: the
    verdict then weighs it; else empty."""
    if shown.get("api") is None or API in excluded:
        return {}
    return {API: float(shown["present_value"][API])}


def _api_lead(
    computed: Mapping[str, Any], api: Mapping[str, float], excluded: Mapping[str, Text]
) -> dict[str, Any]:
    """The allowed outcomes and the per-token one ranked on today's demand (verdict.ranked),
    the hybrid at its cheaper form (the bursts rented, or sent per token)."""
    amounts = costs.outcome_amounts(computed["present_value"], computed["hybrid_reduces_to"])
    allowed = [o for o in computed["options_compared"] if o not in excluded]
    present = {o: float(amounts[o]) for o in allowed}
    extra = _api_hybrid_weighed(computed, api, excluded, {"present_value": present})
    return verdict.ranked({**present, **extra})


def _reduces(
    shown: Mapping[str, Any], api: Mapping[str, float], excluded: Mapping[str, Text]
) -> bool:
    """Whether the hybrid is a pure option on today's demand, to be left out (it may be a
    real one as demand grows: the caller asks only without growth): its cheapest mix of
    rented bursts owns nothing or everything, and its bursts are not sent per token."""
    return (
        "hybrid" not in excluded
        and shown["hybrid_reduces_to"] is not None
        and "hybrid" not in _api_hybrid_weighed(shown, api, excluded)
    )


def _api_hybrid_weighed(
    shown: Mapping[str, Any],
    api: Mapping[str, float],
    excluded: Mapping[str, Text],
    basis: Mapping[str, Any] | None = None,
) -> dict[str, float]:
    """`api` (the per-token outcome, when weighed), and the hybrid whose bursts go per token
    when it is the hybrid to weigh (verdict.hybrid_per_token: priced, its bursts within the
    data that may leave) and the rules allow a hybrid: at the cheaper of it and the hybrid
    in `basis` (the plans' present values; the caller's ranking without growth)."""
    mixed = verdict.hybrid_per_token(shown) if shown.get("api") else None
    if mixed is None or "hybrid" in excluded:
        return dict(api)
    other = (basis or {}).get("present_value", {}).get("hybrid")
    return {**api, "hybrid": mixed if other is None else min(float(other), mixed)}


def _api_excludes(shown: Mapping[str, Any], excluded: Mapping[str, Text]) -> dict[str, Any]:
    """Why the per-token outcome is not priced, in each language, when the answers weigh it
    and no rule has excluded it already (a cost-model exclusion, like a pure hybrid's)."""
    reason = shown.get("api_not_offered")
    if reason is None or API in excluded:
        return {}
    return {API: dict(reason)}


def _reduces_reason(reduces_to: str, owned: int) -> dict[str, Any]:
    """Why the hybrid is excluded, in each language: its cheapest mix is a pure option."""
    reason = _REDUCES[reduces_to]
    return {
        "hybrid": {
            language: text.format(owned=owned) for language, text in reason.as_dict().items()
        }
    }


def _decisive(
    derived: dict[str, Any],
    answers: Mapping[str, Any],
    rulebook: scoring.RuleBook,
    lead: Mapping[str, Any],
    allowed: Sequence[str],
) -> None:
    """Keep the cheapest outcome's lead (`cheapest`, `gap_pct`, `probability`) among the
    `allowed` outcomes with the result, and derive what it gives under the rule book
    (engine/verdict.py): the decisive gap, or the overriding answers that withhold it."""
    if lead["cheapest"] is None:
        return
    derived[verdict.LEAD] = {
        "cheapest": lead["cheapest"],
        "gap_pct": lead["gap_pct"],
        "probability": lead["probability"],
        "allowed": list(allowed),
    }
    derived.update(verdict.decisive_answers({**answers, **derived}, rulebook))


def _rents(cost_in: costs.CostAnswers, excluded: Iterable[str]) -> bool:
    """Whether an outcome left may rent: the cloud, or a hybrid whose data may go there."""
    return "cloud" not in excluded or ("hybrid" not in excluded and cost_in.cloud_share > 0)


def answers_costs(
    *,
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    currency: str = "USD",
    provider: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The cost section of the evaluated answers (engine/costs.py) with the figures as the
    evaluation used them. One future: each option is priced month by month over the
    answers' future, held or growing, as the plan in stages prices it (stages.future_lines;
    the closed forms of today's demand only when nothing owned can arrive in time).
    `provider`: the provider the figures are priced at and the runner-up (provider_priced),
    named in the section."""
    cost_in = cost_answers(answers, excluded=frozenset(excluded))
    computed = costs.costs_compute(answers=cost_in, figures=figures, currency=currency)
    future = stages.future_of(answers)
    planned = stages.future_lines(answers=cost_in, figures=figures, future=future, curve=True)
    if planned:
        demand = cost_in.demand
        base, peak = future.demand(demand.base, float(demand.peak), cost_in.horizon_months)
        computed = costs.costs_over_future(
            computed,
            planned,
            figures=figures,
            answers=cost_in,
            useful_hours=costs.useful_gpu_hours(cost_in, base, peak),
            grows=future.grows,
            currency=currency,
        )
    params = figures_values(figures)
    rate = markets.currency_rate(params, prices_in=cost_in.prices_in, shown_in=currency)
    dollar = markets.currency_rate(params, prices_in="USD", shown_in=currency)
    published = [
        {**tier.to_json(), "per_hour": round(tier.per_hour * dollar, 4)}
        for tier in tiers.tiers_for(answers.get("gpu_model") or gpus.DEFAULT)
    ]
    return computed | _provider_keys(provider, rate) | {"owned_hour_tiers": published}


def with_api(
    computed: dict[str, Any],
    *,
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    currency: str,
    book: tokens.PriceBook | None = None,
) -> dict[str, Any]:
    """The cost section with a hosted model per token beside the GPU options (issue 36), its
    GPUs priced by this cost section's own reckoning; `book`: the prices (a saved result's
    own, hosted.pinned_book; else the shipped ones). When the hybrid weighed sends its
    bursts per token, that is the hybrid, in every figure of the section (_bursts_sent)."""
    excluded = frozenset(excluded)

    def api_keys(section: dict[str, Any]) -> dict[str, Any]:
        return section | hosted.api_section(
            answers,
            section,
            cost_at=lambda changed: _present_values(changed, figures, excluded, currency),
            excluded=excluded,
            figures=figures_values(figures),
            book=book,
        )

    shown = api_keys(computed)
    sent = _bursts_sent(shown, answers=answers, figures=figures, excluded=excluded)
    if sent is None:
        return shown
    shown = api_keys(sent)
    # One price: the section's hybrid is this plan, its lines priced once.
    shown["api_hybrid"] = {**shown["api_hybrid"], "present_value": shown["present_value"]["hybrid"]}
    return shown


def _bursts_sent(
    shown: Mapping[str, Any],
    *,
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: frozenset[str],
) -> dict[str, Any] | None:
    """The cost section (without its per-token keys) whose hybrid is the one that owns the
    steady base and sends the bursts per token, when that is the hybrid weighed
    (verdict.hybrid_per_token) and the rules allow a hybrid: its plan is the on-prem plan
    of the GPUs it owns and a line of the tokens it sends, month by month, and every figure
    of the section reads it (table, totals, present value, yearly, breakdown, ranking). None
    otherwise, or when nothing owned arrives within the horizon (the closed forms)."""
    if (
        "hybrid" in excluded
        or shown.get("hybrid_bursts")
        or verdict.hybrid_per_token(shown) is None
    ):
        return None
    owning = hosted.owning_answers(answers, int(shown["api_hybrid"]["owned_gpus"]))
    base = _plans_at(owning, figures, excluded)
    cost_in = cost_answers(answers, excluded=excluded)
    future = stages.future_of(answers)
    planned = stages.future_lines(answers=cost_in, figures=figures, future=future)
    if base is None or planned is None:
        return None
    _owned_in, owned = base
    bills = hosted.burst_bills(answers, shown, figures_values(figures), prices_in=cost_in.prices_in)
    lines = {**planned.lines, "hybrid": {**owned.lines["onprem"], "tokens": bills}}
    sent = replace(planned, lines=lines, hybrid=owned.own, staged_owns=True, curve=())
    demand = cost_in.demand
    at_base, at_peak = future.demand(demand.base, float(demand.peak), cost_in.horizon_months)
    section = costs.costs_over_future(
        {key: value for key, value in shown.items() if key not in hosted.API_KEYS},
        sent,
        figures=figures,
        answers=cost_in,
        useful_hours=costs.useful_gpu_hours(cost_in, at_base, at_peak),
        grows=future.grows,
        currency=str(shown["currency"]),
    )
    return section | {"hybrid_bursts": "per_token", "hybrid_curve": None}


def _present_values(
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    currency: str,
) -> Mapping[str, Any]:
    """The options' present values as the cost section gives them (its plans, priced month
    by month: costs.plans_present_values), a fleet smaller than the one `figures` were set
    for priced as its own servers (as a new assessment of that size is, _figures_used)."""
    cost_in = cost_answers(answers, excluded=frozenset(excluded))
    found = _plans_at(answers, figures, excluded)
    if found is None:  # nothing owned arrives within the horizon: the closed forms
        fleet = _fleet_figures(answers, figures)
        return costs.present_values_of(answers=cost_in, figures=fleet, currency=currency)
    used, planned = found
    return costs.plans_present_values(
        planned,
        figures=used,
        answers=cost_in,
        grows=stages.future_of(answers).grows,
        currency=currency,
    )


def _fleet_figures(
    answers: Mapping[str, Any], figures: Mapping[str, Figure]
) -> Mapping[str, Figure]:
    """A fleet smaller than the one `figures` were set for, priced as its own servers (as
    a new assessment of that size is, _figures_used); growing answers keep them."""
    if stages.future_of(answers).grows:
        return figures
    return figures_for_fleet(figures, answers["gpus"])


def _plans_at(
    answers: Mapping[str, Any], figures: Mapping[str, Figure], excluded: Iterable[str]
) -> tuple[Mapping[str, Figure], costs.OptionPlans] | None:
    """The figures and the cost section's plans of `answers` (another volume of the same
    service, or the base a hybrid owns); None when nothing owned arrives in time."""
    used = _fleet_figures(answers, figures)
    cost_in = cost_answers(answers, excluded=frozenset(excluded))
    planned = stages.future_lines(answers=cost_in, figures=used, future=stages.future_of(answers))
    return None if planned is None else (used, planned)


def odds_ranges(answers: Mapping[str, Any]) -> dict[str, tuple[float, float]]:
    """The ranges the odds draw from: the answers' own, the utilization's reaching down to
    what fleets reach when the answers expect more (engine/reality.py)."""
    effective = {**answers, **questionnaire.derived_answers(answers)}
    utilization = questionnaire.demand_of(effective).utilization
    return odds.ranges_of(answers.get("uncertainty"), utilization=utilization)


def answers_odds(
    *,
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    currency: str = "USD",
    seed: int,
    fixed: Mapping[str, tuple[float, float]] | None = None,
) -> dict[str, Any]:
    """The odds of the evaluated answers (engine/odds.py): `figures` as the evaluation used
    them, `excluded` the outcomes its rules excluded, drawn from the answers' own ranges;
    `fixed`: the per-token outcomes, when the verdict weighs them (per_token_parts). The cost
    section's own plans are priced in the drawn worlds (its point is the section's)."""
    cost_in = cost_answers(answers, excluded=frozenset(excluded))
    future = stages.future_of(answers)
    planned = stages.future_lines(answers=cost_in, figures=figures, future=future)
    plans = None
    if planned is not None:
        compared, reduces_to = planned.compared(cost_in, grows=future.grows)
        plans = odds.Plans(future, stages.drawn_options(planned), compared, reduces_to)
    return odds.odds_compute(
        answers=cost_in,
        figures=figures,
        currency=currency,
        ranges=odds_ranges(answers),
        seed=seed,
        fixed=fixed,
        plans=plans,
    )


def answers_plan(
    *,
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    currency: str = "USD",
    seed: int = 0,
    outcome: str | None = None,
    fixed: Mapping[str, tuple[float, float]] | None = None,
    bursts_owned: int = 0,
) -> dict[str, Any]:
    """The staged plan of the evaluated answers (engine/stages.py), for the demand's growth
    and the fall of cloud prices the answers give (none: today's demand and prices held);
    `outcome`: the recommendation, which the plan recommended follows; `fixed`: the
    per-token outcomes the verdict weighs (per_token_parts), `bursts_owned` the GPUs the
    hybrid among them owns (bursts_owned). With several
    workloads, where each runs in the pool and what pooling saves (pooled_facts)."""
    plan = stages.plan_compute(
        answers=cost_answers(answers, excluded=frozenset(excluded)),
        figures=figures,
        future=stages.future_of(answers),
        currency=currency,
        gpu_model=answers.get("gpu_model") or gpus.DEFAULT,
        market=markets.market_of(answers).key,
        ranges=odds_ranges(answers),
        seed=seed,
        outcome=outcome,
        fixed=fixed,
        bursts_owned=bursts_owned,
    )
    return plan | pooled_facts(answers, figures, excluded, currency=currency, plan=plan)


def pooled_facts(
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    *,
    currency: str,
    plan: Mapping[str, Any],
) -> dict[str, Any]:
    """Several workloads in one pool (engine/workloads.py): per workload where it runs on
    the plan's owned GPUs, its share of the cost and what it would cost decided alone; the
    pool's utilization; what pooling saves against the workloads decided apart. None when
    the answers hold one workload (or a change since made them another demand)."""
    listed = pool.workloads_of(answers.get("workloads") or [], questionnaire.demand_of)
    if not listed or not pool.hold(answers, listed):
        return {"workloads": None, "pooled_utilization_pct": None, "pooling": None}
    owned = max((stage.get("owned_gpus", 0) for stage in plan.get("chosen", [])), default=0)
    sharing = pool.members(listed)
    together = _cheapest_allowed(answers, figures, excluded, currency)
    placed = pool.placement(sharing, owned)
    alone = {w.name: _alone(answers, w, figures, currency) for w in listed}
    planned = float(plan.get("chosen_present_value") or together["present_value"])
    for item, share in zip(placed, pool.cost_shares(placed), strict=True):
        item["cost_share_pct"] = round(share * 100, 2)
        item["present_value"] = round(planned * share, 2)  # its share of the plan's
        item["alone"] = alone[item["name"]]
    # A workload in a region of its own is decided alone, on both sides of the saving.
    separate = [_apart(w, alone[w.name]) for w in listed if w.separate]
    apart_value = round(sum(found["present_value"] for found in alone.values()), 2)
    together_value = round(together["present_value"] + sum(w["present_value"] for w in separate), 2)
    utilization = pool.utilization(questionnaire.demand_of(answers), owned)
    order = [w.name for w in listed]
    return {
        "workloads": sorted([*placed, *separate], key=lambda item: order.index(item["name"])),
        "pooled_utilization_pct": None if utilization is None else round(utilization * 100, 1),
        "pooling": {
            "owned_gpus": owned,
            "together_outcome": together["outcome"],
            "together_present_value": together_value,
            "apart_present_value": apart_value,
            "saving": round(apart_value - together_value, 2),
        },
    }


def _apart(workload: pool.Workload, alone: Mapping[str, Any]) -> dict[str, Any]:
    """A workload in a region of its own, as the plan lists it: decided alone."""
    demand = workload.demand
    owned = alone["owned_gpus"]
    served = demand.split(owned)[0] if owned else 0.0
    return {
        "name": workload.name,
        "workload": workload.kind,
        "residency": workload.residency,
        "peak_gpus": demand.peak,
        "mean_gpus": round(demand.mean, 2),
        "runs": "apart",
        "owned_gpus": owned,
        "rented_mean_gpus": round(demand.mean - served, 2),
        "cost_share_pct": None,
        "present_value": alone["present_value"],
        "alone": dict(alone),
    }


def _cheapest_allowed(
    answers: Mapping[str, Any],
    figures: Mapping[str, Figure],
    excluded: Iterable[str],
    currency: str,
) -> dict[str, Any]:
    """The cheapest outcome the exclusions allow, its present value and the GPUs it owns."""
    computed = answers_costs(answers=answers, figures=figures, excluded=excluded, currency=currency)
    present = costs.outcome_amounts(computed["present_value"], computed["hybrid_reduces_to"])
    allowed = [o for o in costs.TIE_ORDER if o not in set(excluded)] or list(costs.TIE_ORDER)
    outcome = min(allowed, key=lambda o: (present[o], costs.TIE_ORDER.index(o)))
    owned = {"onprem": answers["gpus"], "hybrid": computed["hybrid_owned_gpus"], "cloud": 0}
    return {
        "outcome": outcome,
        "present_value": round(float(present[outcome]), 2),
        "owned_gpus": int(owned[outcome]),
    }


# The residencies under which the shipped constraints rule pure cloud out.
BINDING_RESIDENCIES = ("partial", "all")


def _alone(
    answers: Mapping[str, Any],
    workload: pool.Workload,
    figures: Mapping[str, Figure],
    currency: str,
) -> dict[str, Any]:
    """One workload decided alone: the company's answers with its own demand, kind and data
    residency, at its cheapest allowed outcome (data that may not leave rules the cloud out,
    as the shipped constraint does), and how busy its own cluster for its peak would be."""
    demand = workload.demand
    own = {
        key: value for key, value in answers.items() if key not in (*pool.POOLED_KEYS, "workloads")
    }
    own |= pool.levels(demand) | {
        "workload": workload.kind,
        "residency": workload.residency,
        "latency_critical": workload.latency_critical,
    }
    if workload.growth_pct is not None:
        own["growth_pct"] = workload.growth_pct  # its own; the rest grow at the company's
    # Its data's rule binds it alone as it binds the pool: data that may not leave, all of
    # it or part, rules pure cloud out (the shipped constraints on `residency`).
    excluded = ["cloud"] if workload.residency in BINDING_RESIDENCIES else []
    found = _cheapest_allowed(own, _figures_used(own, figures), excluded, currency)
    # How busy a cluster of its own, sized for its peak, would be.
    return found | {"utilization_pct": round(demand.utilization * 100, 1)}
