"""Which provider the cloud is rented from, at its own list prices.

A provider (AWS, CoreWeave...) publishes some of the cloud's figures: GPU-hour prices by term
for some GPU models, egress, storage. The cloud is priced at the cheapest provider the answers
allow (`providers`: `allow` and `exclude`, each a provider kind or a provider's key; without
it, the wizard's `cloud_provider`, ASKED; without either, every listed provider) that rents
the GPU model, its prices laid over the market's figures, and the runner-up is named with
what it would cost.

A price the provider does not publish is derived, and says so: a reserved or spot price from
the provider's own on-demand price and the market's ratio between the two; egress and storage
are the market's figures. Where no listed provider the answers allow rents the GPU model in
the answers' market, the cloud is priced at the market's figures, and the result says so.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from decider.engine.figures import Figure
from decider.engine.text import Text
from decider.engine.vocabulary import PROVIDER_KINDS

# The figures a provider may publish; the rest of the cost model is the market's.
PRICED = (
    "gpu_hour_on_demand",
    "gpu_hour_reserved_1y",
    "gpu_hour_reserved_3y",
    "gpu_hour_spot",
    "egress_price_tb",
    "cloud_storage_tb_month",
)
# Derived from the provider's on-demand price at the market's ratio, when not published.
SCALED = ("gpu_hour_reserved_1y", "gpu_hour_reserved_3y", "gpu_hour_spot")
# The market's figures its index derives from the listed providers' prices (market_index).
INDEXED = ("gpu_hour_on_demand", *SCALED)
KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
MAX_NAMED = 20

SCALED_SOURCE = (
    "Estimate: {provider} publishes no {figure} for this GPU model; derived as its on-demand "
    "price {on_demand:g} × the market's ratio {ratio:.3f} ({market_figure} ÷ on demand)"
)
SCALED_SOURCE_ZH = (
    "估算：{provider} 未公布此 GPU 型号的 {figure}；按其按需价格 {on_demand:g} × 市场比例 "
    "{ratio:.3f}（市场 {market_figure} ÷ 按需价格）推算"
)
MARKET_SOURCE = "Estimate: {provider} publishes no {figure} that could be checked; the market's figure. {source}"
MARKET_SOURCE_ZH = "估算：未能核实 {provider} 公布的 {figure}；采用市场数值。{source}"


@dataclass(frozen=True)
class Provider:
    """A provider and the prices it publishes: by (figure name, GPU model), "" for every
    model."""

    key: str
    name: str
    name_zh: str
    kind: str
    market: str
    prices: Mapping[tuple[str, str], Figure]

    def published(self, gpu_model: str) -> dict[str, Figure]:
        """Its figures for `gpu_model`: the model's own price, else the one for every model."""
        return {
            name: figure
            for name in PRICED
            if (figure := self.prices.get((name, gpu_model)) or self.prices.get((name, "")))
        }

    def rents(self, gpu_model: str) -> bool:
        return "gpu_hour_on_demand" in self.published(gpu_model)

    def named(self, names: Collection[str]) -> bool:
        return self.key in names or self.kind in names

    def label(self) -> Text:
        return Text(self.name, self.name_zh or self.name)


@dataclass(frozen=True)
class Listed:
    """The range of one kind of provider's on-demand price for a GPU model."""

    kind: str
    low: float
    high: float
    latest: str  # the newest date among them


def listed_ranges(providers: Iterable[Provider], gpu_model: str) -> list[Listed]:
    """Per kind of provider, the lowest and highest on-demand price per GPU-hour it lists for
    `gpu_model`: what the wizard's help says, read from the prices the cloud is priced at."""
    found: dict[str, list[Figure]] = {}
    for provider in providers:
        figure = provider.published(gpu_model).get("gpu_hour_on_demand")
        if figure is not None:
            found.setdefault(provider.kind, []).append(figure)
    return [
        Listed(
            kind=kind,
            low=min(f.value for f in figures),
            high=max(f.value for f in figures),
            latest=max(str(f.as_of) for f in figures),
        )
        for kind, figures in sorted(found.items())
    ]


# The wizard's question (`cloud_provider`) as the `providers` answer it stands for. No
# answer is "cheapest": a listed provider's published prices are the one price of the cloud
# (issue 53); the market's index prices it only where no listed provider rents the GPU model.
ASKED = {
    "cheapest": {},
    "hyperscaler": {"allow": ["hyperscaler"]},
    "neocloud": {"allow": ["neocloud"]},
}


def choice_of(answers: Mapping[str, Any]) -> Mapping[str, Sequence[str]]:
    """The providers the answers allow: `providers`, else the wizard's `cloud_provider`,
    else every listed provider (`{}`)."""
    if "providers" in answers:
        given: Mapping[str, Sequence[str]] = answers["providers"]
        return given
    return ASKED.get(answers.get("cloud_provider") or "cheapest", {})


def choice_given(raw: Any, *, known: Collection[str]) -> tuple[dict[str, list[str]], str | None]:
    """The `providers` answer checked: (`{"allow": [...], "exclude": [...]}`, the problem or
    None). `known`: the providers' keys; a kind is named by its key in PROVIDER_KINDS."""
    if not isinstance(raw, Mapping):
        return {}, "give an object with “allow” and/or “exclude”: lists of provider kinds or names"
    unknown = [key for key in raw if key not in ("allow", "exclude")]
    if unknown:
        return {}, f"unknown key “{str(unknown[0])[:40]}” (allowed: allow, exclude)"
    names = {*PROVIDER_KINDS, *known}
    choice: dict[str, list[str]] = {}
    for part in ("allow", "exclude"):
        given = raw.get(part, [])
        if not isinstance(given, list) or len(given) > MAX_NAMED:
            return {}, f"“{part}” must be a list of at most {MAX_NAMED} provider kinds or names"
        for item in given:
            if not isinstance(item, str) or item not in names:
                shown = str(item)[:40]
                return {}, (
                    f"“{part}”: unknown provider or kind “{shown}” (kinds: "
                    f"{', '.join(PROVIDER_KINDS)}; providers: {', '.join(sorted(known)) or 'none listed'})"
                )
        if given:
            choice[part] = list(dict.fromkeys(given))
    return choice, None


def allowed(
    providers: Iterable[Provider], choice: Mapping[str, Sequence[str]], *, gpu_model: str
) -> list[Provider]:
    """The providers that rent `gpu_model` and that the choice allows."""
    allow, exclude = choice.get("allow", ()), choice.get("exclude", ())
    return [
        provider
        for provider in providers
        if provider.rents(gpu_model)
        and (not allow or provider.named(allow))
        and not provider.named(exclude)
    ]


def priced_at(
    figures: Mapping[str, Figure], provider: Provider, *, gpu_model: str
) -> dict[str, Figure]:
    """The market's figures with the provider's prices laid over them; what it does not
    publish derived (SCALED) or the market's, and marked as estimates."""
    published = provider.published(gpu_model)
    on_demand = published["gpu_hour_on_demand"]
    market_on_demand = figures["gpu_hour_on_demand"].value
    priced = dict(figures)
    for name in PRICED:
        if name in published:
            priced[name] = published[name]
        elif name in SCALED and market_on_demand > 0:
            ratio = figures[name].value / market_on_demand
            values = {
                "provider": provider.name,
                "figure": name,
                "on_demand": on_demand.value,
                "ratio": ratio,
                "market_figure": f"{figures[name].value:g}",
            }
            priced[name] = Figure(
                name,
                round(on_demand.value * ratio, 4),
                SCALED_SOURCE.format(**values),
                on_demand.as_of,
                SCALED_SOURCE_ZH.format(**values),
            )
        else:
            market = figures[name]
            priced[name] = Figure(
                name,
                market.value,
                MARKET_SOURCE.format(provider=provider.name, figure=name, source=market.source),
                market.as_of,
                MARKET_SOURCE_ZH.format(
                    provider=provider.name, figure=name, source=market.source_zh or market.source
                ),
            )
    return priced


# The market's index (issue 53): where listed providers rent the GPU model, its GPU-hour
# prices are a statistic of their current prices, never figures typed beside them.
INDEX_SOURCE = (
    "Market index: the median of {count} listed providers' on-demand prices for this GPU "
    "model ({prices}), the newest dated {latest}"
)
INDEX_SOURCE_ZH = (
    "市场指数：{count} 家已列出云厂商此 GPU 型号按需价格的中位数（{prices}），最新日期 {latest}"
)
RATIO_SOURCE = (
    "Market index: the median on-demand price {on_demand:g} × {ratio:.3f}, the median ratio "
    "of {figure} to on demand among the listed providers that publish both ({pairs})"
)
RATIO_SOURCE_ZH = (
    "市场指数：按需价格中位数 {on_demand:g} × {ratio:.3f}，即同时公布 {figure} 与按需价格的"
    "已列出云厂商两者之比的中位数（{pairs}）"
)


def market_index(
    figures: Mapping[str, Figure], listed: Sequence[Provider], *, gpu_model: str
) -> dict[str, Figure]:
    """The market's figures with their GPU-hour prices derived from the listed providers
    that rent `gpu_model`: on demand, the median of their on-demand prices; a reserved or
    spot price, that median times the median ratio of the tier to on demand among the
    providers that publish both for this model (for any model, when none does for this one).
    Where no listed provider rents the model, the market's own figures stand."""
    renting = sorted((p for p in listed if p.rents(gpu_model)), key=lambda p: p.key)
    if not renting:
        return dict(figures)
    on_demand = [p.published(gpu_model)["gpu_hour_on_demand"] for p in renting]
    median = statistics.median(f.value for f in on_demand)
    latest = max(str(f.as_of) for f in on_demand)
    prices = ", ".join(f"{p.name} {f.value:g}" for p, f in zip(renting, on_demand, strict=True))
    values = {"count": len(renting), "prices": prices, "latest": latest}
    indexed = dict(figures)
    indexed["gpu_hour_on_demand"] = Figure(
        "gpu_hour_on_demand",
        round(median, 4),
        INDEX_SOURCE.format(**values),
        latest,
        INDEX_SOURCE_ZH.format(**values),
    )
    for name in SCALED:
        ratios = _tier_ratios(listed, name, gpu_model) or _tier_ratios(listed, name, None)
        if not ratios:
            continue  # no listed provider publishes this tier: the market's figure stands
        ratio = statistics.median(ratios.values())
        shown = {
            "on_demand": round(median, 4),
            "ratio": ratio,
            "figure": name,
            "pairs": ", ".join(f"{who} {r:.3f}" for who, r in sorted(ratios.items())),
        }
        indexed[name] = Figure(
            name,
            round(median * ratio, 4),
            RATIO_SOURCE.format(**shown),
            latest,
            RATIO_SOURCE_ZH.format(**shown),
        )
    return indexed


def _tier_ratios(listed: Sequence[Provider], name: str, gpu_model: str | None) -> dict[str, float]:
    """Each listed provider's published `name` ÷ its on-demand price, for `gpu_model` (for
    every model it publishes both for, when None), by "provider model"."""
    found = {}
    for provider in listed:
        models = (
            [gpu_model]
            if gpu_model
            else sorted({m for (n, m) in provider.prices if n == name and m})
        )
        for model in models:
            published = provider.published(model)
            on_demand = published.get("gpu_hour_on_demand")
            if name in published and on_demand is not None and on_demand.value > 0:
                found[f"{provider.name} {model}"] = published[name].value / on_demand.value
    return found


@dataclass(frozen=True)
class Priced:
    """A provider, the figures the cloud is priced at there, and what `ranked` ranked it by."""

    provider: Provider
    figures: dict[str, Figure]
    cost: float


def ranked(
    figures: Mapping[str, Figure],
    candidates: Sequence[Provider],
    *,
    gpu_model: str,
    cost: Callable[[Mapping[str, Figure]], float],
) -> list[Priced]:
    """The candidates priced, cheapest first by `cost` (the cloud's present value at their
    prices); ties go by key, so that the order never depends on the listing's."""
    at = [(p, priced_at(figures, p, gpu_model=gpu_model)) for p in candidates]
    priced = [Priced(p, prices, cost(prices)) for p, prices in at]
    return sorted(priced, key=lambda p: (p.cost, p.provider.key))


MONEY = ("present_value", "market_present_value")


def provider_facts(
    provider: Provider, present_value: float, *, market_present_value: float | None = None
) -> dict[str, Any]:
    """What the JSON and the pages show of a provider: `present_value` is the cloud's there
    (at its cheapest pricing mode), `market_present_value` the same at the market's figures
    (the chosen provider's only), in the price set's currency until shown (facts_shown)."""
    return {
        "key": provider.key,
        "name": provider.name,
        "name_zh": provider.name_zh,
        "kind": provider.kind,
        "present_value": present_value,
        **(
            {"market_present_value": market_present_value}
            if market_present_value is not None
            else {}
        ),
    }


def facts_shown(facts: Mapping[str, Any] | None, rate: float) -> dict[str, Any] | None:
    """`facts` with its money in the currency shown (`rate`: one unit of the price set's
    currency in it)."""
    if facts is None:
        return None
    return {
        **facts,
        **{key: round(facts[key] * rate, 2) for key in MONEY if facts.get(key) is not None},
    }


def providers_as_dict(providers: Iterable[Provider]) -> list[dict[str, Any]]:
    """JSON-ready, as saved with a result (its prices pinned like the market's figures)."""
    return [
        {
            "key": p.key,
            "name": p.name,
            "name_zh": p.name_zh,
            "kind": p.kind,
            "market": p.market,
            "prices": [
                {
                    "name": name,
                    "gpu_model": model,
                    "value": f.value,
                    "source": f.source,
                    "source_zh": f.source_zh,
                    "as_of": f.as_of,
                }
                for (name, model), f in p.prices.items()
            ],
        }
        for p in providers
    ]


def providers_from_dict(data: Iterable[Mapping[str, Any]]) -> list[Provider]:
    return [
        Provider(
            key=d["key"],
            name=d["name"],
            name_zh=d.get("name_zh", ""),
            kind=d["kind"],
            market=d["market"],
            prices={
                (row["name"], row["gpu_model"]): Figure(
                    row["name"],
                    float(row["value"]),
                    row["source"],
                    row["as_of"],
                    row.get("source_zh", ""),
                )
                for row in d["prices"]
            },
        )
        for d in data
    ]
