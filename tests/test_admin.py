"""Admins open, copy, publish, export and import rule sets; published ones stay as they are."""

import json
import threading
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from decider.models import Assumption, Criterion, RuleSet
from decider.rulesets import ruleset_draft, ruleset_export
from tests.adminforms import change_form_data, change_url, changelist_data, weight_list_post
from tests.factories import make_assessment


@pytest.fixture
def admin_user(django_user_model, rules):
    return django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")


@pytest.fixture
def admin_client(client, admin_user):
    client.force_login(admin_user)
    return client


@pytest.fixture
def v1(rules):
    return RuleSet.objects.get(version=1)


@pytest.fixture
def draft(v1):
    return ruleset_draft(v1)


def without_version(document):
    return {key: value for key, value in document.items() if key != "version"}


@pytest.mark.parametrize(
    "model", ["ruleset", "criterion", "option", "constraint", "assumption", "assessment"]
)
def test_every_model_list_opens(admin_client, model):
    response = admin_client.get(reverse(f"admin:decider_{model}_changelist"))
    assert response.status_code == 200


def test_a_criterion_page_shows_its_options_with_both_languages(admin_client):
    criterion = Criterion.objects.get(key="utilization")
    page = admin_client.get(reverse("admin:decider_criterion_change", args=[criterion.pk]))
    assert page.status_code == 200
    assert "reason_zh" in page.content.decode()


def test_it_lists_rule_sets_with_their_criteria_and_assessments(admin_client, v1, draft):
    make_assessment(ruleset=v1)
    make_assessment(ruleset=v1)
    page = admin_client.get(reverse("admin:decider_ruleset_changelist"))
    rows = {r.version: r for r in page.context["cl"].result_list}
    assert rows[1].criteria_total == v1.criteria.count() == 23
    assert rows[1].assessments_total == 2
    assert rows[2].assessments_total == 0
    html = page.content.decode()
    assert "Assessments scored with it" in html
    assert "Import a rule set" in html


def test_it_filters_and_searches_criteria(admin_client, v1, draft):
    url = reverse("admin:decider_criterion_changelist")
    page = admin_client.get(url, {"ruleset__is_published__exact": "0", "q": "utiliz"})
    rows = list(page.context["cl"].result_list)
    assert [(c.key, c.ruleset.version) for c in rows] == [("utilization", 2)]
    assert "Rule set version" in page.content.decode()


def test_it_shows_a_published_rule_set_read_only(admin_client, v1):
    page = admin_client.get(change_url(v1))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'name="_save"' not in html
    assert "Published versions are read-only" in html
    assert "Make a draft from this version" in html


def test_it_refuses_changes_to_a_published_rule_set(admin_client, v1, draft):
    before = ruleset_export(v1)
    data = change_form_data(admin_client.get(change_url(draft)))  # a valid form to post
    criterion = v1.criteria.get(key="stage")
    constraint = v1.constraints.first()
    assert admin_client.post(change_url(v1), data | {"name": "changed"}).status_code == 403
    assert admin_client.post(change_url(criterion), {"weight": "9"}).status_code == 403
    assert admin_client.post(change_url(constraint), {"value": "none"}).status_code == 403
    delete = reverse("admin:decider_ruleset_delete", args=[v1.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    delete = reverse("admin:decider_criterion_delete", args=[criterion.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert (
        admin_client.get(reverse("admin:decider_ruleset_impact", args=[v1.pk])).status_code == 403
    )
    assert ruleset_export(RuleSet.objects.get(pk=v1.pk)) == before


def test_it_ignores_a_weight_posted_for_a_published_criterion_in_the_list(admin_client, v1):
    before = ruleset_export(v1)
    url = reverse("admin:decider_criterion_changelist") + f"?ruleset__id__exact={v1.pk}"
    page = admin_client.get(url)
    html = page.content.decode()
    # A published weight is text, not a greyed input beside a Save button (issue 52).
    assert 'name="form-0-weight"' not in html and 'class="read-only-value"' in html
    assert page.context["cl"].formset.forms[0].fields["weight"].disabled
    assert 'id="weight-scale"' in html and "Weights are relative" in html
    data = changelist_data(page)
    data["form-0-weight"] = "9"
    admin_client.post(url, data)
    assert ruleset_export(RuleSet.objects.get(pk=v1.pk)) == before


def test_it_makes_a_draft_with_everything_copied(admin_client, v1):
    response = admin_client.post(reverse("admin:decider_ruleset_draft", args=[v1.pk]))
    draft = RuleSet.objects.get(version=2)
    assert response.url == change_url(draft)
    assert not draft.is_published and draft.published_at is None
    assert without_version(ruleset_export(draft)) == without_version(ruleset_export(v1))
    assert RuleSet.current() == v1  # a draft is not used


def test_the_list_action_makes_a_draft_too(admin_client, v1):
    admin_client.post(
        reverse("admin:decider_ruleset_changelist"),
        {"action": "make_draft", "_selected_action": [v1.pk]},
    )
    draft = RuleSet.objects.get(version=2)
    assert without_version(ruleset_export(draft)) == without_version(ruleset_export(v1))


def test_a_staff_member_who_may_only_view_cannot_make_drafts(client, django_user_model, v1):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="pw-Decider-1", is_staff=True)
    viewer.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    client.force_login(viewer)
    page = client.get(reverse("admin:decider_ruleset_changelist")).content.decode()
    assert "make_draft" not in page
    client.post(
        reverse("admin:decider_ruleset_changelist"),
        {"action": "make_draft", "_selected_action": [v1.pk]},
    )
    assert client.post(reverse("admin:decider_ruleset_draft", args=[v1.pk])).status_code == 403
    assert RuleSet.objects.count() == 1


def test_the_add_criterion_page_opens(admin_client, draft):
    response = admin_client.get(reverse("admin:decider_criterion_add"))
    assert response.status_code == 200


def test_it_edits_a_draft_weight_in_the_list(admin_client, v1, draft):
    response, _index = weight_list_post(admin_client, draft, "utilization", "6")
    assert response.status_code == 302
    assert draft.criteria.get(key="utilization").weight == 6
    assert v1.criteria.get(key="utilization").weight == 4


def test_it_asks_before_publishing_and_shows_the_impact(admin_client, draft):
    make_assessment()
    url = reverse("admin:decider_ruleset_publish", args=[draft.pk])
    page = admin_client.post(url)
    assert page.status_code == 200
    assert "Yes, publish v2" in page.content.decode()
    assert page.context["impact"].total == 0  # nothing scored yet
    assert RuleSet.current().version == 1


def test_the_impact_is_computed_once_per_draft_and_again_after_an_edit(
    admin_client, draft, monkeypatch
):
    from decider import services

    computed = []
    real = services.ruleset_impact
    monkeypatch.setattr(services, "ruleset_impact", lambda r: computed.append(1) or real(r))
    make_assessment()
    impact_url = reverse("admin:decider_ruleset_impact", args=[draft.pk])
    admin_client.get(impact_url)
    admin_client.post(reverse("admin:decider_ruleset_publish", args=[draft.pk]))  # the confirm
    admin_client.get(impact_url)
    assert len(computed) == 1
    weight_list_post(admin_client, draft, "utilization", "6")  # the draft changed
    admin_client.get(impact_url)
    assert len(computed) == 2
    again = admin_client.post(impact_url, {"again": "Compute again"})  # assessments changed
    assert again.status_code == 302 and len(computed) == 3


def test_the_impact_is_computed_by_the_worker_while_the_page_waits(
    admin_client, draft, worker, monkeypatch
):
    from decider import services

    release = threading.Event()
    real = services.ruleset_impact
    monkeypatch.setattr(services, "ruleset_impact", lambda r: release.wait(30) and real(r))
    url = reverse("admin:decider_ruleset_impact", args=[draft.pk])
    waiting = admin_client.get(url).content.decode()
    assert "The impact is being computed" in waiting
    assert '<meta http-equiv="refresh" content="2">' in waiting
    assert "Yes, publish v2" in waiting  # publishing does not wait for it
    release.set()
    deadline = time.monotonic() + 10
    while "impact-total" not in (page := admin_client.get(url).content.decode()):
        assert time.monotonic() < deadline
    assert "Compute again" in page and "http-equiv" not in page


def test_publishing_makes_the_draft_current_and_read_only(admin_client, draft):
    url = reverse("admin:decider_ruleset_publish", args=[draft.pk])
    response = admin_client.post(url, {"confirm": "yes"})
    assert response.url == change_url(draft)
    draft.refresh_from_db()
    assert draft.is_published and draft.published_at is not None
    assert RuleSet.current() == draft
    assert 'name="_save"' not in admin_client.get(change_url(draft)).content.decode()


def test_it_refuses_to_publish_a_draft_that_breaks_a_rule(admin_client, draft):
    draft.criteria.update(weight=0)
    page = admin_client.post(
        reverse("admin:decider_ruleset_publish", args=[draft.pk]), {"confirm": "yes"}, follow=True
    )
    assert "at least one must be above zero" in page.content.decode()
    draft.refresh_from_db()
    assert not draft.is_published
    assert RuleSet.current().version == 1


def test_history_records_who_changed_a_weight(admin_client, admin_user, draft):
    criterion = draft.criteria.get(key="utilization")
    data = change_form_data(admin_client.get(change_url(criterion))) | {"weight": "5"}
    assert admin_client.post(change_url(criterion), data).status_code == 302
    record = criterion.history.first()
    assert record.history_user == admin_user
    assert record.diff_against(record.prev_record).changed_fields == ["weight"]
    page = admin_client.get(reverse("admin:decider_criterion_history", args=[criterion.pk]))
    html = page.content.decode()
    assert "admin" in html and "4.0" in html and "5.0" in html


def test_history_records_who_changed_an_option_and_an_assumption(admin_client, admin_user, draft):
    criterion = draft.criteria.get(key="stage")
    page = admin_client.get(change_url(criterion))
    data = change_form_data(page)
    option = criterion.options.get(value="startup")
    prefix = page.context["inline_admin_formsets"][0].formset.prefix
    index = [f.instance.pk for f in page.context["inline_admin_formsets"][0].formset.forms].index(
        option.pk
    )
    data[f"{prefix}-{index}-score_onprem"] = "-1"
    assert admin_client.post(change_url(criterion), data).status_code == 302
    assert option.history.first().history_user == admin_user

    assumption = Assumption.objects.get(market="global", name="kwh_price")
    data = change_form_data(admin_client.get(change_url(assumption))) | {"value": "0.2"}
    assert admin_client.post(change_url(assumption), data).status_code == 302
    record = assumption.history.first()
    assert (record.history_user, record.value) == (admin_user, 0.2)


def test_history_cannot_be_used_to_revert_a_published_criterion(admin_client, v1):
    criterion = v1.criteria.get(key="stage")
    record = criterion.history.first()
    url = reverse("admin:decider_criterion_simple_history", args=[criterion.pk, record.pk])
    assert admin_client.get(url).status_code == 200
    assert admin_client.post(url, {"weight": "9"}).status_code == 403


def test_it_exports_a_rule_set_as_a_json_download(admin_client, v1):
    response = admin_client.get(reverse("admin:decider_ruleset_export", args=[v1.pk]))
    assert response["Content-Disposition"] == 'attachment; filename="ruleset-v1.json"'
    assert json.loads(response.content) == ruleset_export(v1)

    response = admin_client.post(
        reverse("admin:decider_ruleset_changelist"),
        {"action": "export_json", "_selected_action": [v1.pk]},
    )
    assert json.loads(response.content) == ruleset_export(v1)


def test_it_imports_an_uploaded_rule_set_as_a_draft(admin_client, v1):
    document = ruleset_export(v1)
    upload = SimpleUploadedFile("v1.json", json.dumps(document).encode(), "application/json")
    response = admin_client.post(reverse("admin:decider_ruleset_import"), {"file": upload})
    imported = RuleSet.objects.get(version=2)
    assert response.url == change_url(imported)
    assert not imported.is_published
    assert without_version(ruleset_export(imported)) == without_version(document)


def test_it_refuses_an_uploaded_rule_set_with_a_wrong_type_naming_the_key(admin_client, v1):
    document = ruleset_export(v1)
    document["criteria"][0]["question"] = ["stage"]
    document["constraints"][0]["value"] = {"not": "text"}
    upload = SimpleUploadedFile("bad.json", json.dumps(document).encode(), "application/json")
    page = admin_client.post(reverse("admin:decider_ruleset_import"), {"file": upload})
    html = page.content.decode()
    assert page.status_code == 200
    assert "criterion “stage”: “question” must be text." in html
    assert "“value” must be text." in html
    assert RuleSet.objects.count() == 1


def test_it_refuses_an_uploaded_file_nested_too_deeply(admin_client, v1):
    upload = SimpleUploadedFile("deep.json", b"[" * 100_000, "application/json")
    page = admin_client.post(reverse("admin:decider_ruleset_import"), {"file": upload})
    assert page.status_code == 200
    assert "The file is nested too deeply to be read." in page.content.decode()


def test_it_refuses_an_uploaded_rule_set_with_problems(admin_client, v1):
    document = ruleset_export(v1)
    document["criteria"][0]["options"][0]["scores"]["cloud"] = 7
    document["criteria"][8]["options"][1]["lower"] = 35
    upload = SimpleUploadedFile("bad.json", json.dumps(document).encode(), "application/json")
    page = admin_client.post(reverse("admin:decider_ruleset_import"), {"file": upload})
    html = page.content.decode()
    assert page.status_code == 200
    assert "The file was not imported" in html
    assert "criterion “stage”, option 1: The score must be from -2 to 2." in html
    assert "Answers from 30 to 35 are not covered by any option." in html
    assert RuleSet.objects.count() == 1


def test_the_rule_set_changes_page_lists_who_changed_what(admin_client, draft):
    response, _index = weight_list_post(admin_client, draft, "utilization", "6")
    assert response.status_code == 302
    page = admin_client.get(reverse("admin:decider_ruleset_changes", args=[draft.pk]))
    newest = page.context["rows"][0]
    assert str(newest["record"].history_user) == "admin"
    assert newest["changes"] == [{"field": "weight", "old": 4.0, "new": 6.0}]
    html = page.content.decode()
    assert "Expected average GPU utilization" in html and "draft made from v1" in html


def test_it_refuses_to_delete_a_figure_the_cost_model_falls_back_on(admin_client, client):
    assumption = Assumption.objects.get(market="global", name="kwh_price", gpu_model="")
    page = admin_client.get(change_url(assumption)).content.decode()
    assert reverse("admin:decider_assumption_delete", args=[assumption.pk]) not in page
    response = admin_client.post(
        reverse("admin:decider_assumption_delete", args=[assumption.pk]),
        {"post": "yes"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == change_url(assumption)
    assert "“kwh_price” for every GPU model is what the cost model falls back on" in (
        response.content.decode()
    )
    assert Assumption.objects.filter(pk=assumption.pk).exists()
    # New assessments still score.
    _assessment, edit, _view = make_assessment(name="Scored after the refusal")
    assert client.get(reverse("decider-result", args=[edit])).status_code == 200


def test_it_refuses_to_move_a_fallback_figure_to_one_gpu_model(admin_client):
    assumption = Assumption.objects.get(market="global", name="kwh_price", gpu_model="")
    data = change_form_data(admin_client.get(change_url(assumption))) | {"gpu_model": "H100"}
    response = admin_client.post(change_url(assumption), data)
    assert response.status_code == 200
    assert "cannot be deleted or moved to one GPU model" in (
        " ".join(response.context["adminform"].form.errors["gpu_model"])
    )
    assert Assumption.objects.filter(market="global", name="kwh_price", gpu_model="").exists()


def test_a_figure_for_one_gpu_model_can_be_deleted(admin_client):
    generic = Assumption.objects.get(market="global", name="kwh_price", gpu_model="")
    specific = Assumption.objects.create(
        name="kwh_price", gpu_model="H100", value=0.3, source="test", as_of=generic.as_of
    )
    delete = reverse("admin:decider_assumption_delete", args=[specific.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not Assumption.objects.filter(pk=specific.pk).exists()


def test_the_assessment_list_costs_the_same_queries_for_many_rows(
    admin_client, v1, django_assert_max_num_queries
):
    for _ in range(3):
        make_assessment(ruleset=v1)
    url = reverse("admin:decider_assessment_changelist")
    with CaptureQueriesContext(connection) as few:
        admin_client.get(url)
    for _ in range(30):
        make_assessment(ruleset=v1)
    with django_assert_max_num_queries(len(few.captured_queries)):
        page = admin_client.get(url)
    assert page.status_code == 200 and "v1" in page.content.decode()
    listed = [q["sql"] for q in few.captured_queries if '"result"' in q["sql"]]
    assert not listed, "the list reads the saved results"
