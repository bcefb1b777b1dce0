"""The form renderer: Django's own, with the plain `<input>` drawn in Python.

Django renders every input, and every option of a radio list, through a template of its
own: on a step page that was most of the page's time. Those templates are one line of
markup (`django/forms/widgets/input.html` and the ones that only include it); this draws the
same line from the same widget context, so the widget's attributes (required, aria-invalid,
aria-describedby, checked) are still Django's. Every other widget goes through the
templates as before. `tests/test_forms.py` compares the two renderers on every form.
"""

from __future__ import annotations

from typing import Any

from django.forms.renderers import DjangoTemplates
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe

_WIDGETS = "django/forms/widgets/%s.html"
# Templates that are input.html, or include only it.
INPUTS = frozenset(
    _WIDGETS % name
    for name in ("input", "text", "hidden", "number", "email", "url", "password", "checkbox")
)
# input_option.html: input.html, inside a <label> when the option wraps its label.
OPTIONS = frozenset(_WIDGETS % name for name in ("radio_option", "checkbox_option"))


def _attrs(attrs: dict[str, Any]) -> str:
    """attrs.html: `name="value"`, a bare `name` for True, nothing for False."""
    return "".join(
        f" {conditional_escape(name)}"
        if value is True
        else f' {conditional_escape(name)}="{escape(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


def input_html(widget: dict[str, Any]) -> str:
    value = widget["value"]
    shown = "" if value is None else f' value="{escape(value)}"'
    kind, name = conditional_escape(widget["type"]), conditional_escape(widget["name"])
    return f'<input type="{kind}" name="{name}"{shown}{_attrs(widget["attrs"])}>'


def option_html(widget: dict[str, Any]) -> str:
    if not widget.get("wrap_label"):
        return input_html(widget)
    input_id = widget["attrs"].get("id")
    label_for = f' for="{conditional_escape(input_id)}"' if input_id else ""
    return f"<label{label_for}>{input_html(widget)} {conditional_escape(widget['label'])}</label>"


class FormRenderer(DjangoTemplates):
    def render(self, template_name: str, context: dict[str, Any], request: Any = None) -> str:
        if template_name in INPUTS:
            return mark_safe(input_html(context["widget"]))
        if template_name in OPTIONS:
            return mark_safe(option_html(context["widget"]))
        return super().render(template_name, context, request=request)
