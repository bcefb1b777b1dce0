"""Where the compute runs. Each market has its own dated, sourced price set, written in its
own currency (fixtures/assumptions.json, edited in the admin), and the GPU models sold there
(engine/gpus.py says which).

The cost model computes in the market's currency; the pages convert once, on the way out,
at the dated rate (the `usd_cny` figure). Answers without a market are priced as before
they had one: the global set, in USD.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from decider.engine import gpus
from decider.engine.text import Text


@dataclass(frozen=True)
class Currency:
    code: str
    symbol: str  # written before an amount: "$4M", "¥361.87万"
    name_zh: str  # how a Chinese unit names it: "美元/节点", "元/节点"
    rate_figure: str | None  # the figure of its units per US dollar (None: the dollar itself)


# Every currency a price set is written in or a page shows money in: adding one is an entry
# here and, for its rate, a figure (engine/figures.py) with its dated value.
CURRENCY: dict[str, Currency] = {
    currency.code: currency
    for currency in (
        Currency("USD", "$", "美元", None),
        Currency("CNY", "¥", "元", "usd_cny"),
    )
}

CURRENCIES: tuple[str, ...] = tuple(CURRENCY)


def symbol_of(code: str) -> str:
    """The sign written before an amount in `code` ("" for a currency not in the registry)."""
    currency = CURRENCY.get(code)
    return currency.symbol if currency else ""


@dataclass(frozen=True)
class Market:
    key: str
    currency: str  # what its price set is written in
    label: Text

    @property
    def gpu_models(self) -> tuple[str, ...]:
        """The GPU models with a price set in this market (engine/gpus.py)."""
        return gpus.in_market(self.key)


MARKETS: dict[str, Market] = {
    market.key: market
    for market in (
        Market(
            "global",
            "USD",
            Text("Outside mainland China (global prices)", "中国大陆以外（国际价格）"),
        ),
        Market(
            "cn",
            "CNY",
            Text("Mainland China", "中国大陆"),
        ),
    )
}
DEFAULT_MARKET = "global"


def market_of(answers: Mapping[str, Any]) -> Market:
    """The market of these answers; the global one when they name none."""
    return MARKETS[answers.get("market") or DEFAULT_MARKET]


def per_usd(code: str, params: Mapping[str, float]) -> float:
    """Units of `code` a US dollar buys, at the dated rate among `params` (the figures)."""
    if code not in CURRENCY:
        raise ValueError(f"no rate for {code}: currencies are {', '.join(CURRENCIES)}")
    figure = CURRENCY[code].rate_figure
    return 1.0 if figure is None else params[figure]


def currency_rate(params: Mapping[str, float], *, prices_in: str, shown_in: str) -> float:
    """What one unit of `prices_in` is worth in `shown_in`, at the dated rates in `params`."""
    if prices_in == shown_in:
        return 1.0
    return per_usd(shown_in, params) / per_usd(prices_in, params)
