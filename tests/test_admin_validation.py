"""Every rule a rule set must keep refuses a bad edit in admin, with its message, saving nothing."""

import pytest

from decider.models import Constraint, Criterion, RuleSet
from decider.rulesets import ruleset_draft, ruleset_export
from tests.adminforms import (
    change_form_data,
    change_url,
    inline_form_index,
    inline_prefix,
    weight_list_post,
)


@pytest.fixture
def admin_client(client, django_user_model, rules):
    admin = django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")
    client.force_login(admin)
    return client


@pytest.fixture
def draft(rules):
    return ruleset_draft(RuleSet.objects.get(version=1))


def inline_formset(page, model_name):
    for inline in page.context["inline_admin_formsets"]:
        if inline.formset.model._meta.model_name == model_name:
            return inline.formset
    raise LookupError(model_name)


def post_option_edit(admin_client, criterion, match, **changes):
    """Change one option on the criterion page; return the response."""
    page = admin_client.get(change_url(criterion))
    data = change_form_data(page)
    prefix = inline_prefix(page, "option")
    index = inline_form_index(page, "option", **match)
    for field, value in changes.items():
        data[f"{prefix}-{index}-{field}"] = value
    return admin_client.post(change_url(criterion), data), index


def assert_refused(response, draft, before):
    assert response.status_code == 200  # the form again, not a redirect
    assert "Please correct the error" in response.content.decode()
    assert ruleset_export(RuleSet.objects.get(pk=draft.pk)) == before


def option_errors(response, index, field):
    return inline_formset(response, "option").forms[index].errors.get(field, [])


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("weight", "-1", "The weight cannot be negative."),
        ("label_zh", "", "This field is required."),  # the label missing in Chinese
    ],
)
def test_it_refuses_a_bad_field_on_the_criterion_page(admin_client, draft, field, value, message):
    before = ruleset_export(draft)
    criterion = draft.criteria.get(key="stage")
    data = change_form_data(admin_client.get(change_url(criterion))) | {field: value}
    response = admin_client.post(change_url(criterion), data)
    assert_refused(response, draft, before)
    assert response.context["adminform"].form.errors[field] == [message]


def test_it_refuses_a_negative_weight_in_the_list(admin_client, draft):
    before = ruleset_export(draft)
    response, index = weight_list_post(admin_client, draft, "stage", "-2")
    assert response.status_code == 200
    assert response.context["cl"].formset.forms[index].errors["weight"] == [
        "The weight cannot be negative."
    ]
    assert ruleset_export(RuleSet.objects.get(pk=draft.pk)) == before


def test_it_refuses_all_weights_zero_on_the_rule_set_page(admin_client, draft):
    before = ruleset_export(draft)
    page = admin_client.get(change_url(draft))
    data = change_form_data(page)
    prefix = inline_prefix(page, "criterion")
    for index in range(draft.criteria.count()):
        data[f"{prefix}-{index}-weight"] = "0"
    response = admin_client.post(change_url(draft), data)
    assert_refused(response, draft, before)
    message = "Every weight in the rule set is zero; at least one must be above zero."
    assert message in inline_formset(response, "criterion").non_form_errors()
    assert message in inline_formset(response, "criterion").forms[0].errors["weight"]


def test_it_refuses_all_weights_zero_in_the_list(admin_client, draft):
    Criterion.objects.filter(ruleset=draft).exclude(key="stage").update(weight=0)
    before = ruleset_export(RuleSet.objects.get(pk=draft.pk))
    response, index = weight_list_post(admin_client, draft, "stage", "0")
    assert response.status_code == 200
    assert "at least one must be above zero" in str(
        response.context["cl"].formset.forms[index].errors["weight"]
    )
    assert ruleset_export(RuleSet.objects.get(pk=draft.pk)) == before


def test_it_refuses_the_last_weight_set_to_zero_on_the_criterion_page(admin_client, draft):
    Criterion.objects.filter(ruleset=draft).exclude(key="stage").update(weight=0)
    before = ruleset_export(RuleSet.objects.get(pk=draft.pk))
    criterion = draft.criteria.get(key="stage")
    data = change_form_data(admin_client.get(change_url(criterion))) | {"weight": "0"}
    response = admin_client.post(change_url(criterion), data)
    assert_refused(response, draft, before)
    assert "at least one must be above zero" in str(
        response.context["adminform"].form.errors["weight"]
    )


# One bad edit of one answer option per row: (criterion, the option, the edit, field, message).
OPTION_EDITS = [
    (
        "stage",
        {"value": "startup"},
        {"score_cloud": "3"},
        "score_cloud",
        "The score must be from -2 to 2.",
    ),
    (
        "stage",
        {"value": "startup"},
        {"score_hybrid": ""},
        "score_hybrid",
        "This field is required.",
    ),
    (
        "utilization",
        {"lower": 30},
        {"lower": "35"},
        "lower",
        "Answers from 30 to 35 are not covered by any option.",
    ),
    (
        "utilization",
        {"lower": 30},
        {"lower": "25"},
        "lower",
        "This range overlaps the range before it.",
    ),
    # Utilization answers go up to 100, inclusive.
    (
        "utilization",
        {"lower": 70},
        {"upper": "100"},
        "upper",
        "Answers from 100 up are not covered by any option.",
    ),
    ("utilization", {"lower": 30}, {"upper": "20"}, "upper", "“To” must be greater than “from”."),
    (
        "stage",
        {"value": "inference"},
        {"value": "growth"},
        "value",
        "The answer “growth” already has an option.",
    ),
    (
        "stage",
        {"value": "inference"},
        {"value": "enterprise"},
        "value",
        "“enterprise” is not an answer to this question",
    ),
]


@pytest.mark.parametrize(("key", "option", "edit", "field", "message"), OPTION_EDITS)
def test_it_refuses_a_bad_option_edit_with_a_message_on_the_field(
    admin_client, draft, key, option, edit, field, message
):
    before = ruleset_export(draft)
    criterion = draft.criteria.get(key=key)
    response, index = post_option_edit(admin_client, criterion, option, **edit)
    assert_refused(response, draft, before)
    errors = option_errors(response, index, field)
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_it_refuses_an_answer_left_without_an_option(admin_client, draft):
    before = ruleset_export(draft)
    criterion = draft.criteria.get(key="stage")
    response, _index = post_option_edit(
        admin_client, criterion, {"value": "inference"}, DELETE="on"
    )
    assert_refused(response, draft, before)
    assert inline_formset(response, "option").non_form_errors() == [
        "No option for the answer(s): inference."
    ]


@pytest.mark.parametrize("field", ["label_zh", "reason_zh", "label_en", "reason_en"])
def test_it_refuses_an_option_text_missing_in_one_language(admin_client, draft, field):
    before = ruleset_export(draft)
    criterion = draft.criteria.get(key="stage")
    response, index = post_option_edit(
        admin_client, criterion, {"value": "startup"}, **{field: " "}
    )
    assert_refused(response, draft, before)
    assert option_errors(response, index, field) == ["This field is required."]


def test_it_refuses_a_question_the_options_do_not_fit(admin_client, draft):
    before = ruleset_export(draft)
    criterion = draft.criteria.get(key="stage")
    data = change_form_data(admin_client.get(change_url(criterion))) | {"question": "gpus"}
    response = admin_client.post(change_url(criterion), data)
    assert_refused(response, draft, before)
    assert option_errors(response, 0, "value") == [
        "This question takes a number; give a range, not an answer value."
    ]


def test_it_refuses_a_constraint_on_an_answer_that_does_not_exist(admin_client, draft):
    before = ruleset_export(draft)
    constraint = Constraint.objects.get(ruleset=draft, key="residency-all")
    data = change_form_data(admin_client.get(change_url(constraint))) | {"value": "everything"}
    response = admin_client.post(change_url(constraint), data)
    assert_refused(response, draft, before)
    assert (
        "is not an answer to this question" in response.context["adminform"].form.errors["value"][0]
    )


def test_it_saves_a_good_edit_of_bands(admin_client, draft):
    """The same page accepts bands that still cover the range: the checks are not too strict."""
    criterion = draft.criteria.get(key="utilization")
    page = admin_client.get(change_url(criterion))
    data = change_form_data(page)
    prefix = inline_prefix(page, "option")
    middle = inline_form_index(page, "option", lower=30)
    top = inline_form_index(page, "option", lower=70)
    data[f"{prefix}-{middle}-upper"] = "80"
    data[f"{prefix}-{top}-lower"] = "80"
    response = admin_client.post(change_url(criterion), data)
    assert response.status_code == 302
    bands = list(criterion.options.values_list("lower", "upper"))
    assert bands == [(None, 30), (30, 80), (80, None)]


def test_an_admin_sets_a_draft_s_decisive_bands_and_a_wrong_one_is_refused(admin_client, draft):
    page = admin_client.get(change_url(draft))
    data = change_form_data(page)
    assert float(data["decisive_gap_pct"]) == 25 and float(data["decisive_probability_pct"]) == 90
    before = ruleset_export(draft)
    response = admin_client.post(change_url(draft), data | {"decisive_probability_pct": "40"})
    assert_refused(response, draft, before)
    assert response.context["adminform"].form.errors["decisive_probability_pct"]
    response = admin_client.post(change_url(draft), data | {"decisive_gap_pct": "40"})
    assert response.status_code == 302
    saved = RuleSet.objects.get(pk=draft.pk)
    assert ruleset_export(saved)["decisive"] == {"gap_pct": 40.0, "probability_pct": 90.0}
    assert saved.history.first().decisive_gap_pct == 40.0  # with its history
