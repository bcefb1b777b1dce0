"""A hosted model sold per token (issue 36): what serving the work's tokens would cost on an
inference provider's API instead of on GPUs, over the same future, and the volume at which
GPUs undercut it.

Plain Python over a price book (fixtures/token_prices.json: dated, sourced list prices per
million input and output tokens, by model class and market). A class a market's providers do
not publish a price for has none: it is never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from decider.engine.text import Text

FORMAT = "decider-token-prices/1"
DAYS_PER_MONTH = 365 / 12
SMALL_B, MEDIUM_B = 20.0, 120.0  # the largest model (billions of parameters) of each class
JURISDICTION = {"global": "intl", "cn": "cn"}  # a market's own, for a jurisdiction concern


@dataclass(frozen=True)
class TokenPrice:
    provider: str
    market: str
    model: str
    model_class: str
    price_in_per_m: float
    price_out_per_m: float
    currency: str
    as_of: str
    source: str
    jurisdiction: str  # where the provider is based: "cn", or "intl" (outside China)

    def blended(self, input_share: float) -> float:
        """The price of a million tokens in the work's mix of input and output."""
        return self.price_in_per_m * input_share + self.price_out_per_m * (1 - input_share)

    def document(self) -> dict[str, Any]:
        """As the JSON names it (`costs.api`)."""
        return {
            "provider": self.provider,
            "model": self.model,
            "model_class": self.model_class,
            "price_in_per_m": self.price_in_per_m,
            "price_out_per_m": self.price_out_per_m,
            "currency": self.currency,
            "as_of": self.as_of,
            "source": self.source,
            "market": self.market,
            "jurisdiction": self.jurisdiction,
        }


@dataclass(frozen=True)
class PriceBook:
    prices: tuple[TokenPrice, ...]
    fall_pct_per_year: float  # how fast a per-token price falls, a year
    fall_source: str


def price_book(document: Mapping[str, Any]) -> PriceBook:
    """The fixture's document as a price book; a price of zero (a rate-limited free tier) is
    not one to serve production on and is left out."""
    if document.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} document")
    fields = TokenPrice.__dataclass_fields__
    prices = tuple(
        TokenPrice(**{key: item[key] for key in fields})
        for item in document["prices"]
        if item["price_in_per_m"] > 0 or item["price_out_per_m"] > 0
    )
    fall = document["price_fall"]
    return PriceBook(prices, float(fall["pct_per_year"]), fall["source"])


def model_class(params_b: float) -> str:
    """The class of hosted models priced for a model of `params_b` billion parameters."""
    if params_b <= SMALL_B:
        return "8b"
    return "70b" if params_b <= MEDIUM_B else "moe_large"


def cheapest(
    prices: Iterable[TokenPrice],
    *,
    model_class: str,
    market: str,
    input_share: float,
    own_jurisdiction: bool = False,
) -> TokenPrice | None:
    """The cheapest listed price of the class in the market for the work's mix of input and
    output; None when no provider there publishes one. `own_jurisdiction` (a jurisdiction
    concern): only providers based under the market's own jurisdiction."""
    found = [
        p
        for p in prices
        if p.model_class == model_class
        and p.market == market
        and (not own_jurisdiction or p.jurisdiction == JURISDICTION[market])
    ]
    return min(found, key=lambda p: (p.blended(input_share), p.provider)) if found else None


def not_offered(*, workload: str, residency: str) -> Text | None:
    """Why a per-token API is not an option for these answers, or None when it is."""
    if workload == "training":
        return Text(
            en="Training is not sold per token: a hosted model serves, it does not train yours.",
            zh="训练不按 token 计价：托管模型只提供推理服务，不训练您的模型。",
        )
    if residency == "all":
        return Text(
            en="All data must stay on premises: prompts sent to a hosted model leave them.",
            zh="全部数据必须留在本地：发送给托管模型的提示词会离开本地。",
        )
    return None


NONE_LISTED = Text(
    en="No provider in this market publishes a per-token price for this model class "
    "(none is guessed).",
    zh="该市场没有服务商公布此类模型的按 token 价格（不做估计）。",
)


def monthly_costs(
    price: TokenPrice,
    *,
    input_m_per_day: float,
    output_m_per_day: float,
    months: int,
    growth_pct_per_year: float = 0.0,
    fall_pct_per_year: float = 0.0,
) -> np.ndarray:
    """The bill of each month 0..`months` (month 0 pays nothing: nothing is bought up
    front), the volume growing and the price falling at their yearly rates."""
    first = (
        input_m_per_day * price.price_in_per_m + output_m_per_day * price.price_out_per_m
    ) * DAYS_PER_MONTH
    month = np.arange(months + 1, dtype=float)
    volume = (1 + growth_pct_per_year / 100) ** (month / 12)
    fall = (1 - fall_pct_per_year / 100) ** (month / 12)
    bills = first * volume * fall
    bills[0] = 0.0
    return bills


def totals(bills: np.ndarray, discount_rate: float) -> tuple[float, float]:
    """(plain total, present value at `discount_rate` a year), as the cost section counts
    them: month m discounted by (1 + rate)^(-m/12)."""
    month = np.arange(len(bills), dtype=float)
    return float(bills.sum()), float(bills @ (1 + discount_rate) ** (-month / 12))


def break_even(
    api_value: Callable[[float], float],
    gpu_value: Callable[[float], float],
    *,
    volumes: Sequence[float],
    steps: int = 30,
) -> float | None:
    """The volume (millions of tokens a day) above which the cheapest GPU option costs less
    than the API: the first crossing along `volumes` (ascending), found by bisection; None
    when the GPUs cost more at every volume there."""
    previous: float | None = None
    for volume in volumes:
        if gpu_value(volume) <= api_value(volume):
            if previous is None:
                return volume  # cheaper from the smallest volume looked at
            low, high = previous, volume
            for _ in range(steps):
                middle = (low + high) / 2
                if gpu_value(middle) <= api_value(middle):
                    high = middle
                else:
                    low = middle
            return high
        previous = volume
    return None
