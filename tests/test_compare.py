"""Comparing two to four assessments side by side."""

import pytest
from django.urls import reverse

from decider.models import Assessment
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(rules):
    lab, lab_edit, _ = make_assessment(name="Lab cluster", answers=make_answers("research_lab"))
    start, _, start_view = make_assessment(name="Startup cloud", answers=make_answers("startup"))
    return lab_edit, start_view


def test_it_shows_recommendations_scores_totals_and_differences(client, pair):
    lab_edit, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": [lab_edit, start_view]})
    page = response.content.decode()
    assert "Lab cluster" in page and "Startup cloud" in page
    assert "On-premises GPU cluster" in page and "Cloud GPU platform" in page
    rows = {row["label"]: row for row in response.context["answer_rows"]}
    assert rows["Which describes you best?"]["differs"]
    assert not rows["GPU model"]["differs"]
    assert page.count('class="differs"') == sum(r["differs"] for r in rows.values())
    assert response["Referrer-Policy"] == "no-referrer"


def test_the_chart_shows_every_option_of_each_with_its_numbers_open(client, pair):
    lab_edit, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": [lab_edit, start_view]})
    traces = response.context["chart"].figure["data"]
    assert len(traces) == 5  # one per cost option, each with a bar per assessment
    assert all(len(t["x"]) == 2 and t["x"][0].startswith("1. Lab cluster") for t in traces)
    # Stars mark each one's recommendation: on-premises for the lab, a cloud mode for the startup.
    assert [t["text"][0] for t in traces].count("★") == 1
    assert [t["text"][1] for t in traces].count("★") == 1
    page = response.content.decode()
    # Without JavaScript the numbers are there, open, with the difference to the first.
    assert '<details class="chart-table" open>' in page
    assert "Δ Startup cloud − Lab cluster (USD)" in page


def test_one_assessment_is_not_enough(client, pair):
    lab_edit, _ = pair
    page = client.get(reverse("decider-compare"), {"a": [lab_edit]}).content.decode()
    assert "at least two" in page


def test_unknown_or_revoked_links_are_left_out(client, pair):
    lab_edit, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": [lab_edit, "x" * 32]})
    assert "at least two" in response.content.decode()


def test_at_most_four_are_compared(client, rules):
    tokens = [make_assessment(name=f"Scenario {n}")[1] for n in range(5)]
    response = client.get(reverse("decider-compare"), {"a": tokens})
    assert len(response.context["columns"]) == 4


def test_the_compare_page_lists_my_assessments_to_pick_from(client, pair):
    lab_edit, _ = pair
    client.get(reverse("decider-result", args=[lab_edit]))
    page = client.get(reverse("decider-compare")).content.decode()
    assert 'type="checkbox" name="a"' in page and "Lab cluster" in page


def test_the_compare_choices_carry_view_links_not_edit_links(client, pair):
    lab_edit, _start_view = pair
    client.get(reverse("decider-result", args=[lab_edit]))
    page = client.get(reverse("decider-mine")).content.decode()
    assert f'value="{lab_edit}"' not in page
    lab = Assessment.objects.by_token(lab_edit, kind="edit")
    assert f'value="{lab.view_token(edit_token=lab_edit)}"' in page
