from django import template

register = template.Library()

SYMBOLS = {"USD": "$", "CNY": "¥"}


@register.filter
def money(value, currency: str = "USD") -> str:
    """1234567.8 -> '$1,234,568' (whole units; cost figures are estimates)."""
    if value is None or value == "":
        return "—"
    return f"{SYMBOLS.get(currency, '')}{float(value):,.0f}"


@register.filter
def signed(value) -> str:
    return f"{float(value):+.1f}"


@register.filter
def cell(value) -> str:
    """A chart-table cell: numbers with separators, the rest as they are."""
    if isinstance(value, bool) or value is None:
        return "—" if value is None else str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
    return str(value)


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def pct(value) -> str:
    """0.08 -> '8 %' (a share shown as a percentage)."""
    if value is None or value == "":
        return "—"
    return f"{float(value) * 100:g} %"
