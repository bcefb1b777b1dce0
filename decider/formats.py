"""Money and months as a page shows them, in the active language: the one place both the
templates (templatetags/decider_tags.py) and Python (summary.py, forms.py) format them.
The arithmetic of the figures themselves is decider/numbers.py (plain Python)."""

from __future__ import annotations

import math
from datetime import date
from typing import Any

from django.utils import formats
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from decider import numbers
from decider.engine.markets import symbol_of
from decider.engine.text import is_chinese


def money(value: Any, currency: str = "USD") -> str:
    """1234567.8 -> '$1,234,568' (whole units; cost figures are estimates); in Chinese
    '$123.46万' (decider/numbers.py); '—' for no figure."""
    if value is None or value == "":
        return "—"
    return numbers.money_full(float(value), currency, get_language())


def small_price(value: Any, currency: str = "USD") -> str:
    """0.01134 -> '$0.0113': a price of a million tokens, to three significant digits."""
    if value is None or value == "":
        return "—"
    amount = float(value)
    digits = max(2, 2 - math.floor(math.log10(abs(amount)))) if amount else 2
    return f"{symbol_of(currency)}{amount:,.{digits}f}"


def month_text(value: Any) -> str:
    """ "2026-03-01" -> "March 2026", "2026年3月" in Chinese: the month a figure was checked."""
    if not value:
        return "—"
    try:
        day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    except ValueError:
        return str(value)
    return formats.date_format(day, "YEAR_MONTH_FORMAT")


def tokens_text(millions: float) -> str:
    """A volume of tokens as a reader says it: "1.4 billion", "50 million"; 14 亿, 5,000 万."""

    def three(number: float) -> str:  # three significant digits, never an exponent
        return f"{float(f'{number:.3g}'):,g}"

    if is_chinese(get_language() or "en"):
        return f"{three(millions / 100)} 亿" if millions >= 100 else f"{three(millions * 100)} 万"
    if millions >= 1000:
        return _("%(n)s billion") % {"n": three(millions / 1000)}
    return _("%(n)s million") % {"n": three(millions)}
