"""The executive summary: the decision first, then the numbers a CTO takes to a budget meeting.

Presentation only, built from what the scoring, the cost model and the weight sensitivity have
already computed; nothing here decides anything.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.utils.formats import date_format
from django.utils.translation import get_language, gettext_noop, ngettext
from django.utils.translation import gettext as _

from decider.engine import scoring
from decider.engine.figures import FIGURES
from decider.engine.outcomes import COST_OPTIONS, cost_option_label, outcome_name
from decider.engine.questionnaire import GPU_MODELS
from decider.engine.ranges import SPREADS
from decider.engine.text import Text, is_chinese
from decider.engine.vocabulary import TIER_LABELS
from decider.formats import money, month_text, small_price, tokens_text

# Breakdown lines paid before the first job runs: the capital to ask for.
UPFRONT_LINES = ("servers", "network", "storage", "spares", "setup")
OWNED_OPTIONS = ("onprem", "hybrid")


@dataclass(frozen=True)
class OptionFigures:
    key: str
    label: str
    detail: str  # how many GPUs it owns or commits, where that is its own choice
    compared: bool  # False: the constraints rule it out; priced for reference only
    recommended: bool
    present_value: float
    total: float
    run_rate: float | None  # a month of running costs once running (late in the horizon)
    upfront: float
    break_even_month: int | None  # owned options: the month it catches up with on demand
    resale_only: bool  # … only because the hardware is sold in the last month
    per_useful_hour: float | None

    owned: bool = False  # it buys hardware (a hybrid that owns no GPU does not)


@dataclass(frozen=True)
class NextStep:
    text: str
    by: datetime.date


def option_figures(
    costs: Mapping[str, Any],
    recommendation: str | None,
    *,
    compared: Sequence[str] | None = None,
) -> list[OptionFigures]:
    """Each cost option's figures; `compared`: the outcomes the verdict weighed, when not the
    tables' own (demand that grows: the plan's, engine/verdict.py)."""
    weighed = costs["options_compared"] if compared is None else compared
    # Each total over the GPU-hours of work of the same months (as the demand grows, if it
    # does): never a grown total over today's hours.
    useful_hours = costs["useful_gpu_hours"]
    rows = []
    for key in COST_OPTIONS:
        lines = costs["breakdown"][key]
        outcome = "cloud" if key.startswith("cloud") else key
        # Of the cloud options, the cheapest mode stands for a recommended cloud.
        recommended = outcome == recommendation and (
            outcome != "cloud" or key == costs.get("cheapest_cloud_mode")
        )
        break_even, resale_only = _break_even(costs, key)
        rows.append(
            OptionFigures(
                key=key,
                label=cost_option_label(key),
                detail=option_detail(costs, key),
                compared=outcome in weighed,
                recommended=recommended,
                present_value=costs["present_value"][key],
                total=costs["totals"][key],
                run_rate=_steady_month(costs["cumulative"][key]),
                upfront=sum(lines.get(line, 0.0) for line in UPFRONT_LINES),
                break_even_month=break_even,
                resale_only=resale_only,
                per_useful_hour=(
                    costs["totals"][key] / (useful_hours * costs.get("h100_equivalent", 1.0))
                    if useful_hours
                    else None
                ),
                owned=_owns(costs, key),
            )
        )
    if api := _api_figures(costs, recommendation):
        rows.append(api)
    return rows


def _api_figures(costs: Mapping[str, Any], recommendation: str | None) -> OptionFigures | None:
    """The per-token option's column, when it is priced: nothing owned, nothing up front, a
    bill that follows the tokens (no steady month, no GPU-hour)."""
    if not costs.get("api"):
        return None
    return OptionFigures(
        key="api",
        label=cost_option_label("api"),
        detail=costs["api"]["provider"],
        compared=True,  # priced only where offered (hosted.api_section)
        recommended=recommendation == "api",
        present_value=costs["present_value"]["api"],
        total=costs["totals"]["api"],
        run_rate=None,
        upfront=0.0,
        break_even_month=None,
        resale_only=False,
        per_useful_hour=None,
    )


def option_detail(costs: Mapping[str, Any], key: str) -> str:
    """What an option holds, beside its name: the GPUs owned or committed."""
    # With demand that grows, the hybrid and the commitment follow the plan in stages.
    grows = costs.get("demand_grows")
    if key == "hybrid":
        if grows:
            return _("owns in stages, as the plan")
        gpus = costs["hybrid_owned_gpus"]
        return ngettext("owns %(gpus)s GPU", "owns %(gpus)s GPUs", gpus) % {"gpus": gpus}
    if key == "cloud_committed":
        if grows:
            return _("committed as demand grows")
        gpus = costs["cloud_committed_gpus"]
        return ngettext("%(gpus)s GPU committed", "%(gpus)s GPUs committed", gpus) % {"gpus": gpus}
    return ""


def _owns(costs: Mapping[str, Any], key: str) -> bool:
    owned = costs["hybrid_owned_gpus"] > 0 or costs.get("demand_grows")
    return key == "onprem" or (key == "hybrid" and bool(owned))


def _steady_month(cumulative: Sequence[float]) -> float:
    """The spending of a month late in the horizon: after the set-up, before the resale."""
    if len(cumulative) < 3:
        return cumulative[-1] - cumulative[0]
    return cumulative[-2] - cumulative[-3]


def _break_even(costs: Mapping[str, Any], key: str) -> tuple[int | None, bool]:
    """The first month an owned option's cumulative cost is no more than renting on demand,
    and whether it gets there only by the resale credited in the last month."""
    if not _owns(costs, key):
        return None, False
    cloud = costs["cumulative"]["cloud_on_demand"]
    mine = list(costs["cumulative"][key])
    with_resale = _first_at_or_below(mine, cloud)
    mine[-1] -= costs["breakdown"][key].get("residual", 0.0)  # the credit (≤ 0) taken back
    without = _first_at_or_below(mine, cloud)
    if without is not None:
        return without, False
    return with_resale, with_resale is not None


def _first_at_or_below(mine: Sequence[float], other: Sequence[float]) -> int | None:
    pairs = enumerate(zip(mine, other, strict=True))
    return next((month for month, (a, b) in pairs if a <= b + 1e-6), None)


def deciding_answers(
    result: scoring.Result, runner_up: str | None, language: str, *, limit: int = 3
) -> list[dict[str, Any]]:
    """The answers that set the recommendation furthest apart from the runner-up."""
    recommendation = result.recommendation
    if recommendation is None:
        return []
    by_criterion: dict[str, dict[str, scoring.Contribution]] = {}
    for c in result.contributions:
        by_criterion.setdefault(c.criterion, {})[c.outcome] = c
    rows: list[dict[str, Any]] = []
    for outcomes in by_criterion.values():
        mine = outcomes.get(recommendation)
        if mine is None:
            continue
        other = outcomes.get(runner_up) if runner_up else None
        lead = mine.points - (other.points if other else 0.0)
        if lead > 0:
            rows.append(
                {
                    "label": mine.label.get(language),
                    "answer": mine.answer.get(language),
                    "reason": mine.reason.get(language),
                    "lead": round(lead, 1),
                }
            )
    rows.sort(key=lambda row: -float(row["lead"]))
    return rows[:limit]


# How firm a recommendation is, by one rule over three readings (issue 34): the score margin
# (points on the 0-100 scale), the closest weight change that flips it (as a share of its
# weight: 0.25 is a quarter more or less) and, when it is the cheapest, the share of the
# odds' draws in which it stays the cheapest.
FIRM_MARGIN, CLOSE_MARGIN = 15.0, 5.0
FIRM_FLIP, CLOSE_FLIP = 0.5, 0.25
FIRM_ODDS, CLOSE_ODDS = 0.8, 0.5
FIRMNESS_WORDS = {
    "firm": gettext_noop("Firm"),
    "leaning": gettext_noop("Leaning"),
    "close_call": gettext_noop("Close call"),
}


FIRM_NEEDS_ODDS = 0.6  # "Firm" never stands beside a smaller share, unless an answer overrides
SURE_ODDS = 0.9  # "Close call" never stands beside a larger one


def firmness(
    *,
    margin: float | None,
    closest_flip: float | None,
    odds: float | None,
    runner: str | None = None,
    overriding: Sequence[str] = (),
) -> tuple[str, str]:
    """`firm`, `leaning` or `close_call`, and the reason in a line: one definition from the
    scores (the margin over the runner-up, how far the closest weight must move) and the money
    (the share of draws in which the recommendation is the cheapest). `closest_flip`: None
    when no weight between 0× and 3× changes it; `odds`: None when nothing was drawn;
    `runner`: the runner-up's name; `overriding`: the answers that set cost aside, when the
    recommendation is not the cheapest."""
    values = {
        "points": f"{margin or 0:g}",
        "runner": runner or _("the runner-up"),
        "share": percent_text(odds) if odds is not None else "",
        "pct": percent_text(closest_flip) if closest_flip is not None else "",
    }
    ahead = _("%(points)s points ahead of %(runner)s on the answers' score (0–100)") % values
    if overriding and odds is not None and odds < FIRM_NEEDS_ODDS:
        return "firm", _(
            "%(ahead)s. It is the cheapest in only %(share)s of the draws, and your answer "
            "that sets cost aside carries it: %(answers)s."
        ) % {**values, "ahead": ahead, "answers": _("; ").join(overriding)}
    doubts = _doubts(values, margin=margin, closest_flip=closest_flip, odds=odds)
    if doubts and (odds is None or odds <= SURE_ODDS):
        return "close_call", _("%(ahead)s, but %(why)s.") % {
            "ahead": ahead,
            "why": _("; ").join(doubts),
        }
    weak = _weaknesses(values, margin=margin, closest_flip=closest_flip, odds=odds)
    if weak:
        sure = (
            _("it is the cheapest in %(share)s of the draws") % values
            if odds is not None and odds > SURE_ODDS
            else None
        )
        return "leaning", _("%(ahead)s; %(why)s.") % {
            "ahead": ahead,
            "why": _("; ").join([*weak, *([sure] if sure else [])]),
        }
    return "firm", _(
        "%(ahead)s; no single weight within half to one and a half times its value changes "
        "it%(money)s."
    ) % {
        "ahead": ahead,
        "money": _(", and it is the cheapest in %(share)s of the draws") % values
        if odds is not None
        else "",
    }


def _doubts(
    values: Mapping[str, str],
    *,
    margin: float | None,
    closest_flip: float | None,
    odds: float | None,
) -> list[str]:
    """What makes a recommendation a close call: a thin lead, a weight near its flip, poor
    odds."""
    found = []
    if (margin or 0) < CLOSE_MARGIN:
        found.append(_("the lead is under %(close)s points") % {"close": f"{CLOSE_MARGIN:g}"})
    if closest_flip is not None and closest_flip <= CLOSE_FLIP:
        found.append(_("one weight changed by %(pct)s would change it") % values)
    if odds is not None and odds < CLOSE_ODDS:
        found.append(_("it is the cheapest in only %(share)s of the draws") % values)
    return found


def _weaknesses(
    values: Mapping[str, str],
    *,
    margin: float | None,
    closest_flip: float | None,
    odds: float | None,
) -> list[str]:
    """What keeps a recommendation from firm: a lead under the firm margin, a weight within
    half its value of a flip, odds under the firm share."""
    found = []
    if (margin or 0) < FIRM_MARGIN:
        found.append(_("the margin is under %(firm)s points") % {"firm": f"{FIRM_MARGIN:g}"})
    if closest_flip is not None and closest_flip <= FIRM_FLIP:
        found.append(_("a weight changed by %(pct)s would change it") % values)
    if odds is not None and odds < FIRM_ODDS:
        found.append(_("it is the cheapest in %(share)s of the draws") % values)
    return found


def what_would_flip(sensitivity: Mapping[str, Any], costs: Mapping[str, Any]) -> list[str]:
    """The closest weight change that changes the recommendation, and the cost figure that
    moves the owning-versus-renting gap most."""
    sentences = []
    flips = sensitivity.get("flips") or []
    if flips:
        row = flips[0]
        use_down = row["down_factor"] is not None and (
            row["up_factor"] is None or abs(1 - row["down_factor"]) <= abs(1 - row["up_factor"])
        )
        factor, to = (
            (row["down_factor"], row["down_to"]) if use_down else (row["up_factor"], row["up_to"])
        )
        sentences.append(
            _("If “%(criterion)s” weighed %(factor)s× its weight, %(to)s would be recommended.")
            % {"criterion": row["label"], "factor": f"{factor:.2f}", "to": to}
        )
    elif sensitivity:
        sentences.append(_("No single weight changes it anywhere between 0× and 3× its value."))
    if costs.get("sensitivity") and len(costs["options_compared"]) > 1:
        top = costs["sensitivity"][0]
        gap = costs["totals"]["onprem"] - costs["totals"]["cloud_on_demand"]
        figure = FIGURES[top["name"]].label.get(_language()) if top["name"] in FIGURES else ""
        reverses = any(gap * (gap + delta) < 0 for delta in (top["low"], top["high"]))
        # This gap is owning every GPU against renting them all on demand, not the verdict's
        # (the recommendation against its runner-up): it says which and how large it is.
        sentences.append(
            (
                _(
                    "A 20 %% change in “%(figure)s” would reverse which costs less of owning "
                    "every GPU and renting them all on demand (%(gap)s apart in total today)."
                )
                if reverses
                else _(
                    "The cost figure that matters most is “%(figure)s”: 20 %% either way moves "
                    "the gap between owning every GPU and renting them all on demand (%(gap)s "
                    "in total) by %(delta)s, not enough to reverse it."
                )
            )
            % {
                "figure": figure,
                "gap": money(abs(gap), costs["currency"]),
                "delta": money(max(abs(top["low"]), abs(top["high"])), costs["currency"]),
            }
        )
    return sentences


@dataclass(frozen=True)
class Odds:
    """The odds as the summary states them (engine/odds.py computed them)."""

    sentence: str  # who is cheapest how often
    drivers: str  # what moves that most, or ""
    draws_text: str  # "10,000"
    seed: int
    ranges: list[dict[str, Any]]  # what was drawn, from what range, and why


def odds_summary(odds: Mapping[str, Any]) -> Odds | None:
    """Who costs least how often ("Hybrid costs least in 87 % of 10,000 draws…") and what
    drives it; None when fewer than two outcomes are compared (nothing to be unsure of)."""
    shares = odds["cheapest_probability"]
    if len(shares) < 2:
        return None
    ranked = sorted(shares, key=lambda outcome: -shares[outcome])
    leader = ranked[0]
    sentence = _(
        "%(leader)s costs least in %(share)s of %(draws)s draws of what is uncertain. "
        "The others: %(shares)s."
    ) % {
        "leader": _short(leader),
        "share": percent_text(shares[leader]),
        "draws": f"{odds['draws']:,}",
        "shares": _(", ").join(f"{_short(o)} {percent_text(shares[o])}" for o in ranked[1:]),
    }
    moving = [d for d in odds["drivers"] if abs(d["rank_correlation"]) >= 0.1][:2]
    drivers = ""
    if moving:
        drivers = _("What moves that most: %(names)s.") % {
            "names": _(", then ").join(_(SPREADS[d["name"]].label) for d in moving)
        }
    ranges = [
        {
            "label": _(SPREADS[name].label),
            "low": spread["low"],
            "high": spread["high"],
            "source": (is_chinese(_language()) and spread.get("source_zh")) or spread["source"],
            "as_of": spread["as_of"],
        }
        for name, spread in odds["ranges"].items()
    ]
    return Odds(sentence, drivers, f"{odds['draws']:,}", odds["seed"], ranges)


def plan_stages(plan: Mapping[str, Any]) -> list[str]:
    """Each stage of the staged plan with its month and the reason for it."""
    currency = plan["currency"]
    lines = []
    for stage in plan["stages"]:
        when = ngettext(
            "Month %(month)s (ordered in month %(ordered)s): own %(gpus)s GPU.",
            "Month %(month)s (ordered in month %(ordered)s): own %(gpus)s GPUs.",
            stage["owned_gpus"],
        ) % {
            "month": stage["month"],
            "ordered": stage["order_month"],
            "gpus": stage["owned_gpus"],
        }
        if stage["required_by_data"]:
            why = _("The work whose data may not leave the premises needs them.")
        else:
            why = _(
                "The steady base is then %(base)s GPUs of a peak of %(peak)s; without this "
                "stage the plan would cost %(amount)s more."
            ) % {
                "base": f"{stage['base_gpus']:g}",
                "peak": f"{stage['peak_gpus']:g}",
                "amount": money(stage["saves"], currency),
            }
        lines.append(f"{when} {why}")
    return lines


def wait_summary(
    wait: Mapping[str, Any], currency: str, *, cloud_only: float | None = None
) -> dict[str, Any] | None:
    """Buy now or wait, in words and rows; None when waiting is not a choice. `cloud_only`:
    the present value of renting throughout, when the data allows it."""
    options = wait["options"]
    if len(options) < 2:
        return None
    sentence = _wait_sentence(wait, currency, cloud_only=cloud_only)
    return {"sentence": sentence, "assumed": _wait_assumed(wait), "options": options}


def _wait_sentence(wait: Mapping[str, Any], currency: str, *, cloud_only: float | None) -> str:
    """Whether to buy now, after a wait, or not at all."""
    options = wait["options"]
    now = options[0]["present_value"]
    best = next(o for o in options if o["wait_months"] == wait["best_wait_months"])
    if cloud_only is not None and cloud_only < best["present_value"]:
        return _(
            "Neither: renting throughout costs less than buying the %(gpus)s GPUs now or after "
            "any of these waits (%(cloud)s against %(best)s at best)."
        ) % {
            "gpus": wait["owned_gpus"],
            "cloud": money(cloud_only, currency),
            "best": money(best["present_value"], currency),
        }
    if best["wait_months"] == 0:
        return _(
            "Buy the %(gpus)s GPUs now: every wait costs more on these prices, and waiting is "
            "cheaper in at most %(share)s of the draws."
        ) % {
            "gpus": wait["owned_gpus"],
            "share": percent_text(max(o["cheaper_than_now_pct"] for o in options[1:]) / 100),
        }
    return _(
        "Waiting %(months)s months to buy the %(gpus)s GPUs, renting meanwhile, costs "
        "%(amount)s less than buying now, and less in %(share)s of the draws."
    ) % {
        "months": best["wait_months"],
        "gpus": wait["owned_gpus"],
        "amount": money(now - best["present_value"], currency),
        "share": percent_text(best["cheaper_than_now_pct"] / 100),
    }


def _wait_assumed(wait: Mapping[str, Any]) -> str:
    """The price falls the wait was priced with, and the GPU model's own path."""
    source = (is_chinese(_language()) and wait.get("source_zh")) or wait["source"]
    suggested = wait.get("suggested") or {}
    if wait.get("prices_from", "answers") == "held":
        # One future for every section: the model's path is offered, not applied unasked.
        return _(
            "Today's prices held, as in every section: your answers give no fall. The GPU "
            "model's own path is about %(cloud)s %% a year for cloud GPU-hours and "
            "%(hardware)s %% for servers (%(source)s); give them on the budget step to price "
            "them everywhere."
        ) % {
            "cloud": f"{suggested.get('cloud_fall_pct_per_year', 0):g}",
            "hardware": f"{suggested.get('hardware_fall_pct_per_year', 0):g}",
            "source": source,
        }
    return _(
        "Prices assumed to fall %(cloud)s %% a year for cloud GPU-hours and %(hardware)s "
        "%% a year for servers, as your answers give and every section prices them. "
        "The GPU model's own path: %(source)s."
    ) % {
        "cloud": f"{wait['cloud_fall_pct_per_year']:g}",
        "hardware": f"{wait['hardware_fall_pct_per_year']:g}",
        "source": source,
    }


def basis_sentence(basis: Mapping[str, Any] | None) -> str | None:
    """When demand grows: that the verdict weighs each option's plan over that future, with
    their present values; None when the tables' figures are the verdict's."""
    if not basis:
        return None
    currency = basis["currency"]
    parts = _("; ").join(
        _("%(outcome)s %(amount)s")
        % {"outcome": outcome_name(key), "amount": money(value, currency)}
        for key, value in sorted(basis["present_value"].items(), key=lambda item: item[1])
    )
    return _(
        "Demand grows in your answers: every option is priced over that future, as a plan "
        "(present value: %(parts)s); the cost per useful GPU-hour by utilization and the "
        "sensitivity below are for today's demand."
    ) % {"parts": parts}


def basis_odds(odds: Odds | None, basis: Mapping[str, Any] | None, draws: int) -> Odds | None:
    """The odds as the summary states them when the verdict read the plan: how often the
    cheapest outcome's plan costs least over the draws of growth and prices."""
    if odds is None or not basis or basis.get("probability") is None:
        return odds
    sentence = _(
        "%(outcome)s costs least in %(share)s of %(draws)s draws of demand growth and prices, "
        "each option's plan held as chosen."
    ) % {
        "outcome": outcome_name(basis["cheapest"]),
        "share": percent_text(basis["probability"]),
        "draws": f"{draws:,}",
    }
    return replace(odds, sentence=sentence, drivers="")


RUNS = {
    "owned": gettext_noop("on the owned GPUs"),
    "owned_and_cloud": gettext_noop("owned GPUs and the cloud"),
    "cloud": gettext_noop("in the cloud"),
    "apart": gettext_noop("apart, in a region of its own"),
}


def workloads_summary(plan: Mapping[str, Any], currency: str) -> dict[str, Any] | None:
    """Several workloads in one pool (engine/workloads.py): a sentence on the pool's
    utilization and what pooling saves, and a row per workload; None for one workload."""
    if not (placed := plan.get("workloads")) or not (pooling := plan.get("pooling")):
        return None
    alone = _("; ").join(
        _("%(name)s %(pct)s %%") % {"name": w["name"], "pct": f"{w['alone']['utilization_pct']:g}"}
        for w in placed
    )
    values = {
        "count": len(placed),
        "alone": alone,
        "amount": money(abs(pooling["saving"]), currency),
        "together": money(pooling["together_present_value"], currency),
        "apart": money(pooling["apart_present_value"], currency),
    }
    if plan.get("pooled_utilization_pct") is not None:
        sentences = [
            _(
                "Pooled, the owned GPUs of your %(count)s workloads are busy %(pct)s %% of the "
                "time; a cluster of each one's own, sized for its peak, would be busy: %(alone)s."
            )
            % (values | {"pct": f"{plan['pooled_utilization_pct']:g}"})
        ]
    else:
        sentences = [_("Pooled, the plan owns no GPUs: your %(count)s workloads rent.") % values]
    if pooling["saving"] >= 0:
        sentences.append(
            _(
                "Decided together, the cheapest plan costs %(amount)s less than the workloads "
                "decided apart (%(together)s against %(apart)s, present value)."
            )
            % values
        )
    else:
        sentences.append(
            _(
                "Decided together, the cheapest plan costs %(amount)s more than the workloads "
                "decided apart (%(together)s against %(apart)s, present value)."
            )
            % values
        )
    rows = [
        w | {"runs_shown": _(RUNS[w["runs"]]), "alone_outcome": outcome_name(w["alone"]["outcome"])}
        for w in placed
    ]
    return {"sentence": Text(en=" ", zh="").get(_language()).join(sentences), "rows": rows}


def pooling_sentence(plan: Mapping[str, Any], currency: str) -> str | None:
    """What deciding several workloads together saves, for the summary; None for one."""
    if not (pooling := plan.get("pooling")) or not plan.get("workloads"):
        return None
    values = {
        "count": len(plan["workloads"]),
        "amount": money(abs(pooling["saving"]), currency),
    }
    if pooling["saving"] >= 0:
        return (
            _("Your %(count)s workloads in one pool cost %(amount)s less than decided apart.")
            % values
        )
    return (
        _("Your %(count)s workloads in one pool cost %(amount)s more than decided apart.") % values
    )


def per_hour_label(costs: Mapping[str, Any]) -> str:
    """The options table's cost per useful hour: per H100-equivalent hour for a GPU other
    than the H100 (a slower card is not flattered), and then it says so (issue 51)."""
    if costs.get("h100_equivalent", 1) != 1:
        return _("Per useful H100-equivalent hour")
    return _("Per useful GPU-hour")


def owned_hour_sentence(costs: Mapping[str, Any], currency: str) -> str | None:
    """What owning costs per GPU-hour of work (the rent while the servers arrive left out),
    beside the published tiers for this GPU model, with their source's date."""
    owned = costs.get("owned_per_used_gpu_hour")
    if owned is None:
        return None
    text = _(
        "Owning costs %(owned)s per used GPU-hour of this model, renting while the servers "
        "arrive left out."
    ) % {"owned": small_price(owned, currency)}
    tiers = costs.get("owned_hour_tiers") or []
    if not tiers:
        return text
    published = _(", ").join(
        _("%(amount)s %(what)s")
        % {"amount": small_price(t["per_hour"], currency), "what": _(TIER_LABELS[t["key"]])}
        for t in tiers
    )
    return (
        text
        + " "
        + _("Published for it (%(source)s, %(date)s): %(tiers)s.")
        % {
            "source": tiers[0]["publisher"],
            "date": month_text(tiers[0]["as_of"]),
            "tiers": published,
        }
    )


def provider_sentence(costs: Mapping[str, Any], currency: str) -> str | None:
    """Whom the cloud is rented from, against the market's typical price and the runner-up;
    None when it is priced at the market's figures."""
    if not (provider := costs.get("provider")) or provider.get("market_present_value") is None:
        return None
    language = _language()
    difference = provider["present_value"] - provider["market_present_value"]
    values = {
        "provider": provider_name(provider, language),
        "amount": money(abs(difference), currency),
    }
    if difference >= 0:
        text = _(
            "Renting from %(provider)s at its list prices costs %(amount)s more than at the "
            "market's typical price (present value)."
        )
    else:
        text = _(
            "Renting from %(provider)s at its list prices costs %(amount)s less than at the "
            "market's typical price (present value)."
        )
    sentences = [text % values]
    if runner_up := costs.get("provider_runner_up"):
        sentences.append(
            _("%(runner_up)s, the runner-up, would cost %(amount)s more.")
            % {
                "runner_up": provider_name(runner_up, language),
                "amount": money(runner_up["present_value"] - provider["present_value"], currency),
            }
        )
    return Text(en=" ", zh="").get(language).join(sentences)


def provider_name(provider: Mapping[str, Any], language: str) -> str:
    """A provider's name in `language` (the Chinese name where there is one)."""
    if is_chinese(language):
        return provider.get("name_zh") or provider["name"]
    return provider["name"]


def constraint_cost_sentence(found: Mapping[str, Any] | None, currency: str) -> str | None:
    """What the hard constraints cost, when an option they rule out is cheaper (its
    `constraint_cost_localized` shape); None otherwise."""
    if not found:
        return None
    return _(
        "%(constraint)s That rules out %(outcome)s, which would cost %(amount)s less than "
        "%(instead)s over %(months)s months in present value: %(pct)s of what %(instead)s "
        "costs."
    ) % {
        "constraint": found["constraint"],
        "outcome": outcome_name(found["outcome"]),
        "instead": outcome_name(found["instead"]),
        "amount": money(found["amount"], currency),
        "pct": percent_text(found["pct"] / 100) if found["pct"] is not None else "?",
        "months": found["horizon_months"],
    }


def extra_cost_sentence(
    extra: Mapping[str, Any] | None, currency: str, *, amount: bool = True
) -> str | None:
    """When the headline is not the cheapest allowed option: what it costs extra, and the
    answers that carry it (engine/verdict.py); None when it is the cheapest. `amount`: False
    where the verdict line beside it already states the difference."""
    if not extra:
        return None
    language = _language()

    def shown(text: Mapping[str, str]) -> str:
        return Text.from_dict(dict(text)).get(language)

    overriding = [item for item in extra["answers"] if item.get("overrides_cost")]
    # The others by name alone, two at most: the sentence sits in the summary's first block.
    others = [item for item in extra["answers"] if not item.get("overrides_cost")][:2]
    values = {
        "outcome": outcome_name(extra["outcome"]),
        "cheapest": outcome_name(extra["cheapest"]),
        "amount": money(extra["amount"], currency),
        "pct": percent_text(extra["pct"] / 100) if extra["pct"] is not None else "?",
        "months": extra["horizon_months"],
    }
    sentences = [
        _(
            "%(outcome)s costs %(amount)s (%(pct)s) more than %(cheapest)s over %(months)s "
            "months in present value."
        )
        % values
    ][: 1 if amount else 0]
    if overriding:
        sentences.append(
            _(
                "The gap is wide and sure enough to decide on its own; your answer that may "
                "override cost sets it aside: %(answers)s."
            )
            % {
                "answers": _("; ").join(
                    _("%(label)s (%(answer)s)")
                    % {"label": shown(item["label"]), "answer": shown(item["answer"])}
                    for item in overriding
                )
            }
        )
    if others:
        sentences.append(
            _("The answers that carry it: %(answers)s.")
            % {"answers": _("; ").join(shown(item["label"]) for item in others)}
        )
    # Chinese sentences run on without a space.
    return Text(en=" ", zh="").get(language).join(sentences)


def plan_odds_sentence(found: Mapping[str, Any] | None, currency: str) -> str | None:
    """How sure the plan in stages is, in one sentence; None when nothing can be owned."""
    if not found:
        return None
    shares = found["staged_cheaper_pct"]
    against = []
    if shares.get("cloud_only") is not None:
        against.append(
            _("than cloud only in %(share)s") % {"share": percent_text(shares["cloud_only"] / 100)}
        )
    if shares.get("commit_now") is not None:
        against.append(
            _("than owning the final base now in %(share)s")
            % {"share": percent_text(shares["commit_now"] / 100)}
        )
    pv = found["present_value"]["staged"]
    spread = _(
        "its present value lies between %(p10)s and %(p90)s in 8 draws of 10 (median %(p50)s)."
    ) % {key: money(pv[key], currency) for key in ("p10", "p50", "p90")}
    drawn = _(
        "Over %(draws)s draws of demand growth (%(low)s to %(high)s times the growth given) and "
        "of cloud and hardware prices"
    ) % {
        "draws": f"{found['draws']:,}",
        "low": f"{found['growth']['low']:g}",
        "high": f"{found['growth']['high']:g}",
    }
    if not against:
        return _("%(drawn)s, %(spread)s") % {"drawn": drawn, "spread": spread}
    return _("%(drawn)s, the plan costs less %(against)s of them; %(spread)s") % {
        "drawn": drawn,
        "against": _(" and less ").join(against),
        "spread": spread,
    }


def generation_summary(
    generation: Mapping[str, Any] | None, currency: str, *, chosen: float | None = None
) -> dict[str, Any] | None:
    """This generation or the next, in words and rows; None when it is no choice (no next
    generation modelled, or data that may not leave). `chosen`: the present value of the
    plan recommended, which prices the GPU model the answers chose; when the next
    generation does the work for less, `other_model` says so and how to weigh it."""
    if not generation or not generation["options"]:
        return None
    names = dict(GPU_MODELS)
    model = names.get(generation["model"], generation["model"])
    successor = generation["successor_name"]["zh" if is_chinese(_language()) else "en"]
    facts = {
        "gpus": generation["owned_gpus"],
        "model": model,
        "successor_gpus": generation["successor_gpus"],
        "successor": successor,
        "speed": f"{generation['speed']:g}",
    }
    return {
        "sentence": _generation_sentence(generation, facts, currency),
        "other_model": _other_model(generation, facts, currency, chosen=chosen),
        "worth": _generation_worth(generation, model, successor),
        "assumed": _generation_assumed(generation, successor),
        "options": _generation_rows(generation, model, successor),
        "worth_rows": generation["worth"],
        "model": model,
        "successor": successor,
        # Named as the registry dates it: "next" only for a model not shipping yet.
        "heading": _("This generation or the next?")
        if generation["ships_month"]
        else _("%(model)s or the newer %(successor)s?") % {"model": model, "successor": successor},
    }


def _successor_options(generation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The options that own the next generation."""
    return [o for o in generation["options"] if o["own"] == "successor"]


def _generation_sentence(
    generation: Mapping[str, Any], facts: Mapping[str, Any], currency: str
) -> str:
    """Which generation to own, and when, or neither."""
    # Renting throughout, on whichever generation does the work for less.
    cloud_only = (generation.get("rent_only") or {}).get("present_value")
    options = generation["options"]
    now = options[0]
    switches = _successor_options(generation)
    best = next(o for o in options if (o["own"], o["month"]) == tuple(generation["best"].values()))
    if cloud_only is not None and cloud_only < best["present_value"]:
        return _(
            "Neither: renting throughout, on whichever generation does the work for less, "
            "costs less than owning %(gpus)s %(model)s GPUs now or %(successor_gpus)s "
            "%(successor)s GPUs later (%(cloud)s against %(best)s at best)."
        ) % {
            **facts,
            "cloud": money(cloud_only, currency),
            "best": money(best["present_value"], currency),
        }
    if best["own"] == "current":
        cheapest = min(switches, key=lambda o: o["present_value"]) if switches else None
        return _(
            "Own %(gpus)s %(model)s GPUs now: renting until %(successor)s GPUs (%(speed)s× as "
            "fast for this work) can be owned costs %(amount)s more at best, and less in at "
            "most %(share)s of the draws."
        ) % {
            **facts,
            "amount": money(cheapest["present_value"] - now["present_value"], currency)
            if cheapest
            else "—",
            "share": percent_text(
                max((o["cheaper_than_current_pct"] for o in switches), default=0) / 100
            ),
        }
    values = {
        **facts,
        "month": best["month"],
        "amount": money(now["present_value"] - best["present_value"], currency),
        "share": percent_text(best["cheaper_than_current_pct"] / 100),
    }
    if best["month"] == now["month"]:  # it can be owned as soon as this one
        return (
            _(
                "Own %(successor_gpus)s %(successor)s GPUs (%(speed)s× as fast for this work) "
                "rather than %(gpus)s %(model)s GPUs, both from month %(month)s: %(amount)s less, "
                "and less in %(share)s of the draws."
            )
            % values
        )
    return (
        _(
            "Rent until month %(month)s, then own %(successor_gpus)s %(successor)s GPUs "
            "(%(speed)s× as fast for this work) rather than %(gpus)s %(model)s GPUs now: "
            "%(amount)s less, and less in %(share)s of the draws."
        )
        % values
    )


def _generation_worth(generation: Mapping[str, Any], model: str, successor: str) -> str:
    """Until when the GPUs owned now are worth running rather than renting the work."""
    if generation["outlived_month"] is not None:
        return _(
            "Owned now, the %(model)s GPUs cost more to run (power, space, upkeep, licences, "
            "their team) than renting the same work in the cloud from month %(month)s, on the "
            "cheaper generation per unit of speed: plan to resell them then."
        ) % {"model": model, "month": generation["outlived_month"]}
    return _(
        "Owned now, the %(model)s GPUs cost less to run than renting the same work in the "
        "cloud throughout the horizon, even once %(successor)s GPUs can be rented."
    ) % {"model": model, "successor": successor}


def _generation_assumed(generation: Mapping[str, Any], successor: str) -> str:
    """When the next generation can be bought, and the source that says so."""
    source = (is_chinese(_language()) and generation.get("source_zh")) or generation["source"]
    if generation["ships_month"]:
        return _("%(successor)s in volume in %(months)s months: %(source)s.") % {
            "successor": successor,
            "months": generation["ships_month"],
            "source": source,
        }
    return _("%(successor)s can be bought now: %(source)s.") % {
        "successor": successor,
        "source": source,
    }


def _generation_rows(
    generation: Mapping[str, Any], model: str, successor: str
) -> list[dict[str, Any]]:
    """Each option of the choice, named by the GPUs it owns; renting throughout last."""
    rows = [
        {
            "what": _("%(gpus)s %(model)s GPUs") % {"gpus": o["gpus"], "model": model}
            if o["own"] == "current"
            else _("%(gpus)s %(model)s GPUs") % {"gpus": o["gpus"], "model": successor},
            **o,
        }
        for o in generation["options"]
    ]
    if generation.get("rent_only"):
        rows.append(
            {"what": _("Rent throughout, on the cheaper generation"), **generation["rent_only"]}
        )
    return rows


def _other_model(
    generation: Mapping[str, Any],
    facts: Mapping[str, Any],
    currency: str,
    *,
    chosen: float | None,
) -> str | None:
    """When owning the next generation costs less than the plan recommended: by how much,
    and how to weigh it; None otherwise."""
    # The plan recommended prices the model the answers chose; the next one may do the work
    # for less, which only choosing it in the questionnaire weighs in every section.
    cheaper = min(_successor_options(generation), key=lambda o: o["present_value"], default=None)
    if chosen is not None and cheaper is not None and cheaper["present_value"] < chosen:
        return _(
            "Owning %(successor_gpus)s %(successor)s GPUs from month %(month)s costs "
            "%(amount)s less than the plan recommended (%(cheaper)s against %(chosen)s). The "
            "other sections price the %(model)s GPUs you chose: choose %(successor)s in the "
            "questionnaire to weigh it in all of them."
        ) % {
            **facts,
            "month": cheaper["month"],
            "amount": money(chosen - cheaper["present_value"], currency),
            "cheaper": money(cheaper["present_value"], currency),
            "chosen": money(chosen, currency),
        }
    return None


def _short(outcome: str) -> str:
    return _("Cloud") if outcome == "cloud" else cost_option_label(outcome)


def percent_text(share: float) -> str:
    """A share as a whole percentage, never "0 %" or "100 %" for what merely rounds."""
    pct = share * 100
    if 0 < pct < 1:
        return "< 1 %"
    if 99 < pct < 100:
        return "> 99 %"
    return f"{pct:.0f} %"


def risks(
    *,
    result: scoring.Result,
    runner_up: str | None,
    costs: Mapping[str, Any],
    notes: Sequence[tuple[str, str]],  # `report.cost_note_items`
    language: str,
) -> list[str]:
    """What could make the decision go wrong, most pressing first (four at most)."""
    recommendation = result.recommendation
    found = []
    if result.margin == 0 and runner_up:
        found.append(
            _("Level on points with %(runner)s: only the lower cost puts it first.")
            % {"runner": outcome_name(runner_up)}
        )
    elif result.margin is not None and result.margin < 5:
        found.append(
            _("A close call: %(margin)s points. One changed answer can change the recommendation.")
            % {"margin": f"{result.margin:g}"}
        )
    found += [w.get(language) for w in result.warnings.get(recommendation or "", [])]
    reality = utilization_sentence(costs.get("utilization_check"), language)
    if reality:
        found.append(reality)
    utilization = costs["demand"]["utilization_pct"]
    tie = costs.get("break_even_utilization_pct")
    renting_compared = "cloud" in costs["options_compared"]
    # The tie is between owning every GPU and renting them all: a hybrid keeps its base busy.
    if tie is not None and recommendation == "onprem" and renting_compared and utilization < tie:
        found.append(
            _(
                "Owning pays off only above %(tie)s %% average utilization over the horizon; "
                "you expect %(pct)s %%."
            )
            % {"tie": f"{tie:.0f}", "pct": f"{utilization:.0f}"}
        )
    if tie is not None and recommendation == "cloud" and utilization >= tie:
        found.append(
            _(
                "Above %(tie)s %% average utilization owning would cost less; you expect "
                "%(pct)s %%. Watch utilization once you run."
            )
            % {"tie": f"{tie:.0f}", "pct": f"{utilization:.0f}"}
        )
    # The delay and the hires are the full on-prem cluster's.
    found += [
        text
        for kind, text in notes
        if kind in ("rule_of_thumb", "unofficial")
        or (recommendation == "onprem" and kind in ("delay", "hires"))
        # A cloud price no provider publishes, under a recommendation that rents.
        or (recommendation in ("cloud", "hybrid") and kind == "estimate")
    ]
    return found[:4]


def utilization_sentence(check: Mapping[str, Any] | None, language: str) -> str | None:
    """What published fleets say of the utilization expected (engine/reality.py), when it
    is rare: above what they reach, or so low that renting is the usual answer."""
    if not check:
        return None
    traces = {trace["key"]: trace["what"] for trace in check["traces"]}
    if check["kind"] == "busy":
        seen = "; ".join(Text.from_dict(traces[key]).get(language) for key in ("acme", "philly"))
        return _(
            "You expect %(pct)s %% average utilization, more than published fleets reach "
            "(%(seen)s). The odds draw it as low as %(low)s %%."
        ) % {
            "pct": f"{check['utilization_pct']:g}",
            "seen": seen,
            "low": f"{check['odds_low_pct']:.0f}",
        }
    return _(
        "You expect %(pct)s %% average utilization: below %(line)s %% renting is the usual "
        "answer, as owned GPUs cost much the same idle or busy."
    ) % {"pct": f"{check['utilization_pct']:g}", "line": f"{check['threshold_pct']:g}"}


def next_steps(
    *,
    recommendation: str | None,
    costs: Mapping[str, Any],
    start: datetime.date,
    first_owned: int | None = None,
    residency: str = "none",
) -> list[NextStep]:
    """Concrete actions with dates, for the recommended option. `first_owned`: the GPUs the
    plan's first stage owns, when the verdict read the plan (demand that grows): those are
    what to get quotes for, and the tables' commitment is not the plan's. `residency`: the
    data residency answer, which no step may contradict (data that may not leave is never
    sent to rented GPUs)."""
    owned = {"onprem": costs["demand"]["peak_gpus"], "hybrid": costs["hybrid_owned_gpus"]}.get(
        recommendation or ""
    )
    if first_owned is not None and recommendation in ("onprem", "hybrid"):
        owned = first_owned
    steps = [
        *_hiring_steps(recommendation, costs, start, owned=owned),
        *hardware_steps(costs, start, owned=owned),
        *_renting_steps(recommendation, costs, start, plan_read=first_owned is not None),
        *_buying_pilot_steps(recommendation, costs, start, residency=residency),
        NextStep(
            _("Score this assessment again with the quotes you receive."),
            _weeks_after(start, 8),
        ),
    ]
    return sorted(steps, key=lambda step: step.by)


def _weeks_after(start: datetime.date, weeks: int) -> datetime.date:
    return start + datetime.timedelta(weeks=weeks)


def _hiring_steps(
    recommendation: str | None, costs: Mapping[str, Any], start: datetime.date, *, owned: int | None
) -> list[NextStep]:
    """Hiring the staff that owning needs, when the recommendation owns."""
    figures = costs["assumptions"]
    if costs.get("onprem_hires_fte") and recommendation == "onprem":
        text = _(
            "Start hiring %(fte)s FTE of infrastructure staff; hiring takes %(months)s months."
        ) % {
            "fte": f"{costs['onprem_hires_fte']:g}",
            "months": f"{figures['hiring_months']['value']:g}",
        }
    elif recommendation == "hybrid" and owned and costs["breakdown"]["hybrid"].get("hiring"):
        text = _(
            "Start hiring the infrastructure staff the owned base needs; hiring takes "
            "%(months)s months."
        ) % {"months": f"{figures['hiring_months']['value']:g}"}
    else:
        return []
    return [NextStep(text, _weeks_after(start, 2))]


def hardware_steps(
    costs: Mapping[str, Any], start: datetime.date, *, owned: int | None
) -> list[NextStep]:
    """Quotes for the servers to own, and the power and cooling to run them."""
    figures = costs["assumptions"]
    per_node = int(figures["gpus_per_node"]["value"])
    lead = figures["lead_time_months"]["value"]
    if not owned:
        return []
    nodes = -(-owned // per_node)
    kw = nodes * figures["node_kw"]["value"] * figures["pue"]["value"]
    return [
        NextStep(
            ngettext(
                "Get quotes for %(nodes)s server of %(per_node)s GPUs from two or three "
                "vendors, with delivery dates (this plan assumes %(lead)s months).",
                "Get quotes for %(nodes)s servers of %(per_node)s GPUs from two or three "
                "vendors, with delivery dates (this plan assumes %(lead)s months).",
                nodes,
            )
            % {"nodes": nodes, "per_node": per_node, "lead": f"{lead:g}"},
            _weeks_after(start, 4),
        ),
        NextStep(
            _("Reserve %(kw)s kW of power and cooling in your data centre or a colocation site.")
            % {"kw": f"{kw:,.0f}"},
            _weeks_after(start, 6),
        ),
    ]


def _renting_steps(
    recommendation: str | None, costs: Mapping[str, Any], start: datetime.date, *, plan_read: bool
) -> list[NextStep]:
    """A commitment to price, a pilot and budget alerts, when the recommendation rents.
    `plan_read`: the verdict read the plan, whose commitment is not the tables'."""
    committed = (
        costs["hybrid_committed_gpus"]
        if recommendation == "hybrid"
        else costs["cloud_committed_gpus"]
    )
    if plan_read:
        committed = 0
    if recommendation not in ("cloud", "hybrid"):
        return []
    steps = []
    if committed:
        steps.append(
            NextStep(
                ngettext(
                    "Ask two or three providers for 1- and 3-year prices on a commitment "
                    "of %(gpus)s GPU; rent the rest on demand.",
                    "Ask two or three providers for 1- and 3-year prices on a commitment "
                    "of %(gpus)s GPUs; rent the rest on demand.",
                    committed,
                )
                % {"gpus": committed},
                _weeks_after(start, 4),
            )
        )
    steps.append(
        NextStep(
            _(
                "Run a one-month pilot on rented GPUs and measure the real utilization "
                "against the %(pct)s %% assumed here."
            )
            % {"pct": f"{costs['demand']['utilization_pct']:.0f}"},
            _weeks_after(start, 6),
        )
    )
    steps.append(
        NextStep(
            _("Set budget alerts and cost tags before the first full month of cloud bills."),
            _weeks_after(start, 2),
        )
    )
    return steps


def _buying_pilot_steps(
    recommendation: str | None, costs: Mapping[str, Any], start: datetime.date, *, residency: str
) -> list[NextStep]:
    """A pilot to confirm the utilization before buying, when owning: on rented GPUs when
    the data may go there, else on a vendor's evaluation system on the premises."""
    if recommendation != "onprem":
        return []
    values = {"pct": f"{costs['demand']['utilization_pct']:.0f}"}
    if residency == "all":
        text = _(
            "Run a four-week proof of concept of your heaviest job on a vendor's loan or "
            "evaluation system on your own premises, to confirm the %(pct)s %% utilization "
            "before you buy."
        )
    elif residency == "partial":
        text = _(
            "Run a four-week pilot of your heaviest job whose data may leave on rented GPUs of "
            "the same model, to confirm the %(pct)s %% utilization before you buy; the rest "
            "on a vendor's evaluation system on your premises."
        )
    else:
        text = _(
            "Run a four-week pilot of your heaviest job on rented GPUs of the same "
            "model to confirm the %(pct)s %% utilization before you buy."
        )
    return [NextStep(text % values, _weeks_after(start, 4))]


def price_dates(costs: Mapping[str, Any]) -> tuple[str, str] | None:
    dates = sorted(f["as_of"] for f in costs["assumptions"].values() if f.get("as_of"))
    return (dates[0], dates[-1]) if dates else None


def when(day: datetime.date) -> str:
    return date_format(day, "DATE_FORMAT")


def _language() -> str:
    return get_language() or "en"


def api_sentence(costs: Mapping[str, Any], currency: str) -> str | None:
    """A hosted model per token against the GPUs, in one line (issue 36): where GPUs pay off
    against the user's own volume, or why it is not an option; None when the answers do not
    say what they serve."""
    if "api" not in costs:
        return None
    language = _language()
    if costs["api"] is None:
        return Text.from_dict(costs["api_not_offered"]).get(language)
    served = tokens_text(costs["api"]["tokens_per_day_m"])
    present = {"api": money(costs["present_value"]["api"], currency)}
    found = costs.get("api_break_even_tokens_per_day_m")
    curve = costs.get("api_curve") or []
    if found is None:
        most = tokens_text(curve[-1]["tokens_per_day_m"]) if curve else served
        text = _(
            "Per token (%(api)s in present value) stays cheaper than every GPU option up to "
            "%(most)s tokens a day; you serve %(served)s."
        ) % {**present, "most": most, "served": served}
    elif curve and found <= curve[0]["tokens_per_day_m"]:
        text = _(
            "GPUs cost less than per token (%(api)s in present value) at every volume from "
            "%(least)s tokens a day; you serve %(served)s."
        ) % {**present, "least": tokens_text(found), "served": served}
    else:
        text = _(
            "GPUs pay off above %(volume)s tokens a day; you serve %(served)s (per token: "
            "%(api)s in present value)."
        ) % {**present, "volume": tokens_text(found), "served": served}
    return text
