"""Mainland China as a market of its own: CNY prices, the GPUs sold there, Chinese sources,
and costs per useful H100-equivalent hour."""

import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.urls import reverse

from decider.engine import markets
from decider.engine.costs import costs_compute
from decider.engine.evaluation import answers_evaluate, cost_answers
from decider.engine.validation import answers_validate
from decider.models import Assumption
from tests.factories import make_answers, shipped_figures, shipped_rulebook

ROOT = Path(__file__).resolve().parent.parent

# Three mainland CTOs.
BEIJING_STARTUP_ON_H20 = make_answers(
    "startup", market="cn", gpu_model="h20", workload="inference", gpus=16, utilization_pct=25
)
SHANGHAI_BANK_ON_ASCEND = make_answers(
    "research_lab",
    market="cn",
    gpu_model="ascend_910b",
    residency="all",
    sensitivity="high",
    jurisdiction_concern=True,
    has_datacenter=True,
    gpus=64,
    horizon_years=5,
)
GROWING_MIX_OF_CLOUD_AND_OWN = make_answers("growth", market="cn", gpu_model="h20")
PERSONAS = {
    "beijing-startup-h20": (BEIJING_STARTUP_ON_H20, "cloud"),
    "shanghai-bank-ascend": (SHANGHAI_BANK_ON_ASCEND, "onprem"),
    "growing-company-mix": (GROWING_MIX_OF_CLOUD_AND_OWN, "hybrid"),
}


def _created(client, name, answers):
    """An assessment made through the API, as a script would: its links."""
    body = json.dumps({"name": name, "answers": answers})
    response = client.post(
        reverse("decider-api-assessments"), body, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def evaluate(answers, currency="CNY"):
    answers, errors = answers_validate(answers)
    assert errors == {}
    figures = shipped_figures(answers["gpu_model"], answers.get("market", "global"))
    return answers_evaluate(
        answers=answers, rulebook=shipped_rulebook(), figures=figures, currency=currency
    )


@pytest.mark.parametrize("persona", PERSONAS)
def test_each_mainland_persona_reaches_the_verdict_a_practitioner_expects(persona):
    answers, expected = PERSONAS[persona]
    evaluation = evaluate(answers)
    assert evaluation.result.recommendation == expected
    assert evaluation.costs["prices_in"] == "CNY" and evaluation.costs["currency"] == "CNY"


def test_the_bank_whose_data_may_not_leave_never_rents():
    evaluation = evaluate(SHANGHAI_BANK_ON_ASCEND)
    assert "cloud" in evaluation.result.excluded
    assert evaluation.costs["options_compared"] == ["onprem"]


def test_a_cny_price_set_shown_in_usd_is_converted_once_at_the_dated_rate():
    answers, _errors = answers_validate(BEIJING_STARTUP_ON_H20)
    figures = shipped_figures("h20", "cn")
    costs = {
        currency: costs_compute(answers=cost_answers(answers), figures=figures, currency=currency)
        for currency in ("CNY", "USD")
    }
    rate = figures["usd_cny"].value
    for option, cny in costs["CNY"]["totals"].items():
        assert costs["USD"]["totals"][option] == pytest.approx(cny / rate, rel=1e-4, abs=0.02)
    # The figures themselves stay in the price set's own currency.
    assert costs["USD"]["assumptions"]["server_price"]["value"] == 1_200_000
    assert costs["USD"]["assumptions"]["server_price"]["unit"] == "CNY per node"


def test_a_slower_card_is_not_flattered_per_useful_hour():
    """H20 trains at 0.15 of an H100: its per-hour cost is per useful H100-equivalent hour."""
    training = dict(BEIJING_STARTUP_ON_H20, workload="training")
    inference = evaluate(BEIJING_STARTUP_ON_H20).costs
    trained = evaluate(training).costs
    assert trained["h100_equivalent"] == 0.15 and inference["h100_equivalent"] == 1.1
    at = trained["per_hour"]["utilization_pct"].index(50)
    ratio = trained["per_hour"]["onprem"][at] / inference["per_hour"]["onprem"][at]
    assert ratio == pytest.approx(1.1 / 0.15, rel=0.01)


@pytest.mark.parametrize("market", list(markets.MARKETS))
def test_every_model_of_a_market_has_its_whole_price_set(market):
    for model in markets.MARKETS[market].gpu_models:
        figures = shipped_figures(model, market)
        costs = costs_compute(
            answers=cost_answers(make_answers(market=market, gpu_model=model)), figures=figures
        )
        assert all(total > 0 for total in costs["totals"].values()), (market, model)
        assert all(f.source_zh for f in figures.values()), (market, model)


def test_a_model_not_sold_in_the_market_is_refused_naming_the_key(client, rules):
    body = json.dumps(make_answers(gpu_model="h20"))  # no market: the global prices
    response = client.post(
        reverse("decider-api-assessments"), body, content_type="application/json"
    )
    assert response.status_code == 400
    assert "h100" in response.json()["errors"]["gpu_model"]


@pytest.mark.django_db
def test_a_mainland_result_page_reads_in_chinese_with_chinese_sources(client, rules):
    created = _created(client, "北京初创 H20", BEIJING_STARTUP_ON_H20)
    page = client.get(created["edit_url"], headers={"Accept-Language": "zh-hans"})
    text = page.content.decode()
    assert page.status_code == 200
    assert "经销商报价 8×H20 服务器约 120 万元" in text  # the server price's source, in Chinese
    assert "元/节点" in text and "USD per node" not in text
    assert "万" in text


def test_decide_prints_each_figures_source_in_chinese(tmp_path, rules, capsys):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(BEIJING_STARTUP_ON_H20), encoding="utf-8")
    call_command("decide", str(answers), "--lang", "zh-hans")
    out = capsys.readouterr().out
    assert "Cost figures (CNY price set):" in out
    assert "经销商报价 8×H20 服务器约 120 万元" in out and "元/节点" in out


@pytest.mark.django_db
def test_load_defaults_adds_a_new_market_and_keeps_an_edited_figure(rules):
    Assumption.objects.filter(market="cn").delete()
    edited = Assumption.objects.get(market="global", name="kwh_price", gpu_model="")
    edited.value = 0.2
    edited.save()
    call_command("load_defaults", verbosity=0)
    assert Assumption.objects.filter(market="cn").count() > 30
    edited.refresh_from_db()
    assert edited.value == 0.2


@pytest.mark.django_db
def test_the_budget_step_of_a_mainland_assessment_speaks_in_its_price_set(client, rules):
    from tests.factories import make_assessment

    _assessment, edit, _view = make_assessment(answers=BEIJING_STARTUP_ON_H20)
    page = client.get(
        reverse("decider-step", args=[edit, "budget"]), headers={"Accept-Language": "zh-hans"}
    )
    text = page.content.decode()
    assert "元/节点" in text and "美元/节点" not in text
    assert "经销商报价 8×H20 服务器约 120 万元" in text and "2024年7月" in text


@pytest.mark.django_db
def test_a_mainland_result_keeps_its_prices_and_only_its_own_market_makes_them_newer(client, rules):
    from decider import services
    from tests.factories import make_assessment

    assessment, edit, _view = make_assessment(answers=BEIJING_STARTUP_ON_H20)
    services.assessment_score(assessment)
    price = assessment.result["assumptions"]["gpu_hour_on_demand"]["value"]
    assert price == 7.5  # the H20's mainland price, in CNY
    Assumption.objects.filter(market="global").update(value=1.0)  # another market's edit
    assert services.newer_basis(assessment) is None
    Assumption.objects.filter(market="cn", name="gpu_hour_on_demand", gpu_model="").update(
        value=9.0
    )
    assert services.newer_basis(assessment) == {"ruleset": None, "figures": True}
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    assessment.refresh_from_db()
    assert assessment.result["assumptions"]["gpu_hour_on_demand"]["value"] == 7.5
    assert "Some price figures have changed" in page


@pytest.mark.django_db
def test_an_admin_edits_a_mainland_figure_with_history(admin_client):
    from tests.adminforms import change_form_data, change_url

    figure = Assumption.objects.get(market="cn", name="kwh_price", gpu_model="")
    data = change_form_data(admin_client.get(change_url(figure))) | {"value": "0.55"}
    assert admin_client.post(change_url(figure), data).status_code == 302
    record = figure.history.first()
    assert (record.market, record.value, record.source_zh) == ("cn", 0.55, figure.source_zh)


@pytest.fixture
def admin_client(client, django_user_model, rules):
    user = django_user_model.objects.create_superuser("admin", "a@example.com", "pw-Decider-1")
    client.force_login(user)
    return client


@pytest.mark.browser
@pytest.mark.django_db
def test_the_mainland_pdf_prints_in_chinese_with_cny_and_chinese_sources(client, rules):
    import io
    import unicodedata

    import pypdf

    created = _created(client, "上海某银行", SHANGHAI_BANK_ON_ASCEND)
    view_path = urlsplit(created["view_url"]).path
    response = client.get(view_path + "report.pdf", headers={"Accept-Language": "zh-hans"})
    assert response["Content-Type"] == "application/pdf"
    reader = pypdf.PdfReader(io.BytesIO(response.content))
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    text = unicodedata.normalize("NFKC", text).replace(" ", "")  # the fonts' radicals (⾃→自)
    assert "本地自建GPU集群" in text and "¥" in text and "万" in text
    assert "路透社" in text  # the Ascend card price's source, in Chinese
    assert "Estimate:" not in text and "USDpernode" not in text


@pytest.mark.django_db
def test_the_impact_preview_rescoring_counts_mainland_results(rules):
    from decider import services
    from decider.models import RuleSet
    from decider.rulesets import ruleset_draft
    from tests.factories import make_assessment

    for answers in (SHANGHAI_BANK_ON_ASCEND, BEIJING_STARTUP_ON_H20):
        assessment, _edit, _view = make_assessment(answers=answers)
        services.assessment_score(assessment)
    impact = services.ruleset_impact(ruleset_draft(RuleSet.current()))
    assert impact.total == 2 and impact.changed == 0  # an unchanged draft changes nothing


# --- currencies: one registry (engine/markets.py CURRENCY) -----------------------------


def test_the_currency_list_is_the_registry():
    assert markets.CURRENCIES == tuple(markets.CURRENCY) == ("USD", "CNY")


def test_a_third_currency_is_one_entry_and_its_rate_figure(monkeypatch):
    from decider import numbers
    from decider.charts import _money_axis
    from decider.engine.figures import FIGURES

    euro = markets.Currency("EUR", "€", "欧元", "usd_eur")
    monkeypatch.setitem(markets.CURRENCY, "EUR", euro)
    rates = {"usd_cny": 7.2, "usd_eur": 0.9}

    assert markets.currency_rate(rates, prices_in="CNY", shown_in="EUR") == pytest.approx(0.125)
    assert markets.currency_rate(rates, prices_in="EUR", shown_in="USD") == pytest.approx(1 / 0.9)
    assert numbers.money_full(1234.4, "EUR", "en") == "€1,234"
    assert numbers.money_full(-25_000, "EUR", "zh-hans") == "-€2.50万"
    assert _money_axis("EUR")["tickprefix"] == "€"
    unit = FIGURES["server_price"].unit_in("EUR")
    assert "EUR" in unit.en and "欧元" in unit.zh


def test_a_currency_without_an_entry_is_refused_by_name():
    with pytest.raises(ValueError, match="no rate for GBP: currencies are USD, CNY"):
        markets.currency_rate({"usd_cny": 7.2}, prices_in="USD", shown_in="GBP")
