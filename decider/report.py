"""What the result page and the printed report show, built from a scored assessment.

Presentation only: the numbers come from the saved snapshot and the cost model.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.http import HttpRequest, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import get_language, gettext_noop, ngettext
from django.utils.translation import gettext as _

from decider import caching, formats, per_token, summary
from decider.charts import chart_api, chart_compare, charts_for, plan_sentence
from decider.checklist import checklist_for
from decider.decision import (
    break_even_lines,
    firmness_shown,
    first_owned,
    next_steps,
    options_at_glance,
    plan_line,
    verdict_line,
)
from decider.engine import questionnaire, scoring
from decider.engine.decided import Decision
from decider.engine.figures import (
    FIGURES,
    OVERRIDE_SOURCE,
    is_estimate,
    is_imported,
    is_unofficial,
)
from decider.engine.markets import currency_rate, symbol_of
from decider.engine.outcomes import (
    API,
    COST_OPTIONS,
    OUTCOME_SUMMARIES,
    OUTCOMES,
    cost_option_label,
    outcome_name,
)
from decider.engine.text import is_chinese
from decider.engine.vocabulary import MODEL_CLASSES, PROVIDER_KINDS
from decider.models import Assessment
from decider.services import assessment_decision

# The report's paper sizes, as Chromium names them (decider/pdf.py prints them).
PAPERS = {"a4": "A4", "letter": "Letter"}


def paper_of(asked: str | None) -> str:
    """The paper a report is asked on (`?paper=`): one of PAPERS, A4 otherwise."""
    return asked if asked in PAPERS else "a4"


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
            title=_(step.title),
            number=number,
            done=all(key in answers for key in step.keys),
            current=step is current,
        )
        for number, step in enumerate(questionnaire.STEPS, start=1)
    ]


def score_sentence(
    *, score: float, margin: float | None, runner_up: str | None, cost_order: list[str]
) -> str:
    """The line under the verdict: its score, and its lead over the runner-up (or why an
    equal score still goes first)."""
    if margin is None:
        return _(
            "On your answers it scores %(score)s of 100 and is the only option the "
            "constraints leave."
        ) % {"score": score}
    values = {"score": score, "runner": outcome_name(runner_up)}
    if margin == 0:
        if runner_up in cost_order:
            return (
                _(
                    "On your answers it scores %(score)s of 100, level with %(runner)s; it goes "
                    "first because it costs less in present value."
                )
                % values
            )
        return (
            _(
                "On your answers it scores %(score)s of 100, level with %(runner)s: weigh the "
                "two yourself."
            )
            % values
        )
    # How firm that is, is said once (summary.firmness), from the scores and the money.
    return _("On your answers it scores %(score)s of 100, %(margin)s points over %(runner)s.") % {
        **values,
        "margin": margin,
    }


def answers_table(answers: Mapping[str, Any]) -> list[dict[str, Any]]:
    derived = questionnaire.derived_answers(answers)
    groups = []
    for step in questionnaire.STEPS:
        rows = []
        for key in step.keys:
            question = questionnaire.QUESTIONS[key]
            if key in answers:
                rows.append((_(question.label), question.display(answers[key])))
            elif key in derived:
                shown = _("%(value)s (from the steady base and the time at the peak)") % {
                    "value": question.display(derived[key])
                }
                rows.append((_(question.label), shown))
        groups.append({"step": _(step.title), "slug": step.slug, "rows": rows})
    return groups


def _summary(outcome: str | None) -> str:
    return _(OUTCOME_SUMMARIES[outcome]) if outcome in OUTCOME_SUMMARIES else ""


def result_context(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    """What the result page and the report show: computed once per scored result and
    language and currency (decider/caching.py), and every time for a what-if trial."""
    key = caching.scored_key(assessment, get_language() or "en", currency)
    shown = caching.scored(key, lambda: _scored_context(assessment, currency=currency))
    return {
        "assessment": assessment,
        **shown,
        "kept": caching.Kept(key),
        "progress": progress(assessment.answers, None),
        "first_step": questionnaire.STEPS[0].slug,
    }


def _scored_context(assessment: Assessment, *, currency: str) -> dict[str, Any]:
    decision = assessment_decision(assessment, currency=currency)
    result, costs, odds, plan = decision.result, decision.costs, decision.odds, decision.plan
    outcomes = _outcomes_explained(result)
    # With growth the verdict reads the plan over that future, not the tables' today.
    basis = decision.basis
    recommendation = result.recommendation
    runner_up = next(
        (o["key"] for o in outcomes if o["key"] != recommendation and not o["excluded"]), None
    )
    migration = {**costs["migration"], "currency": currency}
    sensitivity = sensitivity_summary(decision)
    note_items = cost_note_items(costs)
    notes = [text for _kind, text in note_items]
    totals = _total_rows(costs)
    return {
        "result": result,
        "recommendation": recommendation,
        "recommendation_name": outcome_name(recommendation),
        "recommendation_summary": _summary(recommendation),
        "score_sentence": score_sentence(
            score=result.scores[recommendation] if recommendation else 0,
            margin=result.margin,
            runner_up=runner_up,
            cost_order=assessment.derived.get(scoring.COST_ORDER) or [],
        ),
        "outcomes": outcomes,
        "costs": costs,
        "currency": currency,
        "charts": charts_for(costs, recommended=recommendation, odds=odds, plan=plan),
        "odds": summary.basis_odds(
            summary.odds_summary(odds), basis, (plan.get("odds") or {}).get("draws", 0)
        ),
        "plan": _plan_shown(plan, currency),
        "decision_plan": plan_line(decision),
        "verdict_line": verdict_line(decision),
        "break_even_lines": break_even_lines(decision),
        "at_a_glance": options_at_glance(decision),
        "checklist": checklist_for(
            recommendation,
            assessment.answers,
            migration,
            bursts_per_token=decision.bursts_per_token,
        ),
        "answers_table": answers_table(assessment.answers),
        "totals": totals,
        "yearly_rows": _yearly_rows(costs),
        "cost_notes": notes,
        "sensitivity": sensitivity,
        "summary": _summary_shown(
            assessment,
            decision,
            runner_up=runner_up,
            sensitivity=sensitivity,
            note_items=note_items,
            currency=currency,
        ),
        "assumption_rows": _figure_rows(costs, overrides=assessment.answers.get("costs", {})),
        "api": _api_shown(costs, currency),
    }


def _plan_shown(plan: dict[str, Any], currency: str) -> dict[str, Any]:
    """The plan in stages as the page shows it: its data, its sentences and its choices."""
    return {
        "data": plan,
        "sentence": plan_sentence(plan),
        "stages": summary.plan_stages(plan),
        "wait": summary.wait_summary(
            plan["wait"], currency, cloud_only=plan["present_value"]["cloud_only"]
        ),
        "odds": summary.plan_odds_sentence(plan.get("odds"), currency),
        "workloads": summary.workloads_summary(plan, currency),
        "generation": summary.generation_summary(
            plan.get("generation"), currency, chosen=plan.get("chosen_present_value")
        ),
    }


def _summary_shown(
    assessment: Assessment,
    decision: Decision,
    *,
    runner_up: str | None,
    sensitivity: Mapping[str, Any],
    note_items: list[tuple[str, str]],
    currency: str,
) -> dict[str, Any]:
    """The executive summary (decider/summary.py) of a scored assessment."""
    result, costs, plan, basis = decision.result, decision.costs, decision.plan, decision.basis
    recommendation = result.recommendation
    language = get_language() or "en"
    scored = (assessment.scored_at or timezone.now()).date()
    return {
        "options": summary.option_figures(
            costs, recommendation, compared=list(basis["present_value"]) if basis else None
        ),
        "runner_up": outcome_name(runner_up) if runner_up else None,
        "flips": summary.what_would_flip(sensitivity, costs),
        "deciding": summary.deciding_answers(result, runner_up, language),
        **_what_it_costs(decision, currency, language),
        "basis": summary.basis_sentence(basis),
        "provider": summary.provider_sentence(costs, currency),
        "owned_hour": summary.owned_hour_sentence(costs, currency),
        "per_hour_label": summary.per_hour_label(costs),
        "api": summary.api_sentence(costs, currency),
        "pooling": summary.pooling_sentence(plan, currency),
        "risks": summary.risks(
            result=result,
            runner_up=runner_up,
            costs=costs,
            notes=note_items,
            language=language,
        ),
        "next_steps": next_steps(
            decision,
            start=scored,
            first_owned=first_owned(plan) if basis else None,
            residency=assessment.answers.get("residency", "none"),
        ),
        "price_dates": summary.price_dates(costs),
        "scored": scored,
        "firmness": firmness_shown(decision),
    }


def _what_it_costs(decision: Decision, currency: str, language: str) -> dict[str, str | None]:
    """The summary's two money sentences: what the headline costs over the cheapest allowed
    option, and what a hard constraint costs when it rules out the cheapest."""
    return {
        # The verdict line above it states the difference; this names what carries it.
        "extra_cost": summary.extra_cost_sentence(decision.extra_cost, currency, amount=False),
        "constraint_cost": summary.constraint_cost_sentence(
            decision.constraint_cost_in(language), currency
        ),
    }


def _total_rows(costs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each cost option's plain total and present value; options the constraints rule out marked."""
    compared = costs["options_compared"]
    rows = []
    for key in COST_OPTIONS:
        outcome = "cloud" if key.startswith("cloud") else key
        label = cost_option_label(key)
        if costs.get("demand_grows") and key in ("hybrid", "cloud_committed"):
            label = f"{label} ({summary.option_detail(costs, key)})"
        elif key == "hybrid":
            label = ngettext(
                "%(label)s (own %(gpus)s GPU)",
                "%(label)s (own %(gpus)s GPUs)",
                costs["hybrid_owned_gpus"],
            ) % {"label": label, "gpus": costs["hybrid_owned_gpus"]}
        elif key == "cloud_committed":
            label = ngettext(
                "%(label)s (%(gpus)s GPU committed)",
                "%(label)s (%(gpus)s GPUs committed)",
                costs["cloud_committed_gpus"],
            ) % {"label": label, "gpus": costs["cloud_committed_gpus"]}
        rows.append(
            {
                "key": key,
                "label": label,
                "total": costs["totals"][key],
                "present_value": costs["present_value"][key],
                "compared": outcome in compared,
            }
        )
    if costs.get("api") and API in costs.get("yearly", {}):
        rows.append(
            {
                "key": API,
                "label": cost_option_label(API),
                "total": costs["totals"][API],
                "present_value": costs["present_value"][API],
                "compared": True,  # priced only where it is offered (hosted.api_section)
            }
        )
    return rows


def _yearly_rows(costs: Mapping[str, Any]) -> list[list[Any]]:
    """Year by year, each option's spending: the columns of the totals table (the per-token
    outcome among them when it is priced)."""
    keys = [row["key"] for row in _total_rows(costs)]
    years = len(costs["yearly"]["onprem"])
    return [[year + 1] + [costs["yearly"][key][year] for key in keys] for year in range(years)]


def cost_notes(costs: Mapping[str, Any]) -> list[str]:
    """What a reader of the cost section must not miss, in sentences."""
    return [text for _kind, text in cost_note_items(costs)]


def cost_note_items(costs: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The cost notes, each with what it is about: "rule_of_thumb", "growth", "provider",
    "estimate", "unofficial",
    "fleet", "financing", "delay" and "hires" (the three about owning), "present_value"."""
    found = [
        _rule_of_thumb_note(costs),
        _growth_note(costs),
        _provider_note(costs),
        _estimate_note(costs),
        _unofficial_note(costs),
        _fleet_note(costs),
        _fleet_not_priced_note(costs),
        _financing_note(costs),
        _delay_note(costs),
        _hires_note(costs),
        _present_value_note(costs),
    ]
    return [note for note in found if note is not None]


def _rule_of_thumb_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """When the cheapest option is not the one the source's rule of thumb expects."""
    if not (against := costs.get("against_rule_of_thumb")):
        return None
    figure = (
        FIGURES[against["figure"]].label.get(get_language() or "en") if against["figure"] else ""
    )
    return (
        "rule_of_thumb",
        _(
            "At %(pct)s %% average utilization the source's rule of thumb favours "
            "%(expected)s, yet %(cheapest)s costs less here. The figure that decides it "
            "most is “%(figure)s”: check it against your own quotes."
        )
        % {
            "pct": f"{against['utilization_pct']:g}",
            "expected": outcome_name(against["expected"]),
            "cheapest": cost_option_label(against["cloud_mode"])
            if against["cheapest"] == "cloud"
            else outcome_name(against["cheapest"]),
            "figure": figure,
        },
    )


def _growth_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """When demand grows: which figures follow the growth and which are today's."""
    if not costs.get("demand_grows"):
        return None
    return (
        "growth",
        _(
            "Demand grows in your answers: these totals price each option over that "
            "growth, as the plan in stages does. The cost per useful GPU-hour by "
            "utilization, the sensitivity and the odds' bands are for today's demand."
        ),
    )


def _provider_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """Whom the cloud is rented from, when the answers asked for a provider, and what the
    runner-up would cost."""
    if costs.get("provider_unlisted"):
        return (
            "provider",
            _(
                "No listed provider of the kind your answers allow rents this GPU model in "
                "this market: the cloud is priced at the market's typical price."
            ),
        )
    if not (provider := costs.get("provider")):
        return None
    language = get_language() or "en"
    values = {
        "provider": summary.provider_name(provider, language),
        "kind": PROVIDER_KINDS[provider["kind"]].get(language)
        if provider["kind"] in PROVIDER_KINDS
        else "",
        "value": formats.money(provider["present_value"], costs["currency"]),
    }
    sep = "" if is_chinese(language) else " "  # Chinese sentences follow one another
    if provider.get("ruled_out"):
        text = _(
            "Your answers rule renting out; the cloud options are shown at the price they "
            "would be rented at: %(provider)s's list prices (%(kind)s), the cheapest listed "
            "provider, %(value)s in present value."
        )
    else:
        text = _(
            "The cloud is priced at %(provider)s's list prices (%(kind)s), the cheapest "
            "provider your answers allow: %(value)s in present value."
        )
    if runner_up := costs.get("provider_runner_up"):
        values |= {
            "runner_up": summary.provider_name(runner_up, language),
            "runner_up_value": formats.money(runner_up["present_value"], costs["currency"]),
            "more": formats.money(
                runner_up["present_value"] - provider["present_value"], costs["currency"]
            ),
        }
        text += sep + _(
            "The runner-up, %(runner_up)s, would cost %(runner_up_value)s (%(more)s more)."
        )
    else:
        text += sep + _("No other provider your answers allow rents this GPU model.")
    on_demand = costs.get("assumptions", {}).get("gpu_hour_on_demand")
    if on_demand and on_demand["source"] != OVERRIDE_SOURCE:  # the user's own: no date
        values["date"] = formats.month_text(on_demand["as_of"])
        if is_imported(on_demand["source"]):
            text += sep + _(
                "Its on-demand price as of %(date)s, imported from a public price source."
            )
        else:
            text += sep + _("Its on-demand price as of %(date)s, entered by hand from its source.")
    return ("provider", text % values)


def _estimate_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """When the cheapest cloud rests on estimated, not published, prices."""
    if not (estimated := costs.get("estimated_prices")):
        return None
    language = get_language() or "en"
    return (
        "estimate",
        _(
            "The cheapest cloud here (%(mode)s) is priced at %(figures)s: an estimate, "
            "not a published price (see “Cost figures used” for how it was derived). "
            "Ask providers for a quote before relying on it."
        )
        % {
            "mode": cost_option_label(costs["cheapest_cloud_mode"]),
            "figures": _(", ").join(f"“{FIGURES[name].label.get(language)}”" for name in estimated),
        },
    )


def _unofficial_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """When a price the result stands on came through an unofficial channel or a broker."""
    language = get_language() or "en"
    named = [
        f"“{FIGURES[name].label.get(language)}”"
        for name, data in costs["assumptions"].items()
        if name in FIGURES and is_unofficial(data["source"])
    ]
    if not named:
        return None
    return (
        "unofficial",
        _(
            "%(figures)s: a quote from an unofficial channel or a broker, not a seller's "
            "price (see “Cost figures used”); ask for an official quote before relying on it."
        )
        % {"figures": _(", ").join(named)},
    )


def _fleet_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """The GPUs of this model owned already: kept by the options that own, sold by the rest."""
    if not (fleet := costs.get("fleet")):
        return None
    return (
        "fleet",
        _(
            "You own %(gpus)s GPUs of this model already (%(age)s years old on average): "
            "the options that own keep them, with no purchase and no cloud while they "
            "are there; those that rent sell them today, for about %(value)s %(currency)s."
        )
        % {
            "gpus": f"{fleet['gpus']:,}",
            "age": f"{fleet['age_years']:.1f}",
            "value": f"{fleet['value_today']:,.0f}",
            "currency": costs["currency"],
        },
    )


def _fleet_not_priced_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """The GPUs owned of another model, which the comparison leaves out."""
    if not (others := costs.get("fleet_not_priced")):
        return None
    names = dict(questionnaire.GPU_MODELS)
    return (
        "fleet",
        _(
            "GPUs you own of another model are not priced (%(owned)s): the comparison "
            "is for one GPU model. Enter them as the assessment's GPU model to weigh them."
        )
        % {
            "owned": _(", ").join(
                f"{entry['gpus']:,} × {_(names.get(entry['gpu_model'], entry['gpu_model']))}"
                for entry in others
            )
        },
    )


def _financing_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """When owned hardware is financed rather than paid up front."""
    if not ((financing := costs.get("financing")) and financing["term_months"] > 0):
        return None
    return (
        "financing",
        _(
            "No capital up front: owned hardware is financed in monthly instalments "
            "over %(months)s months at %(rate)s %% a year, so it needs no capital up "
            "front and costs more in present value."
        )
        % {"months": financing["term_months"], "rate": f"{financing['rate'] * 100:g}"},
    )


def _delay_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """The wait for owned hardware that data which must stay cannot avoid."""
    if not costs.get("onprem_delay_months"):
        return None
    return (
        "delay",
        _(
            "Work on data that must stay cannot run in the cloud while the hardware "
            "arrives: its first jobs wait %(months)s months."
        )
        % {"months": f"{costs['onprem_delay_months']:g}"},
    )


def _hires_note(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    """The staff owning needs beyond the team there is."""
    if not costs.get("onprem_hires_fte"):
        return None
    return (
        "hires",
        _(
            "Owning needs %(fte)s FTE more than your team has; their pay and recruiting are "
            "in the on-premises cost, and they take %(months)s months to hire."
        )
        % {
            "fte": f"{costs['onprem_hires_fte']:g}",
            "months": f"{costs['assumptions']['hiring_months']['value']:g}",
        },
    )


def _present_value_note(costs: Mapping[str, Any]) -> tuple[str, str]:
    """How present values and totals are counted."""
    return (
        "present_value",
        _(
            "Present values discount later spending at %(rate)s %% a year (the cost of "
            "capital); the cost verdict compares them. Totals are plain sums in %(currency)s."
        )
        % {"rate": f"{costs['discount_rate'] * 100:g}", "currency": costs["currency"]},
    )


def _api_shown(costs: Mapping[str, Any], currency: str) -> dict[str, Any] | None:
    """A hosted model per token beside the GPU options (issue 36): the line, the price it is
    priced at, each option's cost per million tokens, and the chart by volume."""
    sentence = summary.api_sentence(costs, currency)
    if sentence is None:
        return None
    price = costs.get("api")
    per_million = costs.get("api_cost_per_m_tokens") or {}
    apart = costs.get("api_cost_per_m_tokens_apart") or {}
    return {
        "sentence": sentence,
        "price": price,
        "model_class": MODEL_CLASSES[price["model_class"]].get(get_language() or "en")
        if price
        else None,
        "per_million": [
            {
                "label": _("Per token (hosted model)") if key == "api" else cost_option_label(key),
                "value": value,
                **(apart.get(key) or {}),
            }
            for key, value in per_million.items()
        ],
        "apart": bool(apart),
        "chart": chart_api(dict(costs), sentence) if price and costs.get("api_curve") else None,
        "hybrid": per_token.hybrid_sentence(costs, currency),
    }


def _outcomes_explained(result: scoring.Result) -> list[dict[str, Any]]:
    """Each outcome's row with its warnings and the answers that pushed it: the
    recommendation first, then the others in play best first, then those the constraints
    rule out (a ruled-out option never leads "Why", whatever it scores)."""
    language = get_language() or "en"
    rows = sorted(
        outcome_rows(result),
        key=lambda row: (
            row["key"] != result.recommendation,
            bool(row["excluded"]),
            -row["score"],
        ),
    )
    for row in rows:
        drivers = result.drivers(row["key"])
        row |= {
            "summary": _summary(row["key"]),
            "warnings": [w.get(language) for w in result.warnings.get(row["key"], [])],
            "for": [_driver(c, language) for c in drivers["for"]],
            "against": [_driver(c, language) for c in drivers["against"]],
        }
    return rows


def _figure_rows(costs: Mapping[str, Any], *, overrides: Mapping[str, float]) -> list[dict]:
    """The cost figures used, by the name the page shows, with their unit in its language;
    a money figure also in the page's currency when that is not the price set's own."""
    language = get_language() or "en"
    prices_in = costs.get("prices_in", "USD")  # the price set's own currency
    shown_in = costs.get("currency", prices_in)
    rate = currency_rate(
        {name: float(data["value"]) for name, data in costs["assumptions"].items()},
        prices_in=prices_in,
        shown_in=shown_in,
    )
    chinese = is_chinese(language)
    rows = [
        {
            "name": name,
            "label": FIGURES[name].label.get(language),
            "overridden": name in overrides,
            "estimated": is_estimate(data["source"]),
            "unofficial": is_unofficial(data["source"]),
            "origin": (origin := _origin(data["source"], costs["assumptions"])),
            "imported": origin == "imported",
            # The stale tag's words, or "" while the figure is fresh.
            "stale": _stale_tag(
                data["as_of"],
                imported=origin == "imported" or (origin == "derived" and _read_daily(costs)),
            ),
            **data,
            "source": (data.get("source_zh") if chinese else None) or data["source"],
            "unit": FIGURES[name].unit_in(prices_in).get(language),
            "converted": _converted(float(data["value"]) * rate, shown_in)
            if shown_in != prices_in and FIGURES[name].kind == "money"
            else None,
        }
        for name, data in costs["assumptions"].items()
    ]
    return sorted(rows, key=lambda row: row["label"].casefold())


def _origin(source: str, figures: Mapping[str, Any]) -> str:
    """Where a figure's value came from: "imported" (read by refresh_prices and published),
    "derived" (from other prices: the market's index, or a provider's unpublished tier at
    the index's ratio), or "hand" (typed in by an admin from its dated source)."""
    if is_imported(source):
        return "imported"
    if source.startswith("Market index:") or (
        "derived as its on-demand price" in source and is_estimate(source)
    ):
        return "derived"
    return "hand"


def _read_daily(costs: Mapping[str, Any]) -> bool:
    """Whether the cloud's on-demand price, which derived prices rest on, was imported."""
    on_demand = costs["assumptions"].get("gpu_hour_on_demand") or {}
    return is_imported(on_demand.get("source", ""))


# A figure dated longer ago than this is tagged: prices move within a year (issue 51), and an
# imported price is read daily, so one a month old means its source stopped (issue 53).
STALE_AFTER_DAYS = 365
STALE_IMPORTED_AFTER_DAYS = 30


def _stale(as_of: str, *, imported: bool = False) -> bool:
    """Whether a figure's date is more than a year before today (30 days, if imported)."""
    try:
        dated = datetime.date.fromisoformat(as_of[:10])
    except ValueError:
        return False
    limit = STALE_IMPORTED_AFTER_DAYS if imported else STALE_AFTER_DAYS
    return (timezone.localdate() - dated).days > limit


def _stale_tag(as_of: str, *, imported: bool) -> str:
    """What the figures table tags a stale figure with ("" when it is not stale)."""
    if not _stale(as_of, imported=imported):
        return ""
    if imported:
        return _("stale: imported over %(days)d days ago") % {"days": STALE_IMPORTED_AFTER_DAYS}
    return _("over a year old")


def _converted(amount: float, currency: str) -> str:
    """A figure in the page's currency: cents below a thousand (a GPU-hour's price), whole
    units and 万 above (formats.money)."""
    if abs(amount) < 1000:
        return f"{symbol_of(currency)}{amount:,.2f}"
    return formats.money(amount, currency)


def _driver(contribution: scoring.Contribution, language: str) -> dict[str, Any]:
    return {
        "label": contribution.label.get(language),
        "answer": contribution.answer.get(language),
        "reason": contribution.reason.get(language),
        "points": contribution.points,
    }


def outcome_rows(result: scoring.Result) -> list[dict[str, Any]]:
    """Scores of one result in OUTCOMES order, for a side-by-side table."""
    language = get_language() or "en"
    return [
        {
            "key": outcome,
            "name": outcome_name(outcome),
            "score": result.scores[outcome],
            "recommended": outcome == result.recommendation,
            "excluded": result.excluded[outcome].get(language)
            if outcome in result.excluded
            else None,
        }
        for outcome in OUTCOMES
        if outcome in result.scores  # the per-token outcome, when the result weighs it
    ]


def outcome_pairs(
    old: scoring.Result, new: scoring.Result
) -> list[tuple[dict[str, Any] | None, dict[str, Any] | None]]:
    """Two results' rows side by side, outcome by outcome (None: that result does not weigh
    it, like the per-token outcome before it existed)."""
    rows = [{row["key"]: row for row in outcome_rows(found)} for found in (old, new)]
    return [
        (rows[0].get(outcome), rows[1].get(outcome))
        for outcome in OUTCOMES
        if outcome in rows[0] or outcome in rows[1]
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
            "unit": FIGURES[name].unit.get(get_language() or "en") if name in FIGURES else "",
            "source": figure.source,
        }
        for name, figure in sorted(new.items())
        if name not in old or old[name]["value"] != figure.value
    ]


def _compare_column(assessment: Assessment, number: int, *, currency: str) -> dict[str, Any]:
    """One assessment's column: its recommendation, verdict and plan, its scores, its costs
    and each outcome's present value as its verdict reads it."""
    result = assessment.scoring_result()
    assert result is not None, "compare scored assessments"
    decision = assessment_decision(assessment, currency=currency)
    verdict = verdict_line(decision)
    return {
        "assessment": assessment,
        "title": assessment.name or _("Assessment %(number)s") % {"number": number},
        "recommendation": outcome_name(result.recommendation),
        "verdict": verdict["sentence"] if verdict else "—",
        "plan": plan_line(decision)["sentence"],
        "outcomes": outcome_rows(result),
        "costs": decision.costs,
        "present": {o: decision.present[o] for o in decision.order},
    }


def compare_context(assessments: list[Assessment], *, currency: str) -> dict[str, Any]:
    """Answers (differences marked), scores, recommendations, totals and overlaid costs."""
    columns = [
        _compare_column(assessment, number, currency=currency)
        for number, assessment in enumerate(assessments, start=1)
    ]
    answer_rows = []
    for key, question in questionnaire.QUESTIONS.items():
        values = [a.answers.get(key) for a in assessments]
        answer_rows.append(
            {
                "label": _(question.label),
                "values": [question.display(v) if v is not None else "—" for v in values],
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
        {"label": cost_option_label(key), "values": [c["costs"]["totals"][key] for c in columns]}
        for key in COST_OPTIONS
    ]
    # Each outcome's present value as that assessment's verdict reads it (the plan, over its
    # own future): the figure a growth scenario and its original differ by.
    present_rows = [
        {"label": outcome_name(outcome), "values": [c["present"].get(outcome) for c in columns]}
        for outcome in OUTCOMES
        if any(outcome in c["present"] for c in columns)
    ]
    cells = [{row["key"]: row for row in c["outcomes"]} for c in columns]
    score_rows = [
        {"name": outcome_name(outcome), "cells": [found.get(outcome) for found in cells]}
        for outcome in OUTCOMES
        if any(outcome in found for found in cells)
    ]
    return {
        "columns": columns,
        "score_rows": score_rows,
        "answer_rows": answer_rows,
        "totals": totals,
        "present_rows": present_rows,
        "currency": currency,
        "chart": chart_compare(
            [(c["title"], c["costs"]) for c in columns],
            recommended=[c["assessment"].scoring_result().recommendation for c in columns],
        ),
    }


def json_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def sensitivity_summary(decision: Decision) -> dict[str, Any]:
    """Per criterion: how far its weight must move to change the recommendation.

    From the rule set the assessment is pinned to and the answers it was scored with
    (derived ones included, engine/decided.py), so it explains the result shown.
    """
    if decision.weights is None:
        return {}
    language = get_language() or "en"
    rows = []
    for item in decision.weights:
        moves = [
            abs(1 - factor) for factor in (item.down_factor, item.up_factor) if factor is not None
        ]
        rows.append(
            {
                "label": item.label.get(language),
                "weight": item.weight,
                "down_factor": item.down_factor,
                "down_to": outcome_name(item.down_to),
                "up_factor": item.up_factor,
                "up_to": outcome_name(item.up_to),
                "closest": min(moves) if moves else None,
            }
        )
    rows.sort(key=lambda r: (r["closest"] is None, r["closest"] or 0, r["label"]))
    return {
        "flips": [r for r in rows if r["closest"] is not None],
        "steady": [r["label"] for r in rows if r["closest"] is None],
    }


# --- sizing from the work ---------------------------------------------------------------

# The sizing's arithmetic, line by line (engine/sizing.py's TRAIN_LINES and INFER_LINES).
SIZING_LINES = {
    "train_flops": gettext_noop(
        "FLOPs one training run needs (6 × parameters active per token × tokens)"
    ),
    "train_mfu": gettext_noop("Share of the BF16 peak a run achieves (MFU)"),
    "train_goodput": gettext_noop("Share of the run's time doing useful work (goodput)"),
    "train_gpu_hours": gettext_noop(
        "GPU-hours one run needs at that share, faster in FP8, with the time lost"
    ),
    "train_gpus_for_time": gettext_noop("GPUs to finish a run in the days given"),
    "train_gpus_for_memory": gettext_noop("GPUs to hold the training state (16 bytes a parameter)"),
    "train_gpus": gettext_noop("GPUs for training, in whole nodes"),
    "train_days": gettext_noop("Days a run takes on them"),
    "train_busy_share": gettext_noop("Share of the year training runs"),
    "infer_tokens_per_second": gettext_noop("Tokens a second, on average"),
    "infer_input_tokens_per_second": gettext_noop("of which input (prompt) tokens"),
    "infer_output_tokens_per_second": gettext_noop("of which output (answer) tokens"),
    "infer_prefill_rate": gettext_noop("Input tokens one GPU reads a second (published table)"),
    "infer_decode_rate": gettext_noop(
        "Output tokens one GPU writes a second at this request length (published table)"
    ),
    "infer_latency_share": gettext_noop("Share of that rate the latency target leaves"),
    "infer_gpus_per_replica": gettext_noop("GPUs one copy of the model needs"),
    "infer_average_gpus": gettext_noop("GPUs at the average hour"),
    "infer_gpus": gettext_noop("GPUs at the busiest hour, in whole copies"),
    "infer_base_gpus": gettext_noop("GPUs at the quietest hour"),
}
SIZING_PROBLEMS = {
    "memory": gettext_noop(
        "The model's weights do not fit in one node: it must be split across nodes."
    ),
    "latency": gettext_noop("The latency target needs more memory bandwidth than one node has."),
    "fp8": gettext_noop("This GPU model has no FP8 tensor cores: sized in BF16."),
}
SHARE_LINES = ("train_busy_share", "train_mfu", "train_goodput", "infer_latency_share")


def sizing_shown(sized: Any) -> dict[str, Any]:
    """The sizing as the page shows it: the demand it gives and its arithmetic, in words."""
    lines = []
    for line in sized.lines:
        value = line["value"]
        if line["key"] in SHARE_LINES:
            shown = f"{value * 100:.1f} %"
        elif isinstance(value, float) and (abs(value) >= 1e6 or 0 < abs(value) < 0.01):
            shown = f"{value:.3g}"
        elif isinstance(value, float):
            shown = f"{value:,.1f}"
        else:
            shown = f"{value:,}"
        lines.append({"label": _(SIZING_LINES[line["key"]]), "value": shown})
    return {
        "gpus": sized.gpus,
        "base_gpus": sized.base_gpus,
        "peak_share_pct": sized.peak_share_pct,
        "average_gpus": round(sized.average_gpus, 1),
        "lines": lines,
        "problems": [_(SIZING_PROBLEMS[p]) for p in sized.problems if p in SIZING_PROBLEMS],
        "throughput": sized.throughput and _throughput_words(sized.throughput),
    }


def _throughput_words(table: dict[str, Any]) -> dict[str, Any]:
    """The published rows serving was sized from, with their shares in per cent."""
    shown = {**table, "fit_pct": round(table["fit_within"] * 100)}
    latency = table.get("latency")
    if latency:
        pairs = latency["pairs"]
        shown["latency"] = {
            **latency,
            "share_pct": round(latency["share"] * 100),
            "tpot_ms": f"{latency['tpot_ms']:g}",
            "measured": "; ".join(
                f"{p['system']} {p['interactive_tokens_per_second']:,.0f} / "
                f"{p['server_tokens_per_second']:,.0f}"
                for p in pairs
            ),
            "sources": "; ".join(dict.fromkeys(p["source"] for p in pairs)),
        }
    return shown


# --- the printable report -------------------------------------------------------------


def report_context(
    assessment: Assessment, *, token: str, kind: str, currency: str, paper: str
) -> dict[str, Any]:
    """What the printable report shows, read through the link `token` of `kind`."""
    context = result_context(assessment, currency=currency)
    context |= {
        "token": token,
        "kind": kind,
        "paper": paper_of(paper),
        "pdf_url": reverse(f"decider-{kind}-pdf", args=[token]),
    }
    return context


def report_page_html(
    assessment: Assessment, *, token: str, kind: str, language: str, currency: str, paper: str
) -> str:
    """The printable report for the PDF, rendered where the PDF is printed (the worker), as
    the person who asked would read it: their link, language, currency and paper."""
    request = HttpRequest()
    request.method = "GET"
    request.path = request.path_info = reverse(f"decider-{kind}-report", args=[token])
    request.GET = QueryDict(urlencode({"paper": paper, "currency": currency}))
    request.session = {}  # type: ignore[assignment]  # the preferences are the page's own
    with translation.override(language):
        context = report_context(assessment, token=token, kind=kind, currency=currency, paper=paper)
        context["for_pdf"] = True
        return render(request, "decider/report.html", context).content.decode()
