"""Dated figures age visibly (issue 51): a figure older than twelve months carries a tag on
the result and in the report; a price quoted through an unofficial channel or a broker is
flagged on the result; the network figure's label does not name a fabric its note denies."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse

from decider.engine.figures import FIGURES, is_unofficial
from tests.factories import make_answers, make_assessment, shipped_figure_rows

pytestmark = pytest.mark.django_db


def page_of(client, answers, language="en", name="decider-result"):
    _assessment, edit, _view = make_assessment(answers=answers)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    return client.get(reverse(name, args=[edit])).content.decode()


def figure_row(page: str, name: str) -> str:
    """The row of the figures table that holds the figure `name`."""
    at = page.index(f'<code class="figure-key">{name}</code>')
    return page[page.rindex("<tr", 0, at) : page.index("</tr>", at)]


def test_a_figure_over_a_year_old_is_tagged_and_a_recent_one_is_not(client, rules):
    rows = {row["name"]: row for row in shipped_figure_rows() if not row.get("gpu_model")}
    today = datetime.date.today()
    old = [
        n for n, r in rows.items() if (today - datetime.date.fromisoformat(r["as_of"])).days > 366
    ]
    new = [
        n for n, r in rows.items() if (today - datetime.date.fromisoformat(r["as_of"])).days < 360
    ]
    assert old and new
    page = page_of(client, make_answers("research_lab"))
    for name in old[:3]:
        assert "over a year old" in figure_row(page, name), name
    for name in new[:3]:
        assert "over a year old" not in figure_row(page, name), name


@pytest.mark.parametrize(
    ("language", "said"), [("en", "unofficial channel"), ("zh-hans", "非官方渠道")]
)
def test_a_grey_market_quote_is_flagged_on_the_result(client, rules, language, said):
    answers = make_answers("research_lab", market="cn", gpu_model="h100")
    page = page_of(client, answers, language)
    assert said in figure_row(page, "server_price")
    flag = "ask for an official quote" if language == "en" else "向正规渠道询价"
    assert flag in page


def test_the_report_carries_the_tags_too(client, rules):
    answers = make_answers("research_lab", market="cn", gpu_model="h100")
    report = page_of(client, answers, name="decider-edit-report")
    row = figure_row(report, "server_price")
    assert "unofficial channel" in row and "over a year old" in row


def test_only_the_sources_that_say_so_are_unofficial():
    cn = {(r["name"], r.get("gpu_model", "")): r for r in shipped_figure_rows("cn")}
    assert is_unofficial(cn[("server_price", "h100")]["source"])
    assert not is_unofficial(cn[("server_price", "h800")]["source"])  # Reuters, at launch
    assert not any(is_unofficial(r["source"]) for r in shipped_figure_rows())


def test_the_network_label_names_no_fabric_the_mainland_note_denies():
    label = FIGURES["network_per_node"].label
    assert "InfiniBand" not in label.en or "RoCE" in label.en
    assert "RoCE" in label.zh or "InfiniBand" not in label.zh
