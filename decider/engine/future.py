"""The future the plans price: how demand grows and cloud and server prices fall.

The cost model prices one demand for the whole horizon; here the demand may grow (a yearly
rate, or a base and a peak per year) and cloud and server prices may fall, as the answers
give them (none given: today's demand and prices hold). One future serves every section:
the cost section, the plan in stages, buy now or wait and the next generation.

Plain Python and numpy: no Django.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from decider.engine.i18n import gettext

MAX_YEARS = 10


@dataclass(frozen=True)
class Future:
    """How demand grows and cloud prices fall over the horizon."""

    growth_pct: float = 0.0  # a year, compounded monthly (ignored when `years` is given)
    years: tuple[tuple[float, float], ...] = ()  # (base, peak) GPUs for year 1, 2, ...
    cloud_fall_pct: float = 0.0  # a year: cloud GPU-hour prices this much lower each year
    growth_scale: float = 1.0  # the change from month 0's demand, × this (the odds draw it)
    hardware_fall_pct: float = 0.0  # a year: servers ordered later cost this much less

    def demand(self, base: float, peak: float, months: int) -> tuple[np.ndarray, np.ndarray]:
        """(base, peak) GPUs in each month 1..months (index 0 is month 0, before any work)."""
        t = np.arange(months + 1, dtype=float)
        if self.years:
            year = np.clip(np.ceil(t / 12).astype(int) - 1, 0, len(self.years) - 1)
            bases = np.array([b for b, _p in self.years])[year]
            peaks = np.array([p for _b, p in self.years])[year]
        else:
            factor = (1 + self.growth_pct / 100) ** (t / 12)
            bases, peaks = base * factor, peak * factor
        if self.growth_scale == 1.0:
            return bases, peaks
        peaks = np.maximum(peaks[0] + (peaks - peaks[0]) * self.growth_scale, 0.0)
        bases = np.clip(bases[0] + (bases - bases[0]) * self.growth_scale, 0.0, peaks)
        return bases, peaks

    @property
    def grows(self) -> bool:
        """Whether demand changes over the horizon (the cost section prices today's)."""
        return bool(self.years) or self.growth_pct != 0

    @property
    def prices_move(self) -> bool:
        """Whether the answers give a fall of cloud or server prices (none: today's hold)."""
        return self.cloud_fall_pct != 0 or self.hardware_fall_pct != 0

    def price_factor(self, months: int) -> np.ndarray:
        t = np.arange(months + 1, dtype=float)
        return (1 - self.cloud_fall_pct / 100) ** (t / 12)

    def hardware_factor(self, months: int) -> np.ndarray:
        """Servers ordered in each month 0..months, × today's price."""
        t = np.arange(months + 1, dtype=float)
        return (1 - self.hardware_fall_pct / 100) ** (t / 12)


def future_of(answers: Mapping[str, Any]) -> Future:
    """The future the answers give: `growth_pct`, `cloud_price_fall_pct` and
    `hardware_price_fall_pct` (questions), `growth_years` (a base and a peak per year,
    checked by years_given); none: today's demand and prices hold. The one future every
    section prices: the cost section, the plan, the wait and the next generation."""
    years = tuple((row["base_gpus"], row["peak_gpus"]) for row in answers.get("growth_years", ()))
    return Future(
        growth_pct=float(answers.get("growth_pct") or 0.0),
        years=years,
        cloud_fall_pct=float(answers.get("cloud_price_fall_pct") or 0.0),
        hardware_fall_pct=float(answers.get("hardware_price_fall_pct") or 0.0),
    )


def years_given(raw: Any) -> tuple[tuple[tuple[float, float], ...], tuple[str, str] | None]:
    """The answers' `growth_years` checked: ((base, peak) per year, None), or ((), (key,
    message)) naming the first year that is wrong.

    raw: [{"base_gpus": 8, "peak_gpus": 16}, ...] for year 1, 2, …; the last year holds.
    """
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_YEARS:
        return (), ("growth_years", gettext("must be a list of 1 to 10 years"))
    years = []
    for i, row in enumerate(raw):
        key = f"growth_years.{i}"
        if not isinstance(row, Mapping) or set(row) != {"base_gpus", "peak_gpus"}:
            return (), (key, gettext("must be an object with base_gpus and peak_gpus"))
        base, peak = row["base_gpus"], row["peak_gpus"]
        if not (_number(base) and _number(peak) and 0 <= base <= peak <= 100_000 and peak >= 1):
            return (), (key, gettext("needs 0 ≤ base_gpus ≤ peak_gpus ≤ 100000, peak ≥ 1"))
        years.append((float(base), float(peak)))
    return tuple(years), None


def _number(value: Any) -> bool:
    """A finite number (a JSON integer such as 10**400 is too large for a float: not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
