"""The questionnaire steps, with and without htmx."""

import pytest
from django.urls import reverse

from decider.engine.questionnaire import STEPS
from decider.models import Assessment
from tests.factories import STEP_POSTS, make_answers, make_assessment

# One out-of-range value per step that has numbers, and a bad choice for the others.
BAD_VALUES = [
    ("workload", "stage", "space_agency"),
    ("utilization", "utilization_pct", "120"),
    ("utilization", "utilization_pct", "-1"),
    ("utilization", "gpus", "0"),
    ("utilization", "gpus", "eight"),
    ("utilization", "horizon_years", "11"),
    ("ops", "ops_fte", "-2"),
    ("ops", "ops_hardware", "maybe"),
    ("data", "dataset_tb", "-5"),
    ("data", "residency", "sometimes"),
    ("budget", "capex_available", ""),
    ("budget", "cost_server_price", "-10"),
    ("budget", "cost_spot_share", "1.5"),
]


def step_url(token, slug):
    return reverse("decider-step", args=[token, slug])


def test_it_starts_an_assessment_from_a_preset(client, rules):
    response = client.post(reverse("decider-home"), {"preset": "startup"})
    assessment = Assessment.objects.get()
    assert assessment.answers["stage"] == "startup"
    assert response.status_code == 302
    assert response.url.endswith("/step/workload/")


def test_it_starts_blank_when_asked(client, rules):
    client.post(reverse("decider-home"), {"preset": ""})
    assert Assessment.objects.get().answers == {}


def test_the_link_token_is_not_stored_in_clear(client, rules):
    response = client.post(reverse("decider-home"), {"preset": "growth"})
    token = response.url.split("/")[2]
    assessment = Assessment.objects.get()
    assert token not in (assessment.edit_hash, assessment.view_hash)
    assert Assessment.objects.by_token(token, kind="edit") == assessment


def test_an_unknown_link_is_404(client, rules):
    assert client.get(step_url("not-a-real-token", "workload")).status_code == 404


def test_an_unknown_step_is_404(client, rules):
    _assessment, token, _view = make_assessment()
    assert client.get(step_url(token, "nope")).status_code == 404


def test_each_step_shows_its_saved_answers(client, rules):
    _assessment, token, _view = make_assessment(answers=make_answers("startup"))
    page = client.get(step_url(token, "utilization")).content.decode()
    assert 'value="25.0"' in page
    assert 'name="gpus" value="8"' in page


def test_walking_every_step_without_js_saves_and_reaches_the_result(client, rules):
    assessment, token, _view = make_assessment(answers={})
    for index, step in enumerate(STEPS):
        response = client.post(step_url(token, step.slug), STEP_POSTS[step.slug] | {"next": "1"})
        assert response.status_code == 302, response.content.decode()[:2000]
        if index + 1 < len(STEPS):
            assert response.url == step_url(token, STEPS[index + 1].slug)
    assert response.url == reverse("decider-result", args=[token])
    assessment.refresh_from_db()
    assert assessment.answers["gpus"] == 8
    assert assessment.answers["direction_settled"] is False
    page = client.get(response.url).content.decode()
    assert "Cloud GPU platform" in page


@pytest.mark.parametrize(("slug", "field", "value"), BAD_VALUES)
def test_each_step_rejects_bad_values_next_to_the_field(client, rules, slug, field, value):
    assessment, token, _view = make_assessment(answers=make_answers("growth"))
    before = dict(assessment.answers)
    data = STEP_POSTS[slug] | {field: value, "next": "1"}
    response = client.post(step_url(token, slug), data)
    assert response.status_code == 200
    page = response.content.decode()
    assert f'id="field-{field}"' in page
    field_html = page.split(f'id="field-{field}"')[1].split('class="field')[0]
    assert 'class="error"' in field_html
    assessment.refresh_from_db()
    if field in before:
        assert assessment.answers[field] == before[field]


def test_a_bad_value_keeps_the_other_answers_typed_on_the_page(client, rules):
    _assessment, token, _view = make_assessment(answers={})
    data = STEP_POSTS["utilization"] | {"gpus": "0", "utilization_pct": "42", "next": "1"}
    page = client.post(step_url(token, "utilization"), data).content.decode()
    assert 'value="42"' in page


def test_back_saves_valid_answers_and_goes_to_the_previous_step(client, rules):
    assessment, token, _view = make_assessment(answers=make_answers("growth"))
    data = STEP_POSTS["utilization"] | {"utilization_pct": "42", "back": "1"}
    response = client.post(step_url(token, "utilization"), data)
    assert response.url == step_url(token, "workload")
    assessment.refresh_from_db()
    assert assessment.answers["utilization_pct"] == 42


def test_back_with_a_bad_value_saves_the_valid_ones_and_stays_to_say_why(client, rules):
    assessment, token, _view = make_assessment(answers=make_answers("growth"))
    data = STEP_POSTS["utilization"] | {"gpus": "0", "utilization_pct": "42", "back": "1"}
    response = client.post(step_url(token, "utilization"), data)
    assert response.status_code == 200  # not silently dropped: the 0 is still in its field
    assert 'name="gpus" value="0"' in response.content.decode()
    assessment.refresh_from_db()
    assert assessment.answers["utilization_pct"] == 42
    assert assessment.answers["gpus"] == 64  # the invalid 0 did not overwrite it


def test_htmx_swaps_the_next_step_in_place_and_updates_progress(client, rules):
    _assessment, token, _view = make_assessment(answers=make_answers("growth"))
    response = client.post(
        step_url(token, "workload"), STEP_POSTS["workload"] | {"next": "1"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    assert response["HX-Push-Url"] == step_url(token, "utilization")
    page = response.content.decode()
    assert "<html" not in page
    assert 'id="wizard"' in page
    assert 'name="utilization_pct"' in page
    assert 'hx-swap-oob="true"' in page


def test_htmx_errors_come_back_with_200_and_the_field_message(client, rules):
    _assessment, token, _view = make_assessment(answers=make_answers("growth"))
    response = client.post(
        step_url(token, "utilization"),
        STEP_POSTS["utilization"] | {"gpus": "0", "next": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert "GPUs needed at peak: enter a whole number from 1 to 100,000 GPUs." in (
        response.content.decode()
    )


def test_htmx_last_step_redirects_the_whole_page_to_the_result(client, rules):
    _assessment, token, _view = make_assessment(answers=make_answers("growth"))
    response = client.post(
        step_url(token, "budget"), STEP_POSTS["budget"] | {"next": "1"}, HTTP_HX_REQUEST="true"
    )
    assert response["HX-Redirect"] == reverse("decider-result", args=[token])


def test_the_budget_step_prefills_the_figures_for_the_gpu_model(client, rules):
    _assessment, token, _view = make_assessment(answers=make_answers("growth", gpu_model="b200"))
    page = client.get(step_url(token, "budget")).content.decode()
    assert 'name="cost_server_price" value="515000' in page


def test_changed_figures_are_kept_as_overrides_and_used(client, rules):
    assessment, token, _view = make_assessment(answers=make_answers("growth"))
    client.post(
        step_url(token, "budget"),
        {"capex_available": "true", "cost_server_price": "250000", "next": "1"},
    )
    assessment.refresh_from_db()
    assert assessment.answers["costs"] == {"server_price": 250000.0}
    page = client.get(reverse("decider-result", args=[token])).content.decode()
    assert "set for this assessment" in page


def test_the_result_sends_an_incomplete_assessment_to_its_first_missing_step(client, rules):
    answers = make_answers("growth")
    del answers["dataset_tb"]
    _assessment, token, _view = make_assessment(answers=answers)
    response = client.get(reverse("decider-result", args=[token]))
    assert response.url == step_url(token, "data")


def test_the_steady_base_and_time_at_the_peak_stand_in_for_the_average(client, rules):
    assessment, token, _view = make_assessment(answers=make_answers("inference"))
    data = STEP_POSTS["utilization"] | {
        "utilization_pct": "",
        "gpus": "96",
        "base_gpus": "64",
        "peak_share_pct": "20",
        "next": "1",
    }
    response = client.post(step_url(token, "utilization"), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assessment.refresh_from_db()
    assert assessment.answers["base_gpus"] == 64
    assert "utilization_pct" not in assessment.answers  # cleared: it follows from the levels
    page = client.get(step_url(token, "utilization")).content.decode()
    assert "73.3 % average utilization" in page


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"utilization_pct": "40"}, "utilization_pct", "disagrees with"),
        ({"peak_share_pct": ""}, "peak_share_pct", "together with"),
        ({"base_gpus": "100"}, "base_gpus", "must not exceed"),
        ({"utilization_pct": "", "base_gpus": ""}, "utilization_pct", "steady base"),
    ],
)
def test_demand_levels_that_do_not_add_up_are_shown_next_to_the_field(
    client, rules, changes, field, message
):
    assessment, token, _view = make_assessment(answers=make_answers("inference"))
    before = dict(assessment.answers)
    data = STEP_POSTS["utilization"] | {
        "gpus": "96",
        "base_gpus": "64",
        "peak_share_pct": "20",
        "next": "1",
    }
    page = client.post(step_url(token, "utilization"), data | changes).content.decode()
    field_html = page.split(f'id="field-{field}"')[1].split('class="field')[0]
    assert 'class="error"' in field_html and message in field_html
    assessment.refresh_from_db()
    assert assessment.answers == before


def test_a_server_price_fall_out_of_range_is_named_next_to_it_and_not_kept(client, rules):
    assessment, token, _view = make_assessment(answers=make_answers("startup"))
    wrong = client.post(
        step_url(token, "budget"),
        {"capex_available": "true", "hardware_price_fall_pct": "-5", "next": "1"},
    )
    assert wrong.status_code == 200
    field = wrong.content.decode().split('id="field-hardware_price_fall_pct"')[1]
    assert 'class="error"' in field.split('class="field')[0]
    assessment.refresh_from_db()
    assert "hardware_price_fall_pct" not in assessment.answers
    client.post(
        step_url(token, "budget"),
        {"capex_available": "true", "hardware_price_fall_pct": "12", "next": "1"},
    )
    assessment.refresh_from_db()
    assert assessment.answers["hardware_price_fall_pct"] == 12


def test_the_finance_figures_are_asked_with_the_others_and_bad_ones_are_named(client, rules):
    """No capital up front: the rate and term the purchases are financed at are on the
    budget step, prefilled, and a rate above 1 or a fractional term is refused by the field."""
    assessment, token, _view = make_assessment(answers=make_answers("startup"))
    page = client.get(step_url(token, "budget")).content.decode()
    assert 'name="cost_finance_rate" value="0.1"' in page
    assert 'name="cost_finance_term_months" value="36"' in page
    wrong = client.post(
        step_url(token, "budget"),
        {
            "capex_available": "false",
            "cost_finance_rate": "5",
            "cost_finance_term_months": "2.5",
            "next": "1",
        },
    )
    assert wrong.status_code == 200
    body = wrong.content.decode()
    for field in ("cost_finance_rate", "cost_finance_term_months"):
        field_html = body.split(f'id="field-{field}"')[1].split('class="field')[0]
        assert 'class="error"' in field_html, field
    assessment.refresh_from_db()
    assert "costs" not in assessment.answers  # nothing bad was kept
    client.post(
        step_url(token, "budget"),
        {"capex_available": "false", "cost_finance_rate": "0.14", "next": "1"},
    )
    assessment.refresh_from_db()
    assert assessment.answers["costs"] == {"finance_rate": 0.14}


def test_the_budget_step_takes_the_gpus_owned_already_and_names_a_bad_month(client, rules):
    assessment, token, _view = make_assessment(answers=make_answers("startup"))
    page = client.get(step_url(token, "budget")).content.decode()
    assert 'name="owned_gpus"' in page and 'type="month"' in page
    wrong = client.post(
        step_url(token, "budget"),
        {"capex_available": "true", "owned_gpus": "16", "owned_bought": "last year", "next": "1"},
    )
    assert wrong.status_code == 200
    field = wrong.content.decode().split('id="field-owned_bought"')[1].split('class="field')[0]
    assert "Give the month they were bought, as YYYY-MM" in field
    assert 'value="16"' in wrong.content.decode()  # what was typed stays
    assessment.refresh_from_db()
    assert "owned" not in assessment.answers
    client.post(
        step_url(token, "budget"),
        {"capex_available": "true", "owned_gpus": "16", "owned_bought": "2024-06", "next": "1"},
    )
    assessment.refresh_from_db()
    model = assessment.answers["gpu_model"]
    assert assessment.answers["owned"] == [{"gpu_model": model, "gpus": 16, "bought": "2024-06"}]
    as_of = assessment.answers["owned_as_of"]
    # Saved again unchanged, the month the ages count to stays; cleared, both go.
    client.post(
        step_url(token, "budget"),
        {"capex_available": "true", "owned_gpus": "16", "owned_bought": "2024-06", "next": "1"},
    )
    assessment.refresh_from_db()
    assert assessment.answers["owned_as_of"] == as_of
    client.post(step_url(token, "budget"), {"capex_available": "true", "next": "1"})
    assessment.refresh_from_db()
    assert "owned" not in assessment.answers and "owned_as_of" not in assessment.answers
