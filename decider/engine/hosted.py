"""The per-token option beside the GPU options (issue 36): a hosted model of the service's
class priced over the same horizon, its growth and a falling price; the cheapest GPU option
at other volumes of the same service; the volume at which they cost the same.

The cost section's own reckoning prices the GPUs: `cost_at(answers)` is the evaluation's
(answers_costs), so a GPU option here costs what it costs on the page.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from decider.engine import costs, markets, questionnaire, sizing, tokens
from decider.engine.cashflow import yearly_sums
from decider.engine.future import future_of
from decider.engine.outcomes import API
from decider.engine.text import Text

BOOK_PATH = Path(__file__).resolve().parents[2] / "fixtures" / "token_prices.json"
# The volumes the chart and the break-even look at, as factors of the service's own.
FACTORS = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)
# The cost figure: how much a per-token price falls a year (share, 0–1).
FALL = "token_price_fall"
# The keys api_section adds to a cost section (besides the per-token total and value).
API_KEYS = frozenset(
    {
        "api",
        "api_hybrid",
        "api_not_offered",
        "api_break_even_tokens_per_day_m",
        "api_curve",
        "api_cost_per_m_tokens",
        "api_cost_per_m_tokens_apart",
    }
)
BISECTIONS = 4  # between two factors 3× apart: the break-even to within about 7 %
SEVERAL = Text(
    en="Several workloads share the GPUs here: the per-token price is compared for one "
    "service on GPUs of its own.",
    zh="此处多个工作负载共用 GPU：按 token 价格只与独占 GPU 的单一推理服务比较。",
)
NOT_ALONE = Text(
    en="Your GPUs also train: the per-token price is compared for a service on GPUs of its own.",
    zh="您的 GPU 还要用于训练：按 token 价格只与独占 GPU 的推理服务比较。",
)


@functools.cache
def shipped_book() -> tokens.PriceBook:
    """fixtures/token_prices.json: the prices a release ships (`load_defaults` loads them
    into the database, where admins edit them; the engine alone reads them here)."""
    return tokens.price_book(json.loads(BOOK_PATH.read_text(encoding="utf-8")))


def book_of(prices: Sequence[tokens.TokenPrice]) -> tokens.PriceBook:
    """Prices read elsewhere (the database) as a price book; how fast they fall is the cost
    figure `token_price_fall` (api_section), the shipped book's rate without it."""
    shipped = shipped_book()
    return tokens.PriceBook(tuple(prices), shipped.fall_pct_per_year, shipped.fall_source)


def pinned_book(saved: Mapping[str, Any]) -> tokens.PriceBook:
    """The one price a saved result was scored with (its `costs.api`, kept in the result), as
    a price book: a price changed or added since does not change that result."""
    fields = tokens.TokenPrice.__dataclass_fields__
    price = tokens.TokenPrice(**{key: saved[key] for key in fields})
    return tokens.PriceBook((price,), float(saved["fall_pct_per_year"]), "")


def api_section(
    answers: Mapping[str, Any],
    computed: Mapping[str, Any],
    *,
    cost_at: Callable[[Mapping[str, Any]], Mapping[str, Any]],
    excluded: frozenset[str],
    figures: Mapping[str, float],
    book: tokens.PriceBook | None = None,
) -> dict[str, Any]:
    """The cost section's per-token keys for answers that say what they serve (`served`,
    from a `work.inference` block); nothing for the others. `figures`: their values."""
    served = answers.get("served")
    if not served:
        return {}
    if reason := _not_offered(answers):
        return {"api": None, "api_not_offered": reason.as_dict()}
    book = book or shipped_book()
    market = markets.market_of(answers).key
    input_m, output_m = _tokens(served)
    price = tokens.cheapest(
        book.prices,
        model_class=tokens.model_class(float(served["params_b"])),
        market=market,
        input_share=input_m / (input_m + output_m),
        own_jurisdiction=bool(answers.get("jurisdiction_concern")),
    )
    if price is None:
        return {"api": None, "api_not_offered": tokens.NONE_LISTED.as_dict()}
    rate = markets.currency_rate(figures, prices_in=price.currency, shown_in=computed["currency"])
    fall = 100 * figures.get(FALL, book.fall_pct_per_year / 100)
    api_at = functools.partial(_api_value, price, answers, computed, rate=rate, fall=fall)
    own = input_m + output_m
    gpu_at = functools.cache(
        lambda volume: (
            _gpu_value(computed, excluded)
            if volume == own
            else _gpu_value(cost_at(_at_volume(answers, served, volume / own)), excluded)
        )
    )
    curve = [
        {"tokens_per_day_m": own * f, "api": api_at(own * f)[1], "gpus": gpu_at(own * f)}
        for f in FACTORS
    ]
    total, present = api_at(own)
    bills = _api_bills(price, answers, computed, own, rate=rate, fall=fall)
    return {
        **_api_lines(bills, computed),
        "api_hybrid": _api_hybrid(
            answers, cost_at, api_at, volume=own, excluded=excluded, bought=_bought(figures)
        ),
        "api": price.document() | {"tokens_per_day_m": own, "fall_pct_per_year": round(fall, 4)},
        "api_break_even_tokens_per_day_m": _break_even(curve, api_at, gpu_at),
        "api_curve": curve,
        "api_cost_per_m_tokens": _per_million(computed, {**computed["totals"], "api": total}, own),
        "api_cost_per_m_tokens_apart": _per_million_apart(
            answers, computed, price, total, (input_m, output_m)
        ),
        "totals": {**computed["totals"], "api": total},
        "present_value": {**computed["present_value"], "api": present},
    }


def _api_hybrid(
    answers: Mapping[str, Any],
    cost_at: Callable[[Mapping[str, Any]], Mapping[str, Any]],
    api_at: Callable[[float], tuple[float, float]],
    *,
    volume: float,
    excluded: frozenset[str],
    bought: Callable[[int], int],
) -> dict[str, Any] | None:
    """Own GPUs for the steady base and send the bursts per token: the number owned (the
    whole servers just below and just above the base, or the fewest whose bursts carry only
    the data that may leave: `bought`, the GPUs the servers for so many hold) that costs least, the share of tokens sent per token, and the
    present value of both together. None when demand never bursts above a whole GPU owned,
    owning is ruled out, or no such split keeps the data that must stay."""
    demand = questionnaire.demand_of(answers)
    if "onprem" in excluded or demand.peak_share == 0 or demand.mean <= 0:
        return None
    may_leave = questionnaire.cloud_share_pct(answers) / 100  # what the bursts may carry

    def bursting(owned: int) -> float:
        served = (1 - demand.peak_share) * min(owned, demand.base) + demand.peak_share * owned
        return 1 - served / demand.mean

    # The sizes whole servers come in below the peak: those around the base, and the fewest
    # owned whose bursts carry only data that may leave.
    sizes = sorted({bought(n) for n in range(1, demand.peak)} - {0})
    counts = {
        max((n for n in sizes if n <= demand.base), default=0),
        min((n for n in sizes if n >= demand.base), default=0),
        min((n for n in sizes if n >= demand.base and bursting(n) <= may_leave), default=0),
    }
    found = []
    for owned in sorted(counts):
        burst = bursting(owned)
        if not 1 <= owned < demand.peak or not 0 < burst <= may_leave + 1e-9:
            continue
        base_cost = float(cost_at(owning_answers(answers, owned))["present_value"]["onprem"])
        found.append(
            {
                "owned_gpus": owned,
                "burst_share_pct": round(burst * 100, 2),
                "present_value": round(base_cost + api_at(volume * burst)[1], 2),
            }
        )
    return min(found, key=lambda item: item["present_value"]) if found else None


def _bought(figures: Mapping[str, float]) -> Callable[[int], int]:
    """The GPUs the servers bought for `n` hold: whole servers of `gpus_per_node`, or below
    one, the server of the next power of two GPUs sold (figures.figures_for_fleet)."""
    per_node = int(figures["gpus_per_node"])
    smallest = int(figures.get("smallest_server_gpus", per_node))

    def bought(n: int) -> int:
        if n <= 0:
            return 0
        if n >= per_node or smallest >= per_node:
            return math.ceil(n / per_node) * per_node
        return int(min(max(smallest, 2 ** math.ceil(math.log2(n) - 1e-9)), per_node))

    return bought


def owning_answers(answers: Mapping[str, Any], owned: int) -> dict[str, Any]:
    """The answers of the GPUs a hybrid owns for the steady base (`owned`), on-prem: what
    prices the base of the hybrid that sends its bursts per token."""
    demand = questionnaire.demand_of(answers)
    return {
        key: value for key, value in answers.items() if key not in questionnaire.LEVELS_REPLACE
    } | {
        "gpus": owned,
        "base_gpus": min(owned, demand.base),
        "peak_share_pct": demand.peak_share * 100,
    }


def burst_bills(
    answers: Mapping[str, Any],
    shown: Mapping[str, Any],
    figures: Mapping[str, float],
    *,
    prices_in: str,
) -> np.ndarray:
    """The bill of each month 0..H, in the price set's currency (`prices_in`), for the
    bursts the hybrid sends per token (`shown`: a cost section with `api` and
    `api_hybrid`): the same reckoning as the per-token outcome's (_api_value)."""
    saved, found = shown["api"], shown["api_hybrid"]
    price = tokens.TokenPrice(**{key: saved[key] for key in tokens.TokenPrice.__dataclass_fields__})
    volume = float(saved["tokens_per_day_m"]) * float(found["burst_share_pct"]) / 100
    rate = markets.currency_rate(figures, prices_in=price.currency, shown_in=prices_in)
    return _api_bills(
        price, answers, shown, volume, rate=rate, fall=float(saved["fall_pct_per_year"])
    )


def _not_offered(answers: Mapping[str, Any]) -> Text | None:
    reason = tokens.not_offered(
        workload=answers.get("workload", "training"), residency=answers.get("residency", "none")
    )
    if reason is not None:
        return reason
    if answers.get("workloads"):
        return SEVERAL
    return NOT_ALONE if answers.get("workload") != "inference" else None


def _tokens(served: Mapping[str, Any]) -> tuple[float, float]:
    _training, inference, _errors = sizing.workload_parse({"inference": served})
    assert inference is not None  # checked with the answers
    return inference.tokens_apart()


def _api_value(
    price: tokens.TokenPrice,
    answers: Mapping[str, Any],
    computed: Mapping[str, Any],
    volume: float,
    *,
    rate: float,
    fall: float,
) -> tuple[float, float]:
    """(total, present value) in the page's currency of `volume` million tokens a day."""
    bills = _api_bills(price, answers, computed, volume, rate=rate, fall=fall)
    total, present = tokens.totals(bills, float(computed["discount_rate"]))
    return round(total, 2), round(present, 2)


def _api_bills(
    price: tokens.TokenPrice,
    answers: Mapping[str, Any],
    computed: Mapping[str, Any],
    volume: float,
    *,
    rate: float,
    fall: float,
) -> np.ndarray:
    """The per-token bill of each month 0..H in the page's currency, for `volume` million
    tokens a day growing as the service does: what its total, its present value, its
    cumulative line and its years all read."""
    share = _share(answers)
    months = int(computed["horizon_months"])
    bills = tokens.monthly_costs(
        price,
        input_m_per_day=volume * share,
        output_m_per_day=volume * (1 - share),
        months=months,
        fall_pct_per_year=fall,
    )
    spent: np.ndarray = bills * _growth(answers, months) * rate
    return spent


def _api_lines(bills: np.ndarray, computed: Mapping[str, Any]) -> dict[str, Any]:
    """The per-token outcome beside the GPU options in the cumulative and yearly lines."""
    years = yearly_sums(bills)
    return {
        "cumulative": {
            **computed["cumulative"],
            API: [round(float(v), 2) for v in np.cumsum(bills)],
        },
        "yearly": {**computed["yearly"], API: [round(float(v), 2) for v in years]},
    }


def _growth(answers: Mapping[str, Any], months: int) -> np.ndarray:
    """The service's volume in each month × its first month's: as its GPU demand grows (the
    answers' yearly growth, or their GPUs year by year)."""
    bases, peaks = future_of(answers).demand(1.0, 1.0, months)
    level = (bases + peaks) / 2
    return level / level[1] if months >= 1 and level[1] > 0 else np.ones(months + 1)


def _share(answers: Mapping[str, Any]) -> float:
    input_m, output_m = _tokens(answers["served"])
    return input_m / (input_m + output_m)


def _at_volume(
    answers: Mapping[str, Any], served: Mapping[str, Any], factor: float
) -> dict[str, Any]:
    """The answers with the service scaled to `factor` times its tokens, sized again."""
    scaled = {
        key: value * factor if key.endswith("tokens_per_day_m") else value
        for key, value in served.items()
    }
    _training, inference, _errors = sizing.workload_parse({"inference": scaled})
    sized = sizing.size(gpu_model=answers.get("gpu_model") or "h100", inference=inference)
    demand = sized.answers()
    if "utilization_pct" in answers:  # the user's own average: only the count follows
        demand = {"gpus": demand["gpus"]}
    return {**answers, **demand}


def _gpu_value(computed: Mapping[str, Any], excluded: frozenset[str]) -> float:
    """The cheapest allowed GPU option's present value in a cost section."""
    amounts = costs.outcome_amounts(computed["present_value"], computed["hybrid_reduces_to"])
    allowed = [key for key in computed["options_compared"] if key not in excluded]
    return float(min(amounts[key] for key in allowed or computed["options_compared"]))


def _break_even(
    curve: list[dict[str, float]],
    api_at: Callable[[float], tuple[float, float]],
    gpu_at: Callable[[float], float],
) -> float | None:
    """Where the curve's GPU and API values cross, refined between the two points around it;
    None when the GPUs cost more at every volume looked at."""
    volumes = [point["tokens_per_day_m"] for point in curve]
    found = tokens.break_even(lambda v: api_at(v)[1], gpu_at, volumes=volumes, steps=BISECTIONS)
    return None if found is None else float(f"{found:.3g}")


def _prefill_share(answers: Mapping[str, Any], tokens_m: tuple[float, float]) -> float | None:
    """The share of the GPUs' serving time that reads prompts (prefill) rather than writes
    answers (decode), as the sizing rates them: the published table's rates, the decoding
    slowed by a latency target; None when the sizing went by the FLOPs, which do not part
    them."""
    _training, inference, _errors = sizing.workload_parse({"inference": answers["served"]})
    assert inference is not None  # checked with the answers
    sized = sizing.size(gpu_model=answers.get("gpu_model") or "h100", inference=inference)
    table = sized.throughput
    if not table or not table.get("input_tokens_per_gpu_second"):
        return None
    lines = {line["key"]: line["value"] for line in sized.lines}
    keeps = lines.get("infer_latency_share") or 1.0
    reading = tokens_m[0] / table["input_tokens_per_gpu_second"]
    writing = tokens_m[1] / (table["output_tokens_per_gpu_second"] * keeps)
    return reading / (reading + writing) if reading + writing > 0 else None


def _per_million_apart(
    answers: Mapping[str, Any],
    computed: Mapping[str, Any],
    price: tokens.TokenPrice,
    api_total: float,
    tokens_m: tuple[float, float],
) -> dict[str, dict[str, float]] | None:
    """Each option's cost per million input tokens and per million output tokens: a GPU
    option's total parted by the serving time each takes (_prefill_share), per token's by
    its two prices; None when the sizing does not part them."""
    share = _prefill_share(answers, tokens_m)
    days = computed["horizon_months"] * 365 / 12
    input_m, output_m = (volume * days for volume in tokens_m)
    if share is None or input_m <= 0 or output_m <= 0:
        return None
    billed_in = price.price_in_per_m * tokens_m[0]
    api_share = billed_in / (billed_in + price.price_out_per_m * tokens_m[1])
    parts = {key: (value, share) for key, value in computed["totals"].items()}
    parts["api"] = (api_total, api_share)
    return {
        key: {
            "input": round(total * part / input_m, 4),
            "output": round(total * (1 - part) / output_m, 4),
        }
        for key, (total, part) in parts.items()
    }


def _per_million(
    computed: Mapping[str, Any], totals: Mapping[str, float], tokens_per_day_m: float
) -> dict[str, float]:
    """Each option's total over the horizon per million tokens, served at today's volume
    throughout: what a token costs on it, in the page's currency."""
    served = tokens_per_day_m * computed["horizon_months"] * 365 / 12
    return {key: round(value / served, 4) for key, value in totals.items() if served > 0}
