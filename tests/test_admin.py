"""Admins can open and edit the rules and figures."""

import pytest
from django.urls import reverse

from decider.models import Criterion


@pytest.fixture
def admin_client(client, django_user_model, rules):
    admin = django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")
    client.force_login(admin)
    return client


@pytest.mark.parametrize(
    "model", ["ruleset", "criterion", "constraint", "assumption", "assessment"]
)
def test_every_model_list_opens(admin_client, model):
    response = admin_client.get(reverse(f"admin:decider_{model}_changelist"))
    assert response.status_code == 200


def test_a_criterion_page_shows_its_options_with_both_languages(admin_client):
    criterion = Criterion.objects.get(key="utilization")
    page = admin_client.get(reverse("admin:decider_criterion_change", args=[criterion.pk]))
    assert page.status_code == 200
    assert "reason_zh" in page.content.decode()
