"""The outcomes and the cost options, with the one name each is shown by.

Three outcomes use GPUs (`GPU_OUTCOMES`); the fourth, a hosted model paid per token
(`API`), is weighed only for a service sized from what it serves (issue 36).

Names are marked for translation here and translated where they are shown
(`outcome_name`, `cost_option_label`, or `gettext_lazy` on Django's side).
"""

from __future__ import annotations

from decider.engine.i18n import gettext, gettext_noop

GPU_OUTCOMES: tuple[str, ...] = ("onprem", "cloud", "hybrid")
API = "api"
OUTCOMES: tuple[str, ...] = (*GPU_OUTCOMES, API)

OUTCOME_NAMES: dict[str, str] = {
    "onprem": gettext_noop("On-premises GPU cluster"),
    "cloud": gettext_noop("Cloud GPU platform"),
    "hybrid": gettext_noop("Hybrid: own a base, burst to cloud"),
    "api": gettext_noop("Hosted model, paid per token"),
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
    "api": gettext_noop(
        "Run no GPUs: call a provider's hosted model of the same class and pay per million tokens."
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
    "api": gettext_noop("Per token"),  # no cost option: the per-token outcome, named beside them
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
