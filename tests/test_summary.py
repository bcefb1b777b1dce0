"""The decision first: the executive summary, the appendix, and the method page it links to."""

import datetime
import re
import unicodedata

import pytest
from django.urls import reverse
from django.utils.translation import override

from decider import summary
from decider.engine import validation
from decider.engine.evaluation import answers_evaluate
from decider.method import SECTIONS, cite_links, cited_sections
from tests.factories import make_answers, make_assessment, shipped_figures, shipped_rulebook

RULES = shipped_rulebook()


def evaluate(answers):
    return answers_evaluate(
        answers=answers, rulebook=RULES, figures=shipped_figures(answers["gpu_model"])
    )


def test_the_summary_numbers_agree_with_the_cost_model_read_another_way():
    costs = evaluate(make_answers("growth", horizon_years=3)).costs
    rows = {row.key: row for row in summary.option_figures(costs, recommendation=None)}
    for key, row in rows.items():
        # Year 2 of 3 runs steadily: no purchase, no lead time, no resale.
        assert row.run_rate == pytest.approx(costs["yearly"][key][1] / 12, rel=1e-6)
    # The capital asked for is what owning spends before its first month runs.
    assert rows["onprem"].upfront == pytest.approx(costs["cumulative"]["onprem"][0])
    assert rows["cloud_on_demand"].upfront == 0
    # Per useful GPU-hour, as the per-hour chart gives it at the answer's 55 % utilization.
    grid = costs["per_hour"]["utilization_pct"].index(55)
    for key in ("onprem", "cloud_on_demand", "cloud_reserved"):
        assert rows[key].per_useful_hour == pytest.approx(costs["per_hour"][key][grid], abs=0.01)


def test_a_break_even_that_only_the_resale_makes_says_so():
    # Growth: a hybrid owning half the peak catches up with on demand only by its resale.
    costs = evaluate(make_answers("growth")).costs
    hybrid = next(r for r in summary.option_figures(costs, "hybrid") if r.key == "hybrid")
    mine, cloud = costs["cumulative"]["hybrid"], costs["cumulative"]["cloud_on_demand"]
    assert all(a > b for a, b in zip(mine[:-1], cloud[:-1], strict=True))
    assert mine[-1] <= cloud[-1]
    assert hybrid.resale_only and hybrid.break_even_month == costs["horizon_months"]


def test_only_the_recommended_cost_option_is_marked():
    evaluation = evaluate(make_answers("startup"))
    costs, recommendation = evaluation.costs, evaluation.result.recommendation
    assert recommendation == "cloud"
    marked = [r.key for r in summary.option_figures(costs, recommendation) if r.recommended]
    assert marked == [costs["cheapest_cloud_mode"]]


def test_next_steps_size_the_purchase_and_come_with_dates():
    answers = make_answers("research_lab", gpus=100)
    evaluation = evaluate(answers)
    assert evaluation.result.recommendation == "onprem"
    start = datetime.date(2027, 3, 1)
    with override("en"):
        steps = summary.next_steps(recommendation="onprem", costs=evaluation.costs, start=start)
    texts = " ".join(step.text for step in steps)
    assert "quotes for 13 servers of 8 GPUs" in texts  # 100 GPUs, 8 a server, rounded up
    assert all(step.by > start for step in steps)
    assert [s.by for s in steps] == sorted(s.by for s in steps)


def test_a_cloud_plan_asks_for_a_commitment_of_the_size_found():
    answers = make_answers("startup", gpus=96, base_gpus=64, peak_share_pct=20.0)
    del answers["utilization_pct"], answers["demand_shape"]
    assert validation.answers_validate(answers)[1] == {}
    costs = evaluate(answers).costs
    with override("en"):
        steps = summary.next_steps(
            recommendation="cloud", costs=costs, start=datetime.date(2027, 1, 1)
        )
    assert any(f"commitment of {costs['cloud_committed_gpus']} GPUs" in s.text for s in steps)


def test_what_would_flip_it_names_the_closest_weight():
    sensitivity = {
        "flips": [
            {
                "label": "Expected average GPU utilization",
                "down_factor": 0.6,
                "down_to": "Cloud GPU platform",
                "up_factor": None,
                "up_to": "",
                "closest": 0.4,
            }
        ]
    }
    costs = evaluate(make_answers("growth")).costs
    with override("en"):
        first = summary.what_would_flip(sensitivity, costs)[0]
    assert first == (
        "If “Expected average GPU utilization” weighed 0.60× its weight, "
        "Cloud GPU platform would be recommended."
    )


@pytest.mark.django_db
def test_the_report_opens_with_the_summary_and_ends_with_the_appendix(client, rules):
    _assessment, _edit, view = make_assessment(name="Board pack", answers=make_answers("growth"))
    page = client.get(reverse("decider-view-report", args=[view])).content.decode()
    order = [
        page.index(marker) for marker in ('id="summary"', 'id="scores-title"', 'id="appendix"')
    ]
    assert order == sorted(order)
    appendix = page[page.index('id="appendix"') :]
    assert 'id="drivers-title"' in appendix and 'id="assumptions-title"' in appendix
    assert 'id="drivers-title"' not in page[: page.index('id="appendix"')]
    head = page[: page.index('id="scores-title"')]
    for words in ("Present value at 8 %", "Capital up front", "Per useful GPU-hour", "Next steps"):
        assert words in head


@pytest.mark.django_db
def test_every_quotation_of_the_source_links_to_its_section_on_the_method_page(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("research_lab"))
    page = client.get(reverse("decider-result", args=[edit])).content.decode()
    links = set(re.findall(r'<a class="cite" href="/method/#([\w-]+)">', page))
    assert links, "the reasons quote the source"
    method = client.get(reverse("decider-method")).content.decode()
    assert all(f'id="{anchor}"' in method for anchor in links)
    assert "深度学习GPU超级计算机选型对比" in method  # the source, named


def test_every_section_a_shipped_rule_quotes_exists():
    quoted = {
        section.anchor
        for rule in RULES.rules
        for band in rule.bands
        for text in (band.reason.en, band.reason.zh)
        for section in cited_sections(text)
    }
    assert quoted <= {s.anchor for s in SECTIONS}
    assert "s4-6" in quoted


def test_citations_are_linked_and_the_rest_is_escaped():
    html = cite_links("<b>cost</b> as §IV.6 and §七 say; §X is no section")
    assert "&lt;b&gt;cost&lt;/b&gt;" in html
    assert '<a class="cite" href="/method/#s4-6">§IV.6</a>' in html
    assert '<a class="cite" href="/method/#s7">§七</a>' in html
    assert "§X" in html and 'href="/method/#sX' not in html


@pytest.mark.django_db
def test_the_method_page_reads_in_chinese(client, rules):
    page = client.get(reverse("decider-method"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "成本结构" in page and "How the costs differ" not in page
    # The criteria built on §七 are named on the page, from the published rule set.
    section = page[page.index('id="s7"') :].split("</section>")[0]
    assert "预期GPU平均利用率" in section


def _steady_inference():
    answers = make_answers("inference", gpus=96, base_gpus=64, peak_share_pct=20.0, horizon_years=5)
    answers["has_datacenter"] = True
    del answers["utilization_pct"], answers["demand_shape"]
    return answers


def plain(text):
    """Text as pypdf reads it from the PDF: full-width punctuation folded, no spaces."""
    return unicodedata.normalize("NFKC", text).replace("\n", "").replace(" ", "")


CTO_CASES = [
    (
        "A bank: all data on premises",
        make_answers(
            "research_lab", residency="all", gpus=256, utilization_pct=80.0, horizon_years=5
        ),
        "onprem",
    ),
    ("Steady inference plus bursts", _steady_inference(), "hybrid"),
    ("A startup", make_answers("startup"), "cloud"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "words"),
    [
        ("en", ("Executive summary", "Capital up front", "Next steps", "Main risks")),
        # (no 风: pypdf reads that glyph as a CJK radical)
        ("zh-CN", ("决策摘要", "前期资本支出", "下一步", "每月运行成本")),
    ],
)
@pytest.mark.browser
def test_the_three_cto_cases_read_as_a_decision_on_page_one_of_the_pdf(
    client, rules, accept, words
):
    import io

    import pypdf

    from decider import pdf
    from decider.engine.outcomes import outcome_name

    for name, answers, outcome in CTO_CASES:
        _assessment, _edit, view = make_assessment(name=name, answers=answers)
        html = client.get(
            reverse("decider-view-report", args=[view]), HTTP_ACCEPT_LANGUAGE=accept
        ).content.decode()
        first = pypdf.PdfReader(io.BytesIO(pdf.html_to_pdf(html))).pages[0].extract_text()

        with override("zh-hans" if accept.startswith("zh") else "en"):
            decision = outcome_name(outcome)
        assert plain(decision) in plain(first), (name, accept)
        for word in words:
            assert plain(word) in plain(first), (name, word)


def test_risks_speak_of_the_option_recommended():
    bank = make_answers(
        "research_lab", residency="all", gpus=256, utilization_pct=20.0, horizon_years=5
    )
    evaluation = evaluate(bank)
    assert evaluation.result.recommendation == "onprem"
    with override("en"):
        risks = summary.risks(
            result=evaluation.result,
            runner_up=None,
            costs=evaluation.costs,
            notes=[],
            language="en",
        )
    # Nothing may be rented, so there is no break-even with renting to fall short of.
    assert not [r for r in risks if r.startswith("Owning pays off only above")]

    growth = evaluate(make_answers("growth", ops_fte=0.0))
    assert growth.result.recommendation == "hybrid" and growth.costs["onprem_hires_fte"] > 0
    with override("en"):
        steps = summary.next_steps(
            recommendation="hybrid", costs=growth.costs, start=datetime.date(2027, 1, 1)
        )
    # The full cluster's hires are not the hybrid's.
    assert not [s for s in steps if f"{growth.costs['onprem_hires_fte']:g} FTE" in s.text]


@pytest.mark.parametrize(("gpus", "said"), [(1, "1 GPU committed"), (3, "3 GPUs committed")])
def test_a_count_of_one_gpu_is_singular(gpus, said):
    costs = {"cloud_committed_gpus": gpus, "hybrid_owned_gpus": gpus}
    assert summary.option_detail(costs, "cloud_committed") == said
    assert summary.option_detail(costs, "hybrid") == f"owns {said.split()[0]} " + (
        "GPU" if gpus == 1 else "GPUs"
    )
    with override("zh-hans"):
        assert summary.option_detail(costs, "cloud_committed") == f"承诺 {gpus} 块GPU"
