from decimal import Decimal
from html import escape  # django.utils.html.escape's own, without its lazy-text wrapper

from django import template
from django.utils.safestring import mark_safe

from decider import formats
from decider.engine.markets import symbol_of
from decider.formats import money, month_text
from decider.method import cite_links

register = template.Library()


register.filter("money", money)


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


@register.simple_tag
def chart_rows(rows) -> str:
    """A chart table's body rows, the first cell of each a label and the rest numbers: what
    `{% for %}` over every cell would draw, at a tenth of its cost (the cumulative chart of
    ten years is 121 rows)."""
    return mark_safe(
        "".join(
            "<tr>"
            + "".join(
                f"<td>{escape(cell(v))}</td>"
                if i == 0
                else f'<td class="num">{escape(cell(v))}</td>'
                for i, v in enumerate(row)
            )
            + "</tr>"
            for row in rows
        )
    )


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if mapping else None


@register.filter
def pct(value) -> str:
    """0.08 -> '8 %' (a share shown as a percentage)."""
    if value is None or value == "":
        return "—"
    return f"{float(value) * 100:g} %"


@register.filter
def rate(value, currency: str = "USD") -> str:
    """3.914 -> '$3.91': a price per hour, to the cent."""
    if value is None or value == "":
        return "—"
    return f"{symbol_of(currency)}{float(value):,.2f}"


@register.filter
def figure_value(value) -> str:
    """A cost figure at its own precision: 0.005 -> '0.005', 310000.0 -> '310,000'."""
    if value is None or value == "":
        return "—"
    exponent = Decimal(repr(float(value))).normalize().as_tuple().exponent
    places = min(6, max(0, -exponent)) if isinstance(exponent, int) else 0
    return f"{float(value):,.{places}f}"


@register.filter
def cite(text) -> str:
    """Quotations of the source ("§IV.6") linked to the method page; the rest escaped."""
    return cite_links(str(text))


register.filter("month", month_text)


class KeptNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str, source: str) -> None:
        self.nodelist, self.name, self.source = nodelist, name, source

    def render(self, context: template.Context) -> str:
        kept = context.get(self.source)
        if kept is None:
            return self.nodelist.render(context)
        # The report draws the charts at a fixed size: its fragments are its own.
        name = f"{self.name}:{context.get('chart_width') or ''}"
        if (html := kept.get(name)) is None:
            html = self.nodelist.render(context)
            kept.put(name, html)
        return mark_safe(html)


@register.tag
def kept(parser: template.base.Parser, token: template.base.Token) -> KeptNode:
    """{% kept "name" [using variable] %}...{% endkept %}: drawn once per scored result and
    then read from the cache (decider.caching.Kept, in `kept` unless named). Nothing in it
    may differ between requests: no link token, no CSRF value, no "now"."""
    bits = token.split_contents()
    if len(bits) not in (2, 4) or (len(bits) == 4 and bits[2] != "using"):
        raise template.TemplateSyntaxError('usage: {% kept "name" [using variable] %}')
    nodelist = parser.parse(("endkept",))
    parser.delete_first_token()
    return KeptNode(nodelist, bits[1].strip("\"'"), bits[3] if len(bits) == 4 else "kept")


class FoldNode(template.Node):
    def __init__(
        self,
        nodelist: template.NodeList,
        key: template.base.FilterExpression,
        title: template.base.FilterExpression,
        opened: template.base.FilterExpression | None,
    ) -> None:
        self.nodelist, self.key, self.title, self.opened = nodelist, key, title, opened

    def render(self, context: template.Context) -> str:
        key = escape(str(self.key.resolve(context)))
        title = escape(str(self.title.resolve(context)))
        opened = " open" if self.opened is not None and self.opened.resolve(context) else ""
        return mark_safe(
            f'<details class="fold" id="{key}"{opened}>'
            f'<summary><h2 class="fold-title" id="{key}-title">{title}</h2></summary>'
            f'<div class="fold-body">{self.nodelist.render(context)}</div></details>'
        )


@register.tag
def fold(parser: template.base.Parser, token: template.base.Token) -> FoldNode:
    """{% fold "id" title [open=expression] %}...{% endfold %}: a section of the result page
    folded under its title (a <details>), opened on click, from a link to it or to anything
    in it, and for printing (app.js). The report prints the same partials unfolded."""
    bits = token.split_contents()
    opened = None
    if len(bits) == 4 and bits[3].startswith("open="):
        opened = parser.compile_filter(bits.pop()[len("open=") :])
    if len(bits) != 3:
        raise template.TemplateSyntaxError('usage: {% fold "id" title [open=expression] %}')
    nodelist = parser.parse(("endfold",))
    parser.delete_first_token()
    return FoldNode(
        nodelist, parser.compile_filter(bits[1]), parser.compile_filter(bits[2]), opened
    )


@register.filter
def small_price(value, currency: str = "USD") -> str:
    """0.01134 -> '$0.0113': a price of a million tokens, to three significant digits."""
    return formats.small_price(value, currency)
