"""Post admin forms as a browser would: every field as the page shows it, then the changes."""

from django.urls import reverse


def form_data(form) -> dict:
    data = {}
    for bound in form:
        value = bound.value()
        if isinstance(value, bool) or value is None:
            if value:
                data[bound.html_name] = "on"
            continue
        data[bound.html_name] = value
    return data


def change_form_data(page) -> dict:
    """The POST a change page would send unchanged: its form and every inline formset."""
    data = form_data(page.context["adminform"].form)
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        data |= form_data(formset.management_form)
        for form in formset.forms:
            data |= form_data(form)
    return data


def changelist_data(page) -> dict:
    formset = page.context["cl"].formset
    data = form_data(formset.management_form)
    for form in formset.forms:
        data |= form_data(form)
    return data | {"_save": "Save"}


def inline_prefix(page, model_name: str) -> str:
    for inline in page.context["inline_admin_formsets"]:
        if inline.formset.model._meta.model_name == model_name:
            return inline.formset.prefix
    raise LookupError(model_name)


def inline_form_index(page, model_name: str, **match) -> int:
    """Index of the inline form whose instance has these attribute values."""
    for inline in page.context["inline_admin_formsets"]:
        if inline.formset.model._meta.model_name != model_name:
            continue
        for index, form in enumerate(inline.formset.forms):
            if all(getattr(form.instance, k) == v for k, v in match.items()):
                return index
    raise LookupError(match)


def change_url(obj) -> str:
    return reverse(f"admin:decider_{obj._meta.model_name}_change", args=[obj.pk])


def weight_list_post(client, ruleset, key: str, weight: str):
    """Change one criterion's weight in the criteria list of a rule set, as an admin would.

    Returns (the response, the row's index in the list's formset).
    """
    url = reverse("admin:decider_criterion_changelist") + f"?ruleset__id__exact={ruleset.pk}"
    page = client.get(url)
    data = changelist_data(page)
    forms = page.context["cl"].formset.forms
    index = next(i for i, f in enumerate(forms) if f.instance.key == key)
    data[f"form-{index}-weight"] = weight
    return client.post(url, data), index
