"""What a saved result shows is computed once per scored result, and never goes stale."""

import logging

import pytest
from django.urls import reverse

from decider.engine import costs
from decider.models import RuleSet
from decider.rulesets import ruleset_draft, ruleset_publish
from tests.factories import STEP_POSTS, make_answers, make_assessment

pytestmark = pytest.mark.django_db


@pytest.fixture
def cost_model_runs(monkeypatch):
    """How often the cost model ran."""
    runs = []
    compute = costs.costs_compute

    def counted(**kwargs):
        runs.append(kwargs["currency"])
        return compute(**kwargs)

    monkeypatch.setattr(costs, "costs_compute", counted)
    return runs


def test_the_cost_model_runs_once_per_scored_result_and_currency(client, rules, cost_model_runs):
    _assessment, edit, view = make_assessment(answers=make_answers("growth"))
    first = client.get(reverse("decider-result", args=[edit])).content.decode()
    runs = len(cost_model_runs)
    assert runs >= 1  # scored on the first visit
    for url in (reverse("decider-result", args=[edit]), reverse("decider-view", args=[view])):
        assert client.get(url).status_code == 200
    assert client.get(reverse("decider-edit-report", args=[edit])).status_code == 200
    assert len(cost_model_runs) == runs

    again = client.get(reverse("decider-result", args=[edit])).content.decode()

    def summary(page: str) -> str:
        return page.split('id="summary"')[1].split("</section>")[0]

    assert summary(again) == summary(first)
    client.get(reverse("decider-result", args=[edit]), {"currency": "CNY"})
    assert cost_model_runs[runs:] == ["CNY"]


def test_a_changed_answer_a_rename_and_a_re_score_show_at_once(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"), name="Plan A")
    url = reverse("decider-result", args=[edit])
    before = client.get(url).content.decode()

    client.post(reverse("decider-rename", args=[edit]), {"name": "Plan B"})
    renamed = client.get(url).content.decode()
    assert "Plan B" in renamed.split('id="summary"')[1].split("</p>")[0]

    step = {**STEP_POSTS["utilization"], "gpus": "512", "gpu_model": "h100", "next": "1"}
    client.post(reverse("decider-step", args=[edit, "utilization"]), step)
    changed = client.get(url).content.decode()
    assert "512" in changed.split('id="answers"')[1]
    assert changed.split('id="costs"')[1] != before.split('id="costs"')[1]


def test_a_new_rule_set_is_seen_at_once_though_rule_books_are_kept(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    client.get(reverse("decider-result", args=[edit]))  # rule book and current rule set kept
    assert RuleSet.current().version == 1
    v2 = ruleset_publish(ruleset_draft(RuleSet.current()))
    assert RuleSet.current() == v2
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert "version 2 is now published" in page


def test_a_what_if_is_drawn_from_its_own_answers_every_time(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-edit-what-if", args=[edit])
    tried = {"utilization_pct": 55, "horizon_years": 3, "gpu_hour_on_demand": 2.99}
    small = client.get(url, {"gpus": 16, **tried}).content.decode()
    large = client.get(url, {"gpus": 1024, **tried}).content.decode()
    assert "What if: not saved." in small and "What if: not saved." in large
    assert small.split('id="costs"')[1] != large.split('id="costs"')[1]
    saved = client.get(reverse("decider-result", args=[edit])).content.decode()
    assert "What if: not saved." not in saved
    assert saved.split('id="costs"')[1] not in (small, large)


def test_an_unreachable_cache_is_a_miss_not_an_error(client, rules, settings, caplog):
    settings.CACHES = {
        **settings.CACHES,
        "scored": {
            "BACKEND": "decider.caching.ForgivingRedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens on the discard port
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        },
    }
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    with caplog.at_level(logging.WARNING, logger="decider.caching"):
        page = client.get(reverse("decider-result", args=[edit]))
        report = client.get(reverse("decider-edit-report", args=[edit]))
    assert page.status_code == report.status_code == 200
    assert 'id="costs"' in page.content.decode()
    assert "cache unreachable" in caplog.text
