"""GPU demand as a steady base plus bursts to a peak: the profile the cost model serves.

Demand sits at `base` GPUs most of the time and at `peak` GPUs a share
`peak_share` of the time (source §七: utilization; §六: steady work owned, peaks
rented). Owning G GPUs serves demand up to G; what lies above is rented. The
profile has two levels, so every split and every best commitment has a
closed form.

Assessments answered before the base and peak were asked give an average
utilization and a demand shape instead: `Demand.from_average` turns those
into the same two levels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# The answers that give a demand: the peak with an average and a shape, or with the levels.
DEMAND_ANSWERS = ("gpus", "utilization_pct", "demand_shape", "base_gpus", "peak_share_pct")
# The share of the work whose data may run in the cloud (%), by the data residency answer.
CLOUD_SHARE_BY_RESIDENCY = {"none": 100.0, "partial": 50.0, "all": 0.0}
# Legacy answers: the base level as a share of the average utilization.
SHAPE_BASE_SHARE = {"steady": 1.0, "moderate": 0.6, "peaky": 0.3}
# A derived demand shape, by the ratio of the highest demand to the average.
STEADY_MAX_RATIO = 1.2
MODERATE_MAX_RATIO = 2.0


@dataclass(frozen=True)
class Demand:
    peak: int  # GPUs at the highest demand the plan must serve (the questionnaire's `gpus`)
    base: float  # GPUs busy around the clock
    peak_share: float  # share of the time demand sits at the peak, 0..1

    def __post_init__(self) -> None:
        if isinstance(self.peak, bool) or not isinstance(self.peak, int) or self.peak < 1:
            raise ValueError(f"the peak must be a whole number of GPUs >= 1, got {self.peak!r}")
        if not (math.isfinite(self.base) and 0 <= self.base <= self.peak):
            raise ValueError(f"the base must be within 0..{self.peak} GPUs, got {self.base!r}")
        if not (math.isfinite(self.peak_share) and 0 <= self.peak_share <= 1):
            raise ValueError(f"the peak share must be within 0..1, got {self.peak_share!r}")

    @classmethod
    def from_average(cls, *, peak: int, utilization: float, shape: str) -> Demand:
        """The two levels behind an average utilization and a demand shape (legacy answers)."""
        if shape not in SHAPE_BASE_SHARE:
            raise ValueError(
                f"demand_shape must be one of {sorted(SHAPE_BASE_SHARE)}, got {shape!r}"
            )
        level = utilization * SHAPE_BASE_SHARE[shape]
        share = 0.0 if level >= 1 else (utilization - level) / (1 - level)
        return cls(
            peak=peak, base=min(level * peak, float(peak)), peak_share=min(max(share, 0.0), 1.0)
        )

    @classmethod
    def from_base(cls, *, peak: int, base: float, utilization: float) -> Demand:
        """The base given, the peak share that makes the average `utilization`."""
        share = 0.0 if peak <= base else (utilization * peak - base) / (peak - base)
        return cls(peak=peak, base=float(base), peak_share=min(max(share, 0.0), 1.0))

    @property
    def mean(self) -> float:
        """Mean GPUs busy."""
        return self.base + self.peak_share * (self.peak - self.base)

    @property
    def utilization(self) -> float:
        return self.mean / self.peak

    @property
    def highest(self) -> float:
        """The highest demand that actually occurs (the base, when demand never bursts)."""
        return float(self.peak) if self.peak_share > 0 else self.base

    def shape(self) -> str:
        """steady | moderate | peaky, by the ratio of the highest demand to the mean."""
        if self.mean <= 0:
            return "steady"
        ratio = self.highest / self.mean
        if ratio <= STEADY_MAX_RATIO:
            return "steady"
        return "moderate" if ratio <= MODERATE_MAX_RATIO else "peaky"

    def above(self, floor: float) -> tuple[float, float]:
        """The two demand levels left above `floor` GPUs: (at base times, at peak times)."""
        return max(self.base - floor, 0.0), max(self.peak - floor, 0.0)

    def split(self, owned: float) -> tuple[float, float]:
        """(mean GPUs busy on `owned` GPUs, mean GPUs of demand above them)."""
        # At the two ends the mean itself, so hybrid(0) and hybrid(peak) are the
        # pure options to the bit.
        if owned <= 0:
            return 0.0, self.mean
        if owned >= self.peak:
            return self.mean, 0.0
        low, high = self.above(owned)
        rented = (1 - self.peak_share) * low + self.peak_share * high
        return self.mean - rented, rented
