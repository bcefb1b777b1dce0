"""Published costs per used GPU-hour, to read the owned cost against (issue 51).

What a GPU-hour costs whoever owns a cluster at scale, and what a long commitment rents it
for, per GPU model, in USD per GPU-hour of that model, dated and sourced. The result prints
its own cost of owning beside them; they are never used to price anything.

Plain Python: no Django.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PUBLISHER = "SemiAnalysis"
SEMIANALYSIS = (
    "SemiAnalysis, AI cloud total cost of ownership model (cluster TCO per GPU-hour: owned at "
    "hyperscaler volume, owned by a neocloud, rented on a 3-year commitment), as quoted in "
    "issue 51"
)
SEMIANALYSIS_AS_OF = "2026-07-01"


@dataclass(frozen=True)
class Tier:
    key: str  # vocabulary.TIER_LABELS names it
    per_hour: float  # USD per GPU-hour of the model
    publisher: str  # who published it, as a sentence names them
    source: str
    as_of: str

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "per_hour": self.per_hour,
            "publisher": self.publisher,
            "source": self.source,
            "as_of": self.as_of,
        }


def _tiers(hyperscaler: float, neocloud: float, rented: float) -> tuple[Tier, ...]:
    return tuple(
        Tier(key, value, PUBLISHER, SEMIANALYSIS, SEMIANALYSIS_AS_OF)
        for key, value in (
            ("owned_hyperscaler", hyperscaler),
            ("owned_neocloud", neocloud),
            ("rented_3y", rented),
        )
    )


TIERS: dict[str, tuple[Tier, ...]] = {
    "h100": _tiers(1.17, 1.55, 2.00),
    "b200": _tiers(1.73, 2.07, 3.70),
}


def tiers_for(gpu_model: str) -> tuple[Tier, ...]:
    """The published tiers for a GPU model (none where nothing is published)."""
    return TIERS.get(gpu_model, ())
