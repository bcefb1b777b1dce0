"""Amounts as a reader of each language writes them: "$3.6M" in English, "¥362万" in Chinese.

Chinese groups large numbers by ten thousand (万) and a hundred million (亿), not by
thousands; a Chinese reader takes "200M" in as a foreign unit. Plain Python: the pages,
the charts and the PDF all format through here.
"""

from __future__ import annotations

import math

from decider.engine.markets import symbol_of
from decider.engine.text import is_chinese

_GROUPS = {"zh": ((1e8, "亿"), (1e4, "万")), "en": ((1e9, "B"), (1e6, "M"), (1e3, "k"))}


def _family(language: str | None) -> str:
    return "zh" if is_chinese(language) else "en"


def _with_currency(number: str, currency: str) -> str:
    if number.startswith("-"):
        return "-" + _with_currency(number[1:], currency)
    symbol = symbol_of(currency)
    return f"{symbol}{number}" if symbol else f"{number} {currency}"


def compact(value: float, language: str | None) -> str:
    """740000 -> "740k" or "74万"; 3618698 -> "3.6M" or "362万"; 2.3e8 -> "230M" or "2.3亿"."""
    sign, size_of = ("-" if value < 0 else ""), abs(value)
    for size, suffix in _GROUPS[_family(language)]:
        if size_of >= size:
            scaled = size_of / size
            return f"{sign}{scaled:.1f}{suffix}" if scaled < 10 else f"{sign}{scaled:,.0f}{suffix}"
    return f"{sign}{size_of:,.0f}"


def money_compact(value: float, currency: str, language: str | None) -> str:
    return _with_currency(compact(value, language), currency)


def money_full(value: float, currency: str, language: str | None) -> str:
    """To the unit in English ("$3,618,698"); in Chinese to 0.01 万 or 亿 ("¥361.87万")."""
    size_of = abs(value)
    if _family(language) == "zh":
        for size, suffix in _GROUPS["zh"]:
            if size_of >= size:
                return _with_currency(f"{value / size:,.2f}{suffix}", currency)
    return _with_currency(f"{value:,.0f}", currency)


def tick_label(value: float, currency: str, language: str | None) -> str:
    """An axis tick: as short as it stays exact ("¥2亿", "¥2,500万", "$1.5M", "$0.5")."""
    size_of = abs(value)
    for size, suffix in _GROUPS[_family(language)]:
        if size_of >= size:
            return _with_currency(f"{value / size:,.4g}{suffix}", currency)
    return _with_currency(f"{value:,.0f}" if size_of >= 1 else f"{value:g}", currency)


def linear_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values (1, 2, 2.5 or 5 × 10ⁿ apart) covering low..high, about `count` of them."""
    if not (math.isfinite(low) and math.isfinite(high)) or high == low:
        return [low]
    raw = (high - low) / max(1, count - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = [round(first, 10)]
    while ticks[-1] < high and len(ticks) < 50:  # up to the first tick at or above `high`
        ticks.append(round(ticks[-1] + step, 10))
    return ticks
