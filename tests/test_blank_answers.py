"""One meaning for "not answered": a question left blank is absent, whoever wrote the answers.

The wizard's optional questions ("Where the compute will run", "Count the team you already
employ", "Whom would you rent cloud GPUs from?", the growth and price-fall rates) may be left
blank; a blank is stored as no answer at all, and every reader (what-if, re-score, compare,
the API, `decide`) takes the answers as stored.
"""

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from decider.engine import questionnaire, validation
from decider.models import Assessment, token_hash
from tests.examples import examples
from tests.factories import STEP_POSTS, make_answers, migrate_to

pytestmark = pytest.mark.django_db

# Each optional question of the wizard, with a valid answer a person might give instead.
OPTIONAL_GIVEN = {
    "market": ["global", "cn"],
    "growth_pct": ["20"],
    "count_existing_team": ["true", "false"],
    "cloud_share_pct": ["50"],
    "cloud_provider": ["cheapest", "hyperscaler", "neocloud"],
    "cloud_price_fall_pct": ["10"],
    "hardware_price_fall_pct": ["5"],
}
STEP_OF = {key: step.slug for step in questionnaire.STEPS for key in step.keys}


def test_every_optional_question_of_the_wizard_is_drawn():
    optional = {key for key, q in questionnaire.QUESTIONS.items() if q.optional}
    assert optional - set(OPTIONAL_GIVEN) == {"base_gpus", "peak_share_pct"}  # drawn together


# How a person leaves a question: not posted at all (never shown), posted blank, or answered.
def left_or_given(key: str):
    return st.sampled_from([None, "", *OPTIONAL_GIVEN[key]])


@st.composite
def wizard_submissions(draw) -> dict[str, dict[str, str]]:
    """The five steps' POSTs, as a browser sends them, each optional question drawn."""
    posts = {slug: dict(fields) for slug, fields in STEP_POSTS.items()}
    for key in OPTIONAL_GIVEN:
        value = draw(left_or_given(key))
        if value is not None:
            posts[STEP_OF[key]][key] = value
    if posts["utilization"].get("market") == "cn":
        posts["utilization"]["gpu_model"] = "h20"  # a model priced there
    levels = draw(st.sampled_from(["left", "blank", "given"]))
    if levels == "blank":
        posts["utilization"] |= {"base_gpus": "", "peak_share_pct": ""}
    elif levels == "given":  # the steady base and bursts stand in for the average
        posts["utilization"] |= {"base_gpus": "4", "peak_share_pct": "30", "utilization_pct": ""}
    return posts


def walk(client: Client, posts: dict[str, dict[str, str]]) -> str:
    """The wizard walked from blank answers with Next (no JavaScript); the edit token."""
    response = client.post(reverse("decider-home"), {"preset": ""})
    assert response.status_code == 302
    token = response.url.split("/a/")[1].split("/")[0]
    for slug, fields in posts.items():
        response = client.post(reverse("decider-step", args=[token, slug]), fields | {"next": "1"})
        assert response.status_code == 302, response.context["form"].errors
    assert response.url == reverse("decider-result", args=[token])
    return token


def demand_change(client: Client, token: str) -> dict[str, str]:
    """A what-if on the demand, as the "Try a change" form sends it: the fields as the result
    page fills them, the utilization (or the time at the peak) set to 40 %."""
    form = client.get(reverse("decider-result", args=[token])).context["what_if"]
    fields = {name: str(form[name].value()) for name in form.fields}
    changed = "utilization_pct" if "utilization_pct" in fields else "peak_share_pct"
    return fields | {changed: "40"}


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(posts=wizard_submissions())
def test_whatever_is_left_blank_the_saved_answers_read_everywhere(rules, posts):
    client = Client()
    token = walk(client, posts)
    assessment = Assessment.objects.by_token(token, kind="edit")
    stored = assessment.answers
    assert not [key for key, value in stored.items() if questionnaire.is_blank(value)]
    for key in OPTIONAL_GIVEN:
        posted = posts[STEP_OF[key]].get(key)
        assert (key in stored) == bool(posted), (key, posted)
    assert validation.answers_validate(stored)[1] == {}

    response = client.get(
        reverse("decider-edit-what-if", args=[token]), demand_change(client, token)
    )
    assert response.status_code == 200
    form = response.context["what_if"]
    assert form.errors == {}, form.errors
    assert "What if: not saved." in response.content.decode()

    assert client.get(reverse("decider-rescore", args=[token])).status_code == 200
    view = assessment.view_token(edit_token=token)
    other = Assessment.create_with_links(answers=make_answers("startup"))[2]
    compared = client.get(reverse("decider-compare"), {"a": [view, other]})
    assert compared.status_code == 200 and "problem" not in compared.context


def test_a_blank_optional_answer_through_the_api_is_no_answer(client, rules):
    answers = make_answers("startup", market="", cloud_provider="", count_existing_team=None)
    response = client.post(
        reverse("decider-api-assessments"), json.dumps(answers), content_type="application/json"
    )
    assert response.status_code == 201, response.json()
    edit = response.json()["edit_url"].split("/a/")[1].strip("/")
    stored = Assessment.objects.by_token(edit, kind="edit").answers
    assert not {"market", "cloud_provider", "count_existing_team"} & set(stored)
    assert stored == make_answers("startup")


def test_a_blank_required_answer_is_missing_and_named(client, rules):
    response = client.post(
        reverse("decider-api-assessments"),
        json.dumps(make_answers("startup", residency="")),
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "residency" in response.json()["errors"]


def test_the_what_if_names_the_question_a_saved_answer_fails(client, rules):
    """A saved answer the form does not ask that no longer passes (saved before a bound
    changed): named in the page's language, never as a key."""
    assessment, edit, _view = Assessment.create_with_links(answers=make_answers("startup"))
    fields = demand_change(client, edit)
    answers = make_answers("startup", ops_fte=1500.0)
    Assessment.objects.filter(pk=assessment.pk).update(answers=answers)
    page = client.get(reverse("decider-edit-what-if", args=[edit]), fields)
    assert list(page.context["what_if"].non_field_errors()) == [
        "Size of the infrastructure team (full-time equivalents): enter a number from 0 to 1,000 FTE."
    ]
    page = client.get(
        reverse("decider-edit-what-if", args=[edit]), fields, HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    (message,) = page.context["what_if"].non_field_errors()
    assert message.startswith("基础设施团队") and "ops_fte" not in message


# --- workloads beside the company's own demand -------------------------------------------

WORKLOADS = [
    {"name": "serving", "workload": "inference", "gpus": 24, "utilization_pct": 90,
     "demand_shape": "steady"},
    {"name": "training", "workload": "training", "gpus": 40, "utilization_pct": 35,
     "demand_shape": "peaky"},
]  # fmt: skip


def test_workloads_beside_another_demand_are_refused_naming_the_keys(client, rules):
    answers = make_answers("growth") | {"workloads": WORKLOADS}  # gpus 64 and 55 % given too
    answers["gpus"] = 100
    response = client.post(
        reverse("decider-api-assessments"), json.dumps(answers), content_type="application/json"
    )
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert {"gpus", "utilization_pct", "demand_shape"} <= set(errors)
    assert "pooled demand (64 GPUs at the peak)" in errors["gpus"]
    assert Assessment.objects.count() == 0


def test_decide_refuses_them_too_with_exit_2(rules, tmp_path, capsys):
    path = Path(tmp_path, "answers.json")
    path.write_text(json.dumps(make_answers("growth") | {"workloads": WORKLOADS}))
    with pytest.raises(SystemExit) as stopped:
        call_command("decide", str(path), "--format", "json")
    assert stopped.value.code == 2
    assert "gpus" in capsys.readouterr().err


def test_workloads_with_their_own_pooled_demand_are_taken_as_saved(client, rules):
    """What the API returns for a pooled assessment goes back in unchanged: the levels the
    pool gave beside its workloads."""
    answers = {k: v for k, v in make_answers("growth").items() if k not in ("gpus",)}
    del answers["utilization_pct"], answers["demand_shape"]
    checked, errors = validation.answers_validate(answers | {"workloads": WORKLOADS})
    assert errors == {} and checked["gpus"] == 64
    again, errors = validation.answers_validate(checked)
    assert errors == {} and again == checked
    response = client.post(
        reverse("decider-api-assessments"), json.dumps(checked), content_type="application/json"
    )
    assert response.status_code == 201
    assert response.json()["result"]["plan"]["pooling"] is not None


# --- the data migration ----------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_takes_out_the_blanks_saved_before_and_nothing_else():
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("decider")[0][1]
    try:
        apps = migrate_to(executor, "0018_token_prices")
        Old = apps.get_model("decider", "Assessment")
        blank = make_answers("startup", market="", count_existing_team="", cloud_provider="")
        blank["costs"] = {"gpu_hour_on_demand": 2.5}
        mended = Old.objects.create(edit_hash=token_hash("e1"), answers=blank, revision=7)
        clean = Old.objects.create(edit_hash=token_hash("e2"), answers=make_answers("growth"))
        before = {row.pk: row.updated_at for row in Old.objects.all()}

        apps = migrate_to(executor, "0019_answers_without_blanks")
        New = apps.get_model("decider", "Assessment")
        rows = {row.pk: row for row in New.objects.all()}
    finally:
        migrate_to(executor, latest)
    expected = make_answers("startup") | {"costs": {"gpu_hour_on_demand": 2.5}}
    assert rows[mended.pk].answers == expected
    assert rows[mended.pk].revision == 7
    assert rows[clean.pk].answers == make_answers("growth")
    assert {pk: row.updated_at for pk, row in rows.items()} == before


def test_a_demand_changed_on_its_step_sets_the_workloads_aside(client, rules):
    """Workloads stay only while the demand is theirs pooled: changed on the utilization
    step, they go, never kept beside a demand they no longer describe."""
    answers = {k: v for k, v in make_answers("growth").items() if k != "gpus"}
    del answers["utilization_pct"], answers["demand_shape"]
    checked, _errors = validation.answers_validate(answers | {"workloads": WORKLOADS})
    assessment, edit, _view = Assessment.create_with_links(answers=checked)
    url = reverse("decider-step", args=[edit, "utilization"])
    form = client.get(url).context["form"]
    fields = {name: form[name].value() for name in form.fields}
    fields = {k: "" if v is None else str(v) for k, v in fields.items()}

    client.post(url, fields | {"next": "1"})  # as shown: the pool holds
    assessment.refresh_from_db()
    assert len(assessment.answers["workloads"]) == 2

    client.post(url, fields | {"gpus": "80", "next": "1"})
    assessment.refresh_from_db()
    assert "workloads" not in assessment.answers and assessment.answers["gpus"] == 80
    assert validation.answers_validate(assessment.answers)[1] == {}
