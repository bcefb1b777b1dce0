"""Both interface languages are complete, including the shipped rules."""

import json
import re
from pathlib import Path

import polib
from django.urls import reverse

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"


def test_every_interface_string_has_a_chinese_translation():
    catalogue = polib.pofile(str(CATALOGUE))
    assert [e.msgid for e in catalogue.untranslated_entries()] == []
    assert [e.msgid for e in catalogue.fuzzy_entries()] == []


def test_translations_keep_their_placeholders():
    def names(text: str) -> set[str]:
        return set(re.findall(r"%\(\w+\)[sdf]", text))

    for entry in polib.pofile(str(CATALOGUE)):
        if entry.msgid_plural:  # Chinese has one plural form: msgstr[0]
            expected = names(entry.msgid) | names(entry.msgid_plural)
            assert names(entry.msgstr_plural[0]) == expected, entry.msgid
        else:
            assert names(entry.msgstr) == names(entry.msgid), entry.msgid


def test_the_compiled_catalogue_is_up_to_date():
    compiled = CATALOGUE.with_suffix(".mo")
    assert compiled.stat().st_mtime >= CATALOGUE.stat().st_mtime - 1


def test_every_shipped_rule_reads_in_both_languages():
    document = json.loads((ROOT / "fixtures" / "ruleset.json").read_text(encoding="utf-8"))
    texts = [c["label"] for c in document["criteria"]]
    texts += [o[k] for c in document["criteria"] for o in c["options"] for k in ("label", "reason")]
    texts += [c["reason"] for c in document["constraints"]]
    for text in texts:
        assert text["en"].strip() and text["zh"].strip()
        assert re.search(r"[\u4e00-\u9fff]", text["zh"]), text


def test_the_browser_language_picks_chinese(client, rules):
    page = client.get(reverse("decider-home"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content
    assert "开始评估" in page.decode()


def test_the_language_switch_is_remembered(client, rules):
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    assert "开始评估" in client.get(reverse("decider-home")).content.decode()
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert "Start the assessment" in client.get(reverse("decider-home")).content.decode()


def test_a_chinese_result_page_gives_the_rule_reasons_in_chinese(client, rules):
    from tests.factories import make_answers, make_assessment

    _assessment, token, _view = make_assessment(
        answers=make_answers("research_lab", residency="all")
    )
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    page = client.get(reverse("decider-result", args=[token])).content.decode()
    assert "出域" in page
    assert "Ruled out" not in page


def test_a_chinese_step_page_reads_in_chinese(client, rules):
    from tests.factories import make_assessment

    _assessment, token, _view = make_assessment()
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    page = client.get(reverse("decider-step", args=[token, "budget"])).content.decode()
    assert "<h1>预算</h1>" in page
    assert "How you can pay" not in page and "Budget" not in page
    assert "每节点服务器价格" in page  # a figure's label, from the registry
