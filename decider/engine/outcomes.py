"""The three outcomes and the four cost options, with the one name each is shown by.

Names are marked for translation here and translated where they are shown
(`outcome_name`, `cost_option_label`, or `gettext_lazy` on Django's side).
"""

from __future__ import annotations

from decider.engine.i18n import gettext, gettext_noop

OUTCOMES: tuple[str, ...] = ("onprem", "cloud", "hybrid")

OUTCOME_NAMES: dict[str, str] = {
    "onprem": gettext_noop("On-premises GPU cluster"),
    "cloud": gettext_noop("Cloud GPU platform"),
    "hybrid": gettext_noop("Hybrid: own a base, burst to cloud"),
}
OUTCOME_SUMMARIES: dict[str, str] = {
    "onprem": gettext_noop(
        "Buy servers, network and storage and run the cluster and its scheduler yourselves."
    ),
    "cloud": gettext_noop(
        "Rent GPU instances, container clusters or serverless compute on demand from a provider."
    ),
    "hybrid": gettext_noop(
        "Own a base of GPUs for steady and sensitive work and rent cloud capacity for the peaks."
    ),
}

# What the cost model prices: the outcomes, with cloud in three pricing modes.
COST_OPTIONS: tuple[str, ...] = (
    "onprem",
    "cloud_on_demand",
    "cloud_reserved",
    "cloud_committed",
    "hybrid",
)
COST_OPTION_LABELS: dict[str, str] = {
    "onprem": gettext_noop("On-premises"),
    "cloud_on_demand": gettext_noop("Cloud on demand"),
    "cloud_reserved": gettext_noop("Cloud reserved"),
    "cloud_committed": gettext_noop("Cloud committed + on demand"),
    "hybrid": gettext_noop("Hybrid"),
}

# The cost model's verdict, an answer the rule engine reads: "<cheapest outcome>_<strength>".
COST_VERDICTS: tuple[str, ...] = tuple(
    f"{outcome}_{strength}" for outcome in OUTCOMES for strength in ("clear", "slight")
)
# The odds' verdict, for a rule set whose cost criterion reads the odds instead:
# "<likeliest cheapest outcome>_<sure (≥ 80 % of draws) | likely (≥ 50 %) | lean (less)>".
COST_ODDS: tuple[str, ...] = tuple(
    f"{outcome}_{strength}" for outcome in OUTCOMES for strength in ("sure", "likely", "lean")
)
ODDS_SURE, ODDS_LIKELY = 0.8, 0.5


def outcome_name(outcome: str | None) -> str:
    """The translated name of an outcome; "" for none or an unknown key."""
    if outcome is None or outcome not in OUTCOME_NAMES:
        return ""
    return gettext(OUTCOME_NAMES[outcome])


def cost_option_label(option: str) -> str:
    return gettext(COST_OPTION_LABELS[option])
