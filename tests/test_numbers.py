"""Amounts as each language writes them: k/M/B in English, 万/亿 in Chinese."""

import pytest
from django.urls import reverse
from django.utils import translation

from decider import numbers
from decider.charts import charts_for
from tests.factories import make_assessment


@pytest.mark.parametrize(
    ("value", "en", "zh"),
    [
        (740_000, "740k", "74万"),
        (3_618_698, "3.6M", "362万"),
        (230_000_000, "230M", "2.3亿"),
        (9_500, "9.5k", "9,500"),
        (-740_000, "-740k", "-74万"),
    ],
)
def test_compact_groups_by_thousands_in_english_and_by_wan_in_chinese(value, en, zh):
    assert numbers.compact(value, "en") == en
    assert numbers.compact(value, "zh-hans") == zh


def test_a_full_amount_in_chinese_reads_in_wan_or_yi_to_the_hundredth():
    assert numbers.money_full(3_618_698, "CNY", "zh-hans") == "¥361.87万"
    assert numbers.money_full(1_234_567_890, "USD", "zh-hans") == "$12.35亿"
    assert numbers.money_full(950, "CNY", "zh-hans") == "¥950"
    assert numbers.money_full(3_618_698, "USD", "en") == "$3,618,698"
    assert numbers.money_full(-740_000, "USD", "en") == "-$740,000"


def test_axis_ticks_are_round_and_cover_the_values():
    ticks = numbers.linear_ticks(0, 2.3e8)
    assert ticks[0] == 0 and ticks[-1] >= 2.3e8 and 3 <= len(ticks) <= 7
    step = ticks[1] - ticks[0]
    assert all(abs((b - a) - step) < 1e-6 for a, b in zip(ticks, ticks[1:], strict=False))
    labels = [numbers.tick_label(v, "CNY", "zh-hans") for v in ticks]
    assert labels[0] == "¥0" and all("亿" in label or "万" in label for label in labels[1:])


@pytest.mark.django_db
def test_every_money_axis_of_a_chinese_result_reads_in_wan_or_yi(rules):
    from decider import services

    assessment, _edit, _view = make_assessment()
    services.assessment_score(assessment)
    costs = services.assessment_costs(assessment, currency="CNY")
    with translation.override("zh-hans"):
        figures = {chart.key: chart.figure for chart in charts_for(costs)}
    for key in ("cumulative", "breakdown"):
        axis = figures[key]["layout"]["yaxis"]
        assert axis["tickmode"] == "array", key
        assert any("万" in t or "亿" in t for t in axis["ticktext"]), (key, axis["ticktext"])
        assert not any(t[-1] in "kMB" for t in axis["ticktext"])
    with translation.override("en"):
        english = charts_for(costs)[0].figure["layout"]["yaxis"]
    assert "ticktext" not in english and english["tickprefix"] == "¥"  # Plotly ticks it


@pytest.mark.django_db
def test_the_chinese_result_page_shows_amounts_in_wan(client, rules):
    _assessment, edit, _view = make_assessment()
    page = client.get(
        reverse("decider-result", args=[edit]), headers={"Accept-Language": "zh-hans"}
    )
    text = page.content.decode()
    assert "万" in text and "¥" in text


def test_a_figures_date_reads_as_its_month_in_either_language():
    from decider.formats import month_text

    with translation.override("zh-hans"):
        assert month_text("2026-03-01") == "2026年3月"
    with translation.override("en"):
        assert month_text("2026-03-01") == "March 2026"
    assert month_text("") == "—" and month_text("soon") == "soon"
