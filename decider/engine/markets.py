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


def currency_rate(usd_cny: float, *, prices_in: str, shown_in: str) -> float:
    """What one unit of `prices_in` is worth in `shown_in`, at the dated rate."""
    if prices_in == shown_in:
        return 1.0
    if (prices_in, shown_in) == ("USD", "CNY"):
        return usd_cny
    if (prices_in, shown_in) == ("CNY", "USD"):
        return 1.0 / usd_cny
    raise ValueError(f"no rate from {prices_in} to {shown_in}")
