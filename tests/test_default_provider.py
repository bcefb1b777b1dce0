"""One price for the cloud by default (issue 53): without a `providers` answer the cloud is
priced at the cheapest listed provider, and every page that quotes the cloud's price quotes
that one; a result scored before keeps the figures it was scored with."""

import importlib
import re

import pytest
from django.urls import reverse

from decider import services
from decider.models import Provider
from tests.factories import make_answers, make_assessment
from tests.test_forms import step_url

pytestmark = pytest.mark.django_db


def test_a_saved_market_answer_is_retired_and_nothing_else_moves():
    migration = importlib.import_module("decider.migrations.0024_cloud_provider_market_retired")
    saved = {"stage": "growth", "cloud_provider": "market", "gpus": 64}
    assert migration.market_retired(saved) == {"stage": "growth", "gpus": 64}
    assert migration.market_retired({"cloud_provider": "neocloud"}) is None
    assert migration.market_retired([]) is None


def test_a_result_scored_at_the_market_s_figures_keeps_them(rules):
    answers = make_answers("growth")
    old = {"figures": {}, "gpu_model": answers["gpu_model"], "market": "global"}
    assert services.listed_providers(answers, pinned=old) == []
    # Its GPU model changed since: its figures no longer apply, nor does pricing at none.
    moved = {**old, "gpu_model": "b200"}
    assert {p.key for p in services.listed_providers(answers, pinned=moved)} == set(Provider.keys())


def test_the_budget_step_and_the_what_if_quote_the_price_the_result_uses(client, rules):
    assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    before = client.get(step_url(edit, "budget")).content.decode()
    result = client.get(reverse("decider-result", args=[edit])).content.decode()
    assessment.refresh_from_db()
    priced = assessment.result["assumptions"]["gpu_hour_on_demand"]["value"]
    assert assessment.result["provider"]["chosen"]["key"] in set(Provider.keys())
    after = client.get(step_url(edit, "budget")).content.decode()
    for page in (before, after):
        field = re.search(r'name="cost_gpu_hour_on_demand" value="([0-9.]+)"', page)
        assert float(field.group(1)) == priced
    what_if = re.search(r'id="what-if-gpu_hour_on_demand"[^>]*value="([0-9.]+)"', result)
    what_if = what_if or re.search(r'value="([0-9.]+)"[^>]*id="what-if-gpu_hour_on_demand"', result)
    assert float(what_if.group(1)) == priced


def test_the_market_index_is_derived_from_the_listed_providers_prices(rules):
    """One place for each price: the market's H100 index is a statistic of the listed
    providers' current prices, never a figure typed beside them."""
    import statistics

    from decider.engine.providers import market_index
    from decider.models import Assumption, ProviderPrice

    listed = Provider.listed("global")
    typed = Assumption.for_gpu_model("h100", "global")
    index = market_index(typed, listed, gpu_model="h100")
    on_demand = ProviderPrice.objects.filter(name="gpu_hour_on_demand", gpu_model="h100")
    median = statistics.median(p.value for p in on_demand)
    assert index["gpu_hour_on_demand"].value == pytest.approx(median, abs=1e-4)
    assert index["gpu_hour_on_demand"].source.startswith(
        f"Market index: the median of {on_demand.count()} listed providers"
    )
    # A reserved price: the median on demand × the median ratio among those publishing both.
    both = [
        ProviderPrice.objects.get(
            provider=p.provider, name="gpu_hour_reserved_1y", gpu_model="h100"
        ).value
        / p.value
        for p in on_demand
        if ProviderPrice.objects.filter(
            provider=p.provider, name="gpu_hour_reserved_1y", gpu_model="h100"
        ).exists()
    ]
    assert both
    assert index["gpu_hour_reserved_1y"].value == pytest.approx(
        median * statistics.median(both), abs=1e-4
    )
    # The result's "market's typical price" is that index: a provider is compared with it.
    assert market_index(typed, [], gpu_model="h100") == typed


def test_the_admin_says_which_typed_prices_the_index_replaces(client, admin_user):
    from decider.models import Assumption

    client.force_login(admin_user)
    url = reverse("admin:decider_assumption_changelist")
    global_h100 = client.get(url, {"market": "global", "gpu_model": "", "q": "gpu_hour_on_demand"})
    assert "Not read while listed providers rent this GPU model" in global_h100.content.decode()
    # The mainland market lists no provider: its typed prices price the cloud.
    cn = client.get(url, {"market": "cn", "q": "gpu_hour_on_demand"}).content.decode()
    assert Assumption.objects.filter(market="cn", name="gpu_hour_on_demand").exists()
    assert "Not read while" not in cn
