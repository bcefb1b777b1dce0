"""Live figures follow the publish right (issue 49): an edit by someone who may not publish
waits as a figure change, and only a publisher (never its author, under a second pair of
eyes) makes it current; the history names both."""

import pytest
from django.contrib.auth.models import Group, Permission
from django.urls import reverse

from decider.models import Assumption, FigureChange, Provider, ProviderPrice, TokenPrice
from decider.services import evaluate_now
from tests.adminforms import change_form_data, change_url, changelist_data
from tests.factories import make_answers

pytestmark = pytest.mark.django_db


def _staff(django_user_model, name: str, *groups: str, perms: tuple[str, ...] = ()):
    user = django_user_model.objects.create_user(name, password="pw-Decider-1", is_staff=True)
    user.groups.add(*Group.objects.filter(name__in=groups))
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return user


@pytest.fixture
def people(django_user_model, rules):
    return {
        "erin": _staff(django_user_model, "erin", "editors"),
        "paul": _staff(django_user_model, "paul", "publishers"),
        "petra": _staff(django_user_model, "petra", "publishers"),
        # The audit's users: model permissions only, no group, no publish right.
        "carl": _staff(
            django_user_model,
            "carl",
            perms=("view_assumption", "change_assumption", "view_tokenprice", "change_tokenprice"),
        ),
        "ada": _staff(
            django_user_model,
            "ada",
            perms=("view_provider", "add_provider", "view_tokenprice", "add_tokenprice"),
        ),
        "vic": _staff(django_user_model, "vic", "viewers"),
    }


def _as(client, user):
    client.force_login(user)
    return client


def _server_price():
    return Assumption.objects.get(market="global", name="server_price", gpu_model="")


def _propose_server_price(client, value: str):
    figure = _server_price()
    data = change_form_data(client.get(change_url(figure))) | {"value": value}
    return client.post(change_url(figure), data, follow=True)


def _publish(client, *changes):
    return client.post(
        reverse("admin:decider_figurechange_changelist"),
        {"action": "publish_changes", "_selected_action": [c.pk for c in changes]},
        follow=True,
    )


def test_a_change_without_the_publish_right_waits_and_scores_nothing(client, people):
    """The audit: server_price 1,200,000 → 2 by a user with change permissions only, applied
    to the next assessment."""
    before = _server_price().value
    page = _propose_server_price(_as(client, people["carl"]), "2")
    assert "waiting for a publisher" in page.content.decode()
    assert "was changed successfully" not in page.content.decode()
    assert _server_price().value == before
    (change,) = FigureChange.objects.all()
    assert (change.state, change.action, change.proposed_by) == (
        "waiting",
        "change",
        people["carl"],
    )
    assert change.values == {"value": 2.0} and change.before == {"value": before}
    _ruleset, evaluation = evaluate_now(make_answers("research_lab"))
    assert evaluation.figures["server_price"].value == before


def test_adds_without_the_publish_right_wait_too(client, people):
    _as(client, people["ada"])
    providers = Provider.objects.count()
    data = {
        "key": "audit-cloud",
        "name": "Audit Cloud",
        "name_zh": "审计云",
        "kind": "neocloud",
        "market": "global",
        "price_page": "https://example.com/prices",
        "prices-TOTAL_FORMS": "0",
        "prices-INITIAL_FORMS": "0",
    }
    response = client.post(reverse("admin:decider_provider_add"), data, follow=True)
    assert response.redirect_chain[-1][0] == reverse("admin:decider_figurechange_changelist")
    assert Provider.objects.count() == providers
    (change,) = FigureChange.objects.filter(model="provider")
    assert change.action == "add" and change.values["key"] == "audit-cloud"


def test_the_list_s_own_edits_wait_as_well(client, people):
    _as(client, people["carl"])
    url = reverse("admin:decider_tokenprice_changelist")
    page = client.get(url)
    data = changelist_data(page)
    first = page.context["cl"].formset.forms[0]
    data[f"{first.prefix}-price_in_per_m"] = "0.0001"
    client.post(url, data)
    assert (
        TokenPrice.objects.get(pk=first.instance.pk).price_in_per_m == first.instance.price_in_per_m
    )
    assert FigureChange.objects.get(model="tokenprice").values == {"price_in_per_m": 0.0001}


def test_a_publisher_makes_it_current_and_the_history_names_both(client, people):
    _propose_server_price(_as(client, people["erin"]), "250000")
    change = FigureChange.objects.get()
    # The editor cannot publish it: the action is not theirs.
    _publish(client, change)
    assert _server_price().value != 250000
    change.refresh_from_db()
    assert change.state == "waiting"

    page = _publish(_as(client, people["paul"]), change)
    assert "1 change published" in page.content.decode()
    assert _server_price().value == 250000
    change.refresh_from_db()
    assert (change.state, change.published_by) == ("published", people["paul"])
    record = _server_price().history.first()
    assert record.history_user == people["paul"]
    assert "proposed by erin" in record.history_change_reason
    _ruleset, evaluation = evaluate_now(make_answers("research_lab"))
    assert evaluation.figures["server_price"].value == 250000


def test_under_a_second_pair_of_eyes_a_publisher_s_own_edit_waits_for_another(
    client, people, settings
):
    settings.DECIDER_PUBLISH_REVIEW = True
    before = _server_price().value
    _propose_server_price(_as(client, people["paul"]), "300000")
    change = FigureChange.objects.get()
    page = _publish(client, change)
    assert "someone else must publish it" in page.content.decode()
    assert _server_price().value == before
    _publish(_as(client, people["petra"]), change)
    assert _server_price().value == 300000


def test_without_it_a_publisher_s_own_edit_applies_at_once_and_is_recorded(client, people):
    _propose_server_price(_as(client, people["paul"]), "320000")
    assert _server_price().value == 320000
    change = FigureChange.objects.get()
    assert (change.state, change.proposed_by, change.published_by) == (
        "published",
        people["paul"],
        people["paul"],
    )


def test_a_change_made_stale_by_another_is_refused(client, people):
    _propose_server_price(_as(client, people["erin"]), "260000")
    _propose_server_price(client, "270000")
    first, second = FigureChange.objects.order_by("proposed_at")
    page = _publish(_as(client, people["paul"]), first, second)
    assert "changed since this change was proposed" in page.content.decode()
    assert _server_price().value == 260000
    second.refresh_from_db()
    assert second.state == "waiting"


def test_a_deletion_waits_then_deletes(client, people):
    price = ProviderPrice.objects.first()
    _as(client, people["erin"])
    delete = reverse("admin:decider_providerprice_delete", args=[price.pk])
    client.post(delete, {"post": "yes"})
    assert ProviderPrice.objects.filter(pk=price.pk).exists()
    change = FigureChange.objects.get()
    assert change.action == "delete"
    _publish(_as(client, people["paul"]), change)
    assert not ProviderPrice.objects.filter(pk=price.pk).exists()


def test_a_viewer_proposes_nothing(client, people):
    response = _propose_server_price(_as(client, people["vic"]), "2")
    assert response.status_code == 403
    assert not FigureChange.objects.exists()
