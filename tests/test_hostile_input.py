"""Input sent to break things: each is refused with a message naming what is wrong (a 400,
exit code 2, a form error), never a 500 or a traceback; and what does break on the API
still answers in JSON."""

import json
import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from decider.engine import sizing
from decider.models import RuleSet
from decider.rulesets import ruleset_export
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db

SERVICE = {"params_b": 70, "tokens_per_day_m": 500, "peak_to_average": 2.5}


def _post(client, document):
    return client.post(
        reverse("decider-api-assessments"),
        data=json.dumps(document),
        content_type="application/json",
    )


def _decide(tmp_path, capsys, document):
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    code = 0
    try:
        call_command("decide", str(path), "--format", "json")
    except SystemExit as exit:
        code = exit.code
    return code, capsys.readouterr().err


# --- answers documents: the API and `manage.py decide` -----------------------------


@pytest.mark.parametrize(
    ("changes", "key"),
    [
        (
            {"owned": [{"gpu_model": ["h100"], "gpus": 8, "bought": "2024-01"}]},
            "owned.0.gpu_model",
        ),
        (
            {"owned": [{"gpu_model": {"h100": 1}, "gpus": 8, "bought": "2024-01"}]},
            "owned.0.gpu_model",
        ),
        ({"gpu_model": [None], "work": {"inference": SERVICE}}, "gpu_model"),
    ],
    ids=["owned-model-list", "owned-model-object", "model-list-with-work"],
)
def test_the_api_and_decide_name_an_answer_of_the_wrong_type(
    client, rules, tmp_path, capsys, changes, key
):
    answers = make_answers("inference", **changes)
    response = _post(client, answers)
    assert response.status_code == 400
    assert key in response.json()["errors"]
    code, err = _decide(tmp_path, capsys, answers)
    assert code == 2
    assert f"{key}: " in err
    assert "Traceback" not in err


@pytest.mark.parametrize("name", ["input_tokens_per_day_m", "latency_ms"])
def test_a_null_sizing_input_is_one_left_out_and_the_service_is_priced(client, rules, name):
    """It once passed the check and then broke the per-token price (a 500): null is not
    given, as a blank answer is (issue 48), and the saved block holds no null."""
    response = _post(client, make_answers("inference", work={"inference": {**SERVICE, name: None}}))
    assert response.status_code == 201, response.json()
    served = response.json()["answers"]["served"]
    assert name not in served and None not in served.values()
    view = client.get(response.json()["view_url"])
    assert view.status_code == 200


def test_a_service_sized_with_its_tokens_apart_still_works(client, rules):
    apart = {**SERVICE, "input_tokens_per_day_m": 300, "output_tokens_per_day_m": 200}
    response = _post(client, make_answers("inference", work={"inference": apart}))
    assert response.status_code == 201
    assert response.json()["answers"]["served"] == apart


# --- the workloads page ---------------------------------------------------------------


@pytest.mark.parametrize("total", ["abc", "1e9", "²"])
def test_adding_a_workload_row_with_a_changed_row_count_redraws_the_page(client, rules, total):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    data = {
        "form-TOTAL_FORMS": total,
        "form-INITIAL_FORMS": "0",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "8",
        "action": "add",
    }
    response = client.post(reverse("decider-workloads", args=[edit]), data)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="form-problems"' in page
    assert "ManagementForm data is missing or has been tampered with" in page
    assessment.refresh_from_db()
    assert "workloads" not in assessment.answers


# --- rule set import: the command and the admin ----------------------------------------


def _surrogate_label(document):
    document["criteria"][0]["label"]["en"] = "\ud800"


def _surrogate_key(document):
    document["criteria"][0]["key"] = "stage\ud800"


def _huge_probability(document):
    document["decisive"]["probability_pct"] = 10**400


def _null_gap(document):
    document["decisive"]["gap_pct"] = None


def _huge_weight(document):
    document["criteria"][0]["weight"] = 10**400


BROKEN_RULESETS = [
    (
        _surrogate_label,
        "criterion “stage”: “label_en” is not valid Unicode text (it holds a lone surrogate, "
        "such as \\ud800).",
    ),
    (
        _surrogate_key,
        "criterion “#1”: “key” is not valid Unicode text (it holds a lone surrogate, "
        "such as \\ud800).",
    ),
    (_huge_probability, "“decisive.probability_pct”: Must be a number from 50 to 100."),
    (_null_gap, "“decisive.gap_pct”: Must be a number from 1 to 100."),
    (_huge_weight, "criterion “stage”: The weight must be a number."),
]
BROKEN_IDS = ["surrogate-label", "surrogate-key", "huge-probability", "null-gap", "huge-weight"]


def _broken_text(change) -> str:
    document = ruleset_export(RuleSet.objects.get(version=1))
    change(document)
    return json.dumps(document)  # ASCII: a surrogate as the JSON escape "\ud800"


@pytest.mark.parametrize(("change", "message"), BROKEN_RULESETS, ids=BROKEN_IDS)
def test_the_import_command_refuses_a_hostile_rule_set_with_a_message(
    rules, tmp_path, capsys, change, message
):
    path = tmp_path / "hostile.json"
    path.write_text(_broken_text(change), encoding="utf-8")
    with pytest.raises(SystemExit) as stopped:
        call_command("ruleset_import", str(path))
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert message in err.splitlines()
    assert "Traceback" not in err
    assert RuleSet.objects.count() == 1


@pytest.fixture
def admin_client(client, django_user_model, rules):
    admin = django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")
    client.force_login(admin)
    return client


@pytest.mark.parametrize(("change", "message"), BROKEN_RULESETS, ids=BROKEN_IDS)
def test_the_admin_import_refuses_a_hostile_rule_set_on_the_form(admin_client, change, message):
    upload = SimpleUploadedFile("hostile.json", _broken_text(change).encode(), "application/json")
    page = admin_client.post(reverse("admin:decider_ruleset_import"), {"file": upload})
    assert page.status_code == 200
    html = page.content.decode()
    assert "The file was not imported" in html
    assert message in html
    assert RuleSet.objects.count() == 1


# --- an error nobody expected, on the API ------------------------------------------------


def _broken(*args, **kwargs):
    raise RuntimeError("an internal detail")


def test_an_unexpected_error_on_the_api_answers_json_and_is_logged(
    client, rules, settings, monkeypatch, caplog
):
    settings.DEBUG = False
    client.raise_request_exception = False
    monkeypatch.setattr(sizing, "answers_sized", _broken)
    with caplog.at_level(logging.ERROR, logger="django.request"):
        response = _post(client, make_answers())
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert set(response.json()) == {"error"}
    assert "It has been logged" in response.json()["error"]
    assert "an internal detail" not in response.content.decode()
    logged = [r for r in caplog.records if r.name == "django.request"]
    assert logged and logged[0].exc_info[0] is RuntimeError


def test_an_unexpected_error_on_a_json_link_answers_json_and_a_page_stays_a_page(
    client, rules, settings, monkeypatch
):
    from decider import services

    settings.DEBUG = False
    client.raise_request_exception = False
    _assessment, edit, view = make_assessment(answers=make_answers("growth"))
    monkeypatch.setattr(services, "assessment_document", _broken)
    response = client.get(reverse("decider-view-json", args=[view]))
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert "error" in response.json()
    monkeypatch.setattr("decider.views._get_assessment", _broken)
    page = client.get(reverse("decider-workloads", args=[edit]))
    assert page.status_code == 500
    assert page["Content-Type"].startswith("text/html")


def test_a_growth_year_too_large_for_a_float_is_named(client, rules, tmp_path, capsys):
    answers = make_answers("startup", growth_years=[{"base_gpus": 10**400, "peak_gpus": 10}])
    response = _post(client, answers)
    assert response.status_code == 400
    assert "growth_years.0" in response.json()["errors"]
    code, err = _decide(tmp_path, capsys, answers)
    assert code == 2 and "growth_years.0: " in err


def test_a_refused_import_logs_a_short_line_with_its_controls_escaped(rules, caplog):
    """An uploader's key of 100 KB, or with a newline, once went into the log as it was."""
    from decider.engine.ruledocs import RuleSetProblems
    from decider.models import RuleSet
    from decider.rulesets import ruleset_export, rulesets_import

    document = ruleset_export(RuleSet.objects.get(version=1))
    document["criteria"][0]["key"] = "forged\nWARNING admin logged in" + "x" * 100_000
    with caplog.at_level("WARNING", logger="decider.rulesets"), pytest.raises(RuleSetProblems):
        rulesets_import([document], publish=False)
    (line,) = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert "\n" not in line and len(line) < 400
