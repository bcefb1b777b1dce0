"""axe-core, injected into every page in Chromium, in both languages: no serious or critical
violation. tests/vendor/axe.min.js is axe-core as published on npm (see tests/vendor/README.md).
"""

import json
from pathlib import Path

import pytest

from decider.engine.questionnaire import STEPS
from tests.factories import make_answers, make_assessment

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
LOCALES = {"en": "en-US", "zh": "zh-CN"}
BLOCKING = {"serious", "critical"}


def page_paths() -> dict[str, str]:
    """Every kind of page, by name: built per test (transactional tests empty the database)."""
    lab, lab_edit, lab_view = make_assessment(answers=make_answers("research_lab"))
    _start, start_edit, _start_view = make_assessment(answers=make_answers("startup"))
    paths = {
        "home": "/",
        "mine": "/mine/",
        "compare": f"/compare/?a={lab_edit}&a={start_edit}",
        "result": f"/a/{lab_edit}/",
        "result-view-link": f"/v/{lab_view}/",
        "report": f"/a/{lab_edit}/report/",
        "method": "/method/",
        "workloads": f"/a/{lab_edit}/workloads/",
        "not-found": "/a/no-such-link-at-all-0000/",
        "what-if": f"/v/{lab_view}/what-if/?gpus=300&utilization_pct=90&horizon_years=5"
        "&gpu_hour_on_demand=2.5",
        "what-if-in-error": f"/a/{lab_edit}/what-if/?gpus=0&utilization_pct=90&horizon_years=5"
        "&gpu_hour_on_demand=2.5",
    }
    for step in STEPS:
        paths[f"step-{step.slug}"] = f"/a/{lab_edit}/step/{step.slug}/"
    paths["step-in-error"] = f"/a/{lab_edit}/step/utilization/"
    return paths


def serious_violations(page) -> list[dict]:
    page.add_script_tag(path=str(AXE))
    results = page.evaluate("async () => await axe.run(document)")
    return [
        {
            "rule": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "nodes": [node["target"] for node in v["nodes"]][:5],
        }
        for v in results["violations"]
        if v["impact"] in BLOCKING
    ]


@pytest.mark.parametrize("width", [1200, 390], ids=["desktop", "phone"])
@pytest.mark.parametrize("language", list(LOCALES))
def test_no_page_has_a_serious_or_critical_violation(browser, live_server, rules, language, width):
    # The app's CSP (script-src 'self') would refuse the injected axe: let the test bypass it.
    context = browser.new_context(
        locale=LOCALES[language], bypass_csp=True, viewport={"width": width, "height": 900}
    )
    page = context.new_page()
    found = {}
    for name, path in page_paths().items():
        page.goto(live_server.url + path)
        if name == "step-in-error":  # the error summary and the fields marked invalid
            page.locator("#id_gpus").fill("1e9")
            page.locator("#id_gpus").press("Enter")
            page.locator("#error-summary").wait_for()
        if name.startswith(("result", "what-if")):  # every fold open: axe skips what is hidden
            page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
            page.wait_for_function("!document.querySelector('.plot:not([data-drawn])')")
        if name.startswith(("result", "what-if")) or name in ("report", "compare"):
            page.wait_for_load_state("networkidle")  # charts drawn
        if violations := serious_violations(page):
            found[name] = violations
    assert found == {}, json.dumps(found, indent=1, ensure_ascii=False)
