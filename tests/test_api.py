"""The JSON API: POST /api/assessments, GET <view link>.json, the OpenAPI document."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from decider.models import Assessment
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db


def _post(client, document, **kwargs):
    return client.post(
        reverse("decider-api-assessments"),
        data=json.dumps(document),
        content_type="application/json",
        **kwargs,
    )


def test_it_creates_a_saved_assessment_and_returns_its_links_and_result(client, rules):
    response = _post(client, {"name": "From CI", "answers": make_answers("research_lab")})
    assert response.status_code == 201
    data = response.json()
    assert data["result"]["recommendation"] == "onprem"
    edit = data["edit_url"].split("/a/")[1].strip("/")
    view = data["view_url"].split("/v/")[1].strip("/")
    saved = Assessment.objects.by_token(edit, kind="edit")
    assert saved.name == "From CI"
    assert Assessment.objects.by_token(view, kind="view").pk == saved.pk
    assert client.get(data["view_url"]).status_code == 200
    assert response["Location"] == data["view_json_url"]


def test_a_plain_answers_document_is_accepted_too(client, rules):
    assert _post(client, make_answers()).status_code == 201


def test_the_result_has_the_shape_of_decide_json(client, rules, tmp_path, capsys):
    answers = make_answers("startup")
    created = _post(client, answers).json()
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    seed = str(created["result"]["odds"]["seed"])  # the saved result's draws
    call_command("decide", str(path), "--format", "json", "--seed", seed)
    decided = json.loads(capsys.readouterr().out)
    assert created["result"] == decided


def test_the_view_json_returns_the_answers_and_the_full_result(client, rules):
    created = _post(client, make_answers("growth")).json()
    data = client.get(created["view_json_url"]).json()
    assert data["answers"] == make_answers("growth")
    assert data["result"] == created["result"]
    assert set(data["result"]["costs"]["totals"]) >= {"onprem", "cloud_on_demand"}


@pytest.mark.parametrize(
    "answers",
    [
        make_answers("research_lab"),
        make_answers("inference"),
        make_answers("growth", market="cn", gpu_model="h20"),
        make_answers("startup", costs={"server_price": 150000}),
    ],
    ids=["research_lab", "inference", "china", "own-figures"],
)
def test_create_scores_once_and_writes_once_and_gets_what_a_later_read_computes(
    client, rules, answers
):
    """One INSERT and no UPDATE; the costs it returns (computed while scoring) are the
    ones the saved result gives when read back."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        created = _post(client, answers).json()
    writes = [q["sql"].split()[0] for q in queries if 'decider_assessment"' in q["sql"]]
    assert [w for w in writes if w in {"INSERT", "UPDATE"}] == ["INSERT"]
    assert client.get(created["view_json_url"]).json()["result"] == created["result"]


def test_the_json_follows_the_language_and_currency_asked_for(client, rules):
    created = _post(client, make_answers("growth")).json()
    data = client.get(
        created["view_json_url"] + "?currency=CNY", headers={"Accept-Language": "zh-hans"}
    ).json()
    assert data["result"]["costs"]["currency"] == "CNY"
    assert any("\u4e00" <= ch <= "\u9fff" for ch in data["result"]["contributions"][0]["reason"])


@pytest.mark.parametrize(
    ("change", "key", "message"),
    [
        ({"gpus": -3}, "gpus", "greater than or equal to 1"),
        ({"residency": "moon"}, "residency", "allowed"),
        ({"costs": {"server_price": "cheap"}}, "costs.server_price", "number"),
        ({"costs": {"unicorns": 1}}, "costs.unicorns", "unknown cost assumption"),
        ({"colour": "blue"}, "colour", "unknown key"),
    ],
)
def test_bad_answers_get_400_with_a_message_per_key(client, rules, change, key, message):
    response = _post(client, make_answers(**change))
    assert response.status_code == 400
    assert message in response.json()["errors"][key]
    assert Assessment.objects.count() == 0


def test_a_missing_answer_is_named(client, rules):
    answers = make_answers()
    del answers["gpus"]
    assert "missing" in _post(client, answers).json()["errors"]["gpus"]


def test_malformed_json_gets_400_not_500(client, rules):
    response = client.post(
        reverse("decider-api-assessments"), data="{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["errors"]["_"]


def test_a_form_post_is_refused_as_not_json(client, rules):
    response = client.post(reverse("decider-api-assessments"), {"gpus": "8"})
    assert response.status_code == 415


def test_a_too_long_name_is_refused(client, rules):
    response = _post(client, {"name": "x" * 500, "answers": make_answers()})
    assert response.status_code == 400 and "name" in response.json()["errors"]


def test_without_rules_it_says_so(client, no_rules):
    response = _post(client, make_answers())
    assert response.status_code == 503
    assert "load_defaults" in response.json()["errors"]["_"]


def test_an_unfinished_assessment_json_is_a_409(client, rules):
    assessment, _edit, view = Assessment.create_with_links(answers={"stage": "startup"})
    response = client.get(reverse("decider-view-json", args=[view]))
    assert response.status_code == 409


def test_the_openapi_document_describes_both_endpoints_from_the_questionnaire(client):
    spec = client.get(reverse("decider-api-openapi")).json()
    assert spec["openapi"].startswith("3.")
    assert {"/api/assessments", "/v/{token}.json"} <= set(spec["paths"])
    properties = spec["components"]["schemas"]["Answers"]["properties"]
    assert properties["utilization_pct"]["maximum"] == 100
    assert "all" in properties["residency"]["enum"]


def test_the_openapi_document_lets_the_demand_levels_replace_the_average(client):
    answers = client.get(reverse("decider-api-openapi")).json()
    spec_answers = answers["components"]["schemas"]["Answers"]
    assert "stage" in spec_answers["required"]
    assert not {"utilization_pct", "demand_shape", "base_gpus"} & set(spec_answers["required"])
    assert {"required": ["base_gpus", "peak_share_pct"]} in spec_answers["anyOf"]
    assert spec_answers["dependentRequired"]["base_gpus"] == ["peak_share_pct"]


def test_a_name_with_a_newline_is_kept_on_one_line(client, rules):
    data = _post(client, {"name": "Plan\nB", "answers": make_answers()}).json()
    assert data["name"] == "Plan B"


@pytest.mark.parametrize("name", ["decider-view-json", "decider-edit-json"])
def test_a_wrong_or_revoked_link_answers_404_in_json(client, rules, name):
    response = client.get(reverse(name, args=["x" * 32]))
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert "no assessment at this link" in response.json()["errors"]["_"]


def test_a_wrong_method_answers_405_in_json_with_the_allowed_one(client, rules):
    _assessment, _edit, view = make_assessment()
    response = client.delete(reverse("decider-view-json", args=[view]))
    assert response.status_code == 405 and response["Allow"] == "GET"
    assert response.json() == {"errors": {"_": "use GET"}}
    response = client.get(reverse("decider-api-assessments"))
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "errors" in response.json()


HUGE = "9" * 5000  # past Python's int-string limit


@pytest.mark.parametrize(
    ("body", "key", "message"),
    [
        ('{"gpus": 999999999999}', "gpus", "less than or equal to 100000"),
        ('{"ops_fte": 999999999999}', "ops_fte", "less than or equal to 1000"),
        ('{"costs": {"server_price": 1e308}}', "costs.server_price", "must be at most"),
        ('{"costs": {"residual_value": 1e300}}', "costs.residual_value", "must be at most 1"),
        ('{"costs": {"gpus_per_node": 1e-09}}', "costs.gpus_per_node", "must be at least 1"),
        ('{"costs": {"gpus_per_node": 0.5}}', "costs.gpus_per_node", "must be at least 1"),
        ('{"costs": {"spot_share": 1.5}}', "costs.spot_share", "must be at most 1"),
        ('{"costs": {"pue": NaN}}', "costs.pue", "must be a number"),
        ('{"costs": {"server_price": ' + "9" * 400 + "}}", "costs.server_price", "400 digits"),
    ],
)
def test_out_of_range_numbers_get_400_naming_the_key_and_save_nothing(
    client, rules, body, key, message
):
    document = make_answers() | json.loads(body)
    response = _post(client, document)
    assert response.status_code == 400
    assert message in response.json()["errors"][key]
    assert Assessment.objects.count() == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[" * 1000 + "]" * 1000, "nested more than 8 levels deep"),
        ("[" * 100_000 + "]" * 100_000, "larger than 64 KB"),
        ('{"gpus": ' + HUGE + "}", "not valid JSON"),
        ('{"stage": "\\ud800"}', "unpaired surrogate"),
    ],
)
def test_a_body_no_parser_should_take_gets_a_json_error_not_500(client, rules, body, message):
    response = client.post(
        reverse("decider-api-assessments"), data=body, content_type="application/json"
    )
    assert 400 <= response.status_code < 500
    assert message in response.json()["errors"]["_"]


def test_a_long_unknown_key_or_value_is_cut_short_in_the_message(client, rules):
    response = _post(client, make_answers(stage="x" * 10_000) | {"y" * 10_000: 1})
    errors = response.json()["errors"]
    assert len(errors["stage"]) < 300
    assert max(len(key) for key in errors) < 100


def test_answers_the_cost_model_refuses_save_nothing(client, rules, monkeypatch):
    from decider import services

    def refuse(*_args, **_kwargs):
        raise ValueError("utilization must be within 0..1, got 2")

    monkeypatch.setattr(services, "assessment_evaluate", refuse)
    response = _post(client, make_answers())
    assert response.status_code == 400
    assert "cannot be costed" in response.json()["errors"]["_"]
    assert Assessment.objects.count() == 0


def test_the_openapi_document_gives_every_cost_figure_a_maximum(client):
    schema = client.get(reverse("decider-api-openapi")).json()["components"]["schemas"]
    figures = schema["Answers"]["properties"]["costs"]["properties"]
    assert figures and all("maximum" in figure for figure in figures.values())
