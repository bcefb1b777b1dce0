"""The decision when it is a hosted model paid per token (issue 36): the plan in one
sentence, and the next steps with their dates, as the first screen, the report and
`summary` in the JSON give them."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from decider.engine.vocabulary import MODEL_CLASSES
from decider.formats import money, small_price, tokens_text
from decider.summary import NextStep, hardware_steps


def plan_sentence(costs: Mapping[str, Any], currency: str) -> str:
    """The per-token plan: whose model, at what price, for what a month today."""
    price = costs["api"]
    monthly = costs["totals"]["api"] / max(int(costs["horizon_months"]), 1)
    return _(
        "Run no GPUs: send the %(served)s tokens a day you serve to %(model)s at "
        "%(provider)s (%(model_class)s), at %(price_in)s per million input tokens and "
        "%(price_out)s per million output tokens: about %(monthly)s a month on average."
    ) % {
        "provider": price["provider"],
        "model_class": MODEL_CLASSES[price["model_class"]].get(get_language() or "en"),
        "model": price["model"],
        "price_in": small_price(price["price_in_per_m"], price["currency"]),
        "price_out": small_price(price["price_out_per_m"], price["currency"]),
        "served": tokens_text(price["tokens_per_day_m"]),
        "monthly": money(monthly, currency),
    }


def next_steps(costs: Mapping[str, Any], start: datetime.date) -> list[NextStep]:
    """What to do first when paying per token: try it on real prompts, clear its data terms,
    cap the bill and watch the volume at which GPUs pay off, keep a second provider."""
    price = costs["api"]
    found = costs.get("api_break_even_tokens_per_day_m")
    steps = [
        NextStep(
            _(
                "Try %(provider)s's %(model)s for two weeks on a sample of your real prompts: "
                "check the answers' quality, the latency your users see and the share of input "
                "and output tokens assumed here."
            )
            % {"provider": price["provider"], "model": price["model"]},
            start + datetime.timedelta(weeks=2),
        ),
        NextStep(
            _(
                "Have %(provider)s's terms for data processing and retention approved before "
                "real prompts are sent."
            )
            % {"provider": price["provider"]},
            start + datetime.timedelta(weeks=3),
        ),
        NextStep(
            _("Set a monthly spending limit and alerts on the provider account.")
            if found is None
            else _(
                "Set a monthly spending limit and alerts on the provider account, and assess "
                "again when the volume nears %(volume)s tokens a day: GPUs pay off above it."
            )
            % {"volume": tokens_text(found)},
            start + datetime.timedelta(weeks=4),
        ),
        NextStep(
            _("Keep a second provider of the same model class ready as a fallback."),
            start + datetime.timedelta(weeks=6),
        ),
    ]
    return steps


def hybrid_sentence(costs: Mapping[str, Any], currency: str) -> str | None:
    """Owning the steady base and sending the bursts per token, in one line, against per
    token alone; None when demand never bursts above a whole GPU owned."""
    found = costs.get("api_hybrid")
    if not found:
        return None
    return ngettext(
        "Owning %(gpus)s GPU for the steady base and sending the bursts (%(share)s %% of the "
        "tokens) per token would cost %(mixed)s in present value, against %(api)s per token "
        "alone.",
        "Owning %(gpus)s GPUs for the steady base and sending the bursts (%(share)s %% of the "
        "tokens) per token would cost %(mixed)s in present value, against %(api)s per token "
        "alone.",
        found["owned_gpus"],
    ) % {
        "gpus": found["owned_gpus"],
        "share": f"{found['burst_share_pct']:.0f}",
        "mixed": money(found["present_value"], currency),
        "api": money(costs["present_value"]["api"], currency),
    }


def hybrid_plan_sentence(costs: Mapping[str, Any]) -> str:
    """The plan that owns the steady base and sends the bursts per token, in one sentence."""
    found, price = costs["api_hybrid"], costs["api"]
    return ngettext(
        "Own %(gpus)s GPU for the steady base and send the bursts (%(share)s %% of the "
        "tokens) to %(model)s at %(provider)s, at %(price_in)s per million input tokens and "
        "%(price_out)s per million output tokens.",
        "Own %(gpus)s GPUs for the steady base and send the bursts (%(share)s %% of the "
        "tokens) to %(model)s at %(provider)s, at %(price_in)s per million input tokens and "
        "%(price_out)s per million output tokens.",
        found["owned_gpus"],
    ) % {
        "gpus": found["owned_gpus"],
        "share": f"{found['burst_share_pct']:.0f}",
        "model": price["model"],
        "provider": price["provider"],
        "price_in": small_price(price["price_in_per_m"], price["currency"]),
        "price_out": small_price(price["price_out_per_m"], price["currency"]),
    }


def hybrid_steps(costs: Mapping[str, Any], start: datetime.date) -> list[NextStep]:
    """The steps of owning the base (quotes for its servers, power) and of the bursts sent
    per token, by date."""
    owned = int(costs["api_hybrid"]["owned_gpus"])
    steps = [*hardware_steps(costs, start, owned=owned), *next_steps(costs, start)]
    return sorted(steps, key=lambda step: step.by)
