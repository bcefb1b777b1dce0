"""Comparing two to four assessments side by side."""

import pytest
from django.urls import reverse

from decider.models import Assessment, token_hash
from tests.factories import make_answers, make_assessment

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(rules):
    """The lab by its edit link (as an owner would hold it), the startup by its view link."""
    lab, lab_edit, _ = make_assessment(name="Lab cluster", answers=make_answers("research_lab"))
    start, _, start_view = make_assessment(name="Startup cloud", answers=make_answers("startup"))
    return lab_edit, start_view


def view_of(edit_token: str) -> str:
    return Assessment.objects.by_token(edit_token, kind="edit").view_token(edit_token=edit_token)


def test_it_shows_recommendations_scores_totals_and_differences(client, pair):
    lab_edit, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": [view_of(lab_edit), start_view]})
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
    response = client.get(reverse("decider-compare"), {"a": [view_of(lab_edit), start_view]})
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
    page = client.get(reverse("decider-compare"), {"a": [view_of(lab_edit)]}).content.decode()
    assert "at least two" in page


def test_unknown_or_revoked_links_are_left_out(client, pair):
    lab_edit, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": [view_of(lab_edit), "x" * 32]})
    assert "at least two" in response.content.decode()


def test_at_most_four_are_compared(client, rules):
    tokens = [make_assessment(name=f"Scenario {n}")[2] for n in range(5)]
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


def test_an_edit_link_is_swapped_for_its_view_link_before_anything_is_shown(client, pair):
    lab_edit, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": [lab_edit, start_view]})
    assert response.status_code == 302
    assert lab_edit not in response["Location"]
    assert view_of(lab_edit) in response["Location"] and start_view in response["Location"]
    page = client.get(response["Location"]).content.decode()
    assert "Lab cluster" in page and "Startup cloud" in page
    assert lab_edit not in page


def test_an_edit_link_whose_view_link_is_revoked_is_left_out(client, pair):
    lab_edit, start_view = pair
    Assessment.objects.filter(edit_hash=token_hash(lab_edit)).update(view_hash=None, view_sealed="")
    response = client.get(reverse("decider-compare"), {"a": [lab_edit, start_view]}, follow=True)
    assert response.redirect_chain[0][0] == f"{reverse('decider-compare')}?a={start_view}"
    assert "at least two" in response.content.decode()


def test_a_token_longer_than_any_link_is_ignored_not_an_error(client, pair):
    _, start_view = pair
    response = client.get(reverse("decider-compare"), {"a": ["y" * 10_000, start_view]})
    assert response.status_code == 200
    assert "at least two" in response.content.decode()


def test_a_growth_scenario_and_its_original_differ_by_their_present_values_and_plans(client, rules):
    """Issue 52: scores alone read the same for a growing startup and its original; the
    present values the verdicts read and each side's plan tell them apart."""
    import re

    from decider import numbers
    from tests.factories import make_growing_answers

    _a, _e, flat_view = make_assessment(name="Today", answers=make_answers("startup"))
    _b, _f, grown_view = make_assessment(name="Growing", answers=make_growing_answers())
    response = client.get(reverse("decider-compare"), {"a": [flat_view, grown_view]})
    page = response.content.decode()
    assert 'class="plan-row"' in page and 'class="verdict-row"' in page
    presents = response.context["present_rows"]
    assert presents and all(len(row["values"]) == 2 for row in presents)
    assert any(row["values"][0] != row["values"][1] for row in presents)
    for number, view in enumerate((flat_view, grown_view)):
        document = client.get(reverse("decider-view-json", args=[view])).json()["result"]
        for option in document["decision"]["options"]:
            shown = numbers.money_full(option["present_value"], "USD", "en")
            row = re.search(
                rf"Present value: [^<]*</th>(?:<td[^>]*>.*?</td>){{{number}}}<td[^>]*>{re.escape(shown)}</td>",
                page,
            )
            assert row, (option["outcome"], shown)
    plans = re.search(r'class="plan-row"><th[^>]*>.*?</th><td>(.*?)</td><td>(.*?)</td>', page)
    assert plans
    for number, view in enumerate((flat_view, grown_view), start=1):
        headline = client.get(reverse("decider-view-json", args=[view])).json()["result"][
            "summary"
        ]["headline"]
        assert plans.group(number) in headline  # each side's own plan
