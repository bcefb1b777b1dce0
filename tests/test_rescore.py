"""A saved result stays as it was when rules or prices change, until re-scored on purpose."""

import pytest
from django.db.models import F
from django.urls import reverse

from decider.models import Assumption, ProviderPrice, RuleSet
from decider.rulesets import ruleset_draft, ruleset_publish
from decider.services import assessment_score
from tests.factories import STEP_POSTS, make_assessment

pytestmark = pytest.mark.django_db


def _publish_v2_favouring_cloud() -> RuleSet:
    draft = ruleset_draft(RuleSet.current())
    # The source's strongest cloud argument, weighted far up.
    draft.criteria.filter(key="utilization").update(weight=30)
    draft.criteria.get(key="stage").options.update(score_cloud=2)
    return ruleset_publish(draft)


@pytest.fixture
def saved(rules):
    assessment, edit, view = make_assessment(name="Sent to the board")
    assessment_score(assessment)
    return assessment, edit, view


def test_a_saved_result_is_unchanged_after_a_new_version_is_published(client, saved):
    assessment, edit, view = saved
    before = assessment.result
    v2 = _publish_v2_favouring_cloud()
    assert RuleSet.current() == v2

    page = client.get(reverse("decider-view", args=[view])).content.decode()
    assessment.refresh_from_db()
    assert assessment.result == before
    assert assessment.ruleset.version == 1
    assert "Scored with rule set version 1" in page


def test_the_edit_page_says_a_newer_version_exists_and_offers_to_rescore(client, saved):
    _assessment, edit, _view = saved
    _publish_v2_favouring_cloud()
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert "version 2 is now published" in page
    assert reverse("decider-rescore", args=[edit]) in page


def test_rescoring_shows_old_and_new_side_by_side_before_accepting(client, saved):
    assessment, edit, _view = saved
    _publish_v2_favouring_cloud()
    response = client.get(reverse("decider-rescore", args=[edit]))
    page = response.content.decode()
    assert "Saved result (rule set v1)" in page and "Re-scored (rule set v2)" in page
    assessment.refresh_from_db()
    assert assessment.ruleset.version == 1  # looking changes nothing

    client.post(reverse("decider-rescore", args=[edit]))
    assessment.refresh_from_db()
    assert assessment.ruleset.version == 2
    assert assessment.result["scoring"]["ruleset_version"] == 2


def test_editing_answers_rescores_with_the_pinned_version(client, saved):
    assessment, edit, _view = saved
    _publish_v2_favouring_cloud()
    client.post(
        reverse("decider-step", args=[edit, "utilization"]),
        {**STEP_POSTS["utilization"], "gpu_model": assessment.answers["gpu_model"], "next": "1"},
    )
    client.get(reverse("decider-result", args=[edit]))
    assessment.refresh_from_db()
    assert assessment.answers["utilization_pct"] == 25
    assert assessment.result["scoring"]["ruleset_version"] == 1


def test_a_saved_result_keeps_the_prices_it_used(client, saved):
    assessment, edit, _view = saved
    price = assessment.result["assumptions"]["gpu_hour_on_demand"]["value"]
    # Every on-demand price triples: the providers' (the result is priced at the cheapest,
    # issue 53) and the market's.
    ProviderPrice.objects.filter(name="gpu_hour_on_demand").update(value=F("value") * 3)
    Assumption.objects.filter(name="gpu_hour_on_demand").update(value=F("value") * 3)

    client.post(
        reverse("decider-step", args=[edit, "utilization"]),
        {**STEP_POSTS["utilization"], "gpu_model": assessment.answers["gpu_model"], "next": "1"},
    )
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assessment.refresh_from_db()
    assert assessment.result["assumptions"]["gpu_hour_on_demand"]["value"] == price
    assert "Some price figures have changed" in page

    rescore = client.get(reverse("decider-rescore", args=[edit])).content.decode()
    assert "gpu_hour_on_demand" in rescore
    client.post(reverse("decider-rescore", args=[edit]))
    assessment.refresh_from_db()
    assert assessment.result["assumptions"]["gpu_hour_on_demand"]["value"] == pytest.approx(
        price * 3
    )


def test_a_view_link_is_told_of_the_new_version_but_cannot_rescore(client, saved):
    _assessment, _edit, view = saved
    _publish_v2_favouring_cloud()
    page = client.get(reverse("decider-view", args=[view])).content.decode()
    assert "version 2 is now published" in page
    assert "/rescore/" not in page


def test_a_result_saved_before_pinning_keeps_its_figures(client, rules):
    """Snapshots from before this version had no revision or figures; the migration adds them."""
    import importlib

    from django.apps import apps

    assessment, edit, view = make_assessment()
    assessment_score(assessment)
    old_style = {k: v for k, v in assessment.result.items() if k in ("scoring", "assumptions")}
    type(assessment).objects.filter(pk=assessment.pk).update(result=old_style)
    importlib.import_module("decider.migrations.0005_pin_saved_results").pin(apps, None)

    price = old_style["assumptions"]["gpu_hour_on_demand"]["value"]
    Assumption.objects.filter(name="gpu_hour_on_demand").update(value=price * 3)
    client.get(reverse("decider-view", args=[view]))
    assessment.refresh_from_db()
    assert assessment.result["scoring"] == old_style["scoring"]
    assert (
        "Some price figures have changed"
        in client.get(reverse("decider-result", args=[edit])).content.decode()
    )


def test_the_budget_step_shows_the_figures_the_result_uses(client, saved):
    assessment, edit, _view = saved
    price = assessment.result["assumptions"]["server_price"]["value"]
    Assumption.objects.filter(name="server_price").update(value=price * 2)
    form = client.get(reverse("decider-step", args=[edit, "budget"])).context["form"]
    assert form["cost_server_price"].value() == price


def test_a_copy_made_before_the_fix_gets_its_recommendation_back(client, rules):
    """Copies used to keep the snapshot only; migration 0007 moves its facts to the columns."""
    import importlib

    from django.apps import apps

    assessment, _edit, view = make_assessment()
    assessment_score(assessment)
    assessment.refresh_from_db()
    saved = (assessment.recommendation, assessment.derived, assessment.scored_revision)
    as_copied = {
        **assessment.result,
        "scoring": {**assessment.result["scoring"], "recommendation": assessment.recommendation},
        "derived": assessment.derived,
        "revision": assessment.revision,
    }
    type(assessment).objects.filter(pk=assessment.pk).update(
        result=as_copied, recommendation="", derived={}, scored_revision=None
    )
    importlib.import_module("decider.migrations.0007_scored_facts_once").columns_only(apps, None)

    assessment.refresh_from_db()
    assert (assessment.recommendation, assessment.derived, assessment.scored_revision) == saved
    assert {"derived", "revision"}.isdisjoint(assessment.result)
    assert "recommendation" not in assessment.result["scoring"]
    scored_at = assessment.scored_at
    assert client.get(reverse("decider-view", args=[view])).status_code == 200
    assessment.refresh_from_db()
    assert assessment.scored_at == scored_at  # not re-scored: the result is current


def test_a_result_scored_before_new_figures_existed_still_shows(client, rules):
    """Snapshots name the figures of their day; one added since takes today's value."""
    assessment, edit, _view = make_assessment()
    assessment_score(assessment)
    assessment.refresh_from_db()
    older = {**assessment.result}
    for key in ("assumptions", "figures"):
        older[key] = {
            k: v for k, v in older[key].items() if k not in ("discount_rate", "hire_cost")
        }
    type(assessment).objects.filter(pk=assessment.pk).update(result=older)
    page = client.get(reverse("decider-result", args=[edit]))
    assert page.status_code == 200
    assert "Some price figures have changed" in page.content.decode()
