"""The migration checklist (source §八), fitted to the recommendation and the answers."""

import pytest
from django.urls import reverse

from decider.checklist import checklist_for
from tests.factories import make_answers, make_assessment

MIGRATION = {"cost": 9000.0, "days": 2.5, "currency": "USD"}


def _titles(items):
    return [item.title for item in items]


def test_it_gives_the_data_transfer_time_and_cost():
    items = checklist_for("cloud", make_answers(dataset_tb=100.0), MIGRATION)
    assert "about 2.5 days" in items[0].detail and "9,000 USD" in items[0].detail


def test_without_a_transfer_link_it_gives_the_cost_and_no_days():
    migration = {**MIGRATION, "days": None}
    detail = checklist_for("cloud", make_answers(dataset_tb=100.0), migration)[0].detail
    assert "9,000 USD" in detail
    assert "days" not in detail


def test_it_says_nothing_of_transfer_for_an_empty_data_set():
    detail = checklist_for("cloud", make_answers(dataset_tb=0.0), MIGRATION)[0].detail
    assert "USD" not in detail and "days" not in detail


def test_large_data_sets_suggest_shipping_devices():
    assert "offline" in checklist_for("onprem", make_answers(dataset_tb=500.0), MIGRATION)[0].detail
    assert (
        "offline" not in checklist_for("onprem", make_answers(dataset_tb=5.0), MIGRATION)[0].detail
    )


def test_cloud_items_come_with_cloud_and_build_items_with_owning():
    cloud = _titles(checklist_for("cloud", make_answers(), MIGRATION))
    onprem = _titles(checklist_for("onprem", make_answers(), MIGRATION))
    hybrid = _titles(checklist_for("hybrid", make_answers(), MIGRATION))
    assert "Adapt job scheduling" in cloud and "Adapt job scheduling" not in onprem
    assert "Staff the operations" in onprem and "Staff the operations" not in cloud
    assert set(cloud) | set(onprem) <= set(hybrid)


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["decider-result", "decider-edit-report"])
def test_a_zero_bandwidth_figure_shows_the_pages(client, rules, page):
    answers = make_answers(costs={"transfer_gbps": 0.0})
    _assessment, edit, _view = make_assessment(answers=answers)
    response = client.get(reverse(page, args=[edit]))
    assert response.status_code == 200
    assert "Data migration cost and time" in response.content.decode()
