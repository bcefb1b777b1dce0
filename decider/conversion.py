"""Money at the edge: a section computed once, in USD, shown in another currency.

The cost section, the odds and the plan of a result are computed once, in USD (the currency
the scoring computes in, decider/services.py), and kept. A page in yuan reads the same
computation, its money converted here at the price set's rate, never computed a second
time: two currencies cannot tell two stories.

Each section names where its money is (`MONEY`): a path of keys, `*` any key of a mapping,
`[]` each item of a list. Everything else (GPUs, months, shares, probabilities, the figures
as the price set writes them) is the same in every currency.
tests/test_conversion.py holds that a section converted is the section computed in that
currency, leaf by leaf, over the personas, growth, workloads, providers and both markets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Path = tuple[str, ...]

# Where each section keeps its money.
MONEY: dict[str, tuple[Path, ...]] = {
    "costs": (
        ("present_value", "*"),
        ("totals", "*"),
        ("yearly", "*", "[]"),
        ("cumulative", "*", "[]"),
        ("breakdown", "*", "*"),
        ("per_hour", "onprem", "[]"),
        ("per_hour", "cloud_on_demand", "[]"),
        ("per_hour", "cloud_reserved", "[]"),
        ("hybrid_curve", "total", "[]"),
        ("hybrid_curve", "present_value", "[]"),
        ("sensitivity", "[]", "low"),
        ("sensitivity", "[]", "high"),
        ("migration", "cost"),
        ("owned_per_used_gpu_hour",),
        ("owned_hour_tiers", "[]", "per_hour"),
        ("api_hybrid", "present_value"),
        ("api_curve", "[]", "api"),
        ("api_curve", "[]", "gpus"),
        ("api_cost_per_m_tokens", "*"),
        ("api_cost_per_m_tokens_apart", "*", "*"),
        ("provider", "present_value"),
        ("provider", "market_present_value"),
        ("provider_runner_up", "present_value"),
    ),
    "odds": (
        ("present_value", "*", "*"),
        ("bands", "cloud_committed", "*", "[]"),
        ("bands", "cloud_on_demand", "*", "[]"),
        ("bands", "cloud_reserved", "*", "[]"),
        ("bands", "hybrid", "*", "[]"),
        ("bands", "onprem", "*", "[]"),
        ("bands", "api", "*", "[]"),
    ),
    "plan": (
        ("chosen_present_value",),
        ("present_value", "*"),
        ("outcome_present_value", "*"),
        ("alternatives", "[]", "present_value"),
        ("stages", "[]", "saves"),
        ("odds", "present_value", "*", "*"),
        ("wait", "options", "[]", "present_value"),
        ("generation", "options", "[]", "present_value"),
        ("generation", "rent_only", "present_value"),
        ("generation", "worth", "[]", "running"),
        ("generation", "worth", "[]", "cloud_equivalent"),
        ("pooling", "apart_present_value"),
        ("pooling", "together_present_value"),
        ("pooling", "saving"),
        ("workloads", "[]", "present_value"),
        ("workloads", "[]", "alone", "present_value"),
    ),
}


# Prices per million tokens, kept to four decimals (as the cost section computes them).
FINE: frozenset[Path] = frozenset(
    {("api_cost_per_m_tokens", "*"), ("api_cost_per_m_tokens_apart", "*", "*")}
)


def converted(
    section: str, found: Mapping[str, Any], *, rate: float, currency: str
) -> dict[str, Any]:
    """`found` (a `section` computed in USD) in `currency`, each amount times `rate` to the
    cent; the section's `currency` says which it is in."""
    shown = _copied(found)
    for path in MONEY[section]:
        _scaled(shown, path, rate, 4 if path in FINE else 2)
    if "currency" in shown:
        shown["currency"] = currency
    return shown


def _copied(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _copied(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_copied(value) for value in node]
    return node


def _scaled(node: Any, path: Path, rate: float, digits: int) -> None:
    """Every amount at `path` under `node`, times `rate` in place (a missing key, None or a
    value that is no number: left as it is)."""
    if not path or node is None:
        return
    head, rest = path[0], path[1:]
    if head == "[]":
        if isinstance(node, list):
            if rest:
                for item in node:
                    _scaled(item, rest, rate, digits)
            else:
                node[:] = [_amount(value, rate, digits) for value in node]
        return
    if not isinstance(node, dict):
        return
    keys = list(node) if head == "*" else [head] if head in node else []
    for key in keys:
        if rest:
            _scaled(node[key], rest, rate, digits)
        else:
            node[key] = _amount(node[key], rate, digits)


def _amount(value: Any, rate: float, digits: int) -> Any:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return round(value * rate, digits)
