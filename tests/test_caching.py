"""What a saved result shows is computed once per scored result, and never goes stale."""

import logging
import re

import pytest
from django.core.cache import caches
from django.test import Client
from django.urls import reverse

from decider import caching, services
from decider.engine import costs
from decider.models import PRICE_COLUMNS, Assessment, Assumption, RuleSet
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


def test_the_cost_model_runs_once_per_scored_result_whatever_the_currency(
    client, rules, cost_model_runs
):
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
    # A page in yuan converts the same computation (decider/conversion.py): it runs nothing.
    page = client.get(reverse("decider-result", args=[edit]), {"currency": "CNY"})
    assert page.status_code == 200 and "¥" in page.content.decode()
    assert cost_model_runs[runs:] == []


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
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",  # nothing listens on the discard port
            "OPTIONS": settings.REDIS_OPTIONS,
        },
    }
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    with caplog.at_level(logging.WARNING, logger="decider.caching"):
        page = client.get(reverse("decider-result", args=[edit]))
        report = client.get(reverse("decider-edit-report", args=[edit]))
    assert page.status_code == report.status_code == 200
    assert 'id="costs"' in page.content.decode()
    assert "cache unreachable" in caplog.text


# --- whole pages (caching.kept_page) ---------------------------------------------------

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def test_a_kept_page_gives_each_browser_a_csrf_token_of_its_own(rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-result", args=[edit])
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    drawn, kept = first.get(url), second.get(url)
    assert drawn.templates and not kept.templates  # the second browser read the kept page
    tokens = [set(CSRF_FIELD.findall(page.content.decode())) for page in (drawn, kept)]
    assert all(len(found) == 1 for found in tokens) and tokens[0] != tokens[1]
    assert "kept-page-hole" not in kept.content.decode()
    rename = reverse("decider-rename", args=[edit])
    (mine,), (theirs,) = tokens[1], tokens[0]
    assert second.post(rename, {"name": "forged", "csrfmiddlewaretoken": theirs}).status_code == 403
    assert second.post(rename, {"name": "Mine", "csrfmiddlewaretoken": mine}).status_code == 302
    assert "Mine" in first.get(url).content.decode()


def test_prices_changed_in_place_show_on_a_kept_page_at_once(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-result", args=[edit])
    assert "Some price figures have changed" not in client.get(url).content.decode()
    assert not client.get(url).templates  # kept
    Assumption.objects.filter(name="gpu_hour_on_demand").update(value=99.0)  # no signal, no save
    assert "Some price figures have changed" in client.get(url).content.decode()


def test_a_step_kept_shows_a_changed_speed_figure_and_a_new_answer_at_once(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-step", args=[edit, "utilization"])
    assert "training 0.15×" in client.get(url).content.decode()  # the H20, as loaded
    assert not client.get(url).templates
    Assumption.objects.filter(name="perf_train_vs_h100", gpu_model="h20").update(value=0.2)
    assert "training 0.2×" in client.get(url).content.decode()
    client.post(url, {**STEP_POSTS["utilization"], "gpus": "777", "next": "1"})
    assert 'value="777"' in client.get(url).content.decode()


def test_a_message_is_shown_once_and_never_kept(client, rules):
    _assessment, edit, _view = make_assessment(answers=make_answers("growth"))
    url = reverse("decider-result", args=[edit])
    client.get(url)  # kept
    links = reverse("decider-links", args=[edit])
    told = client.post(links, {"action": "no-such-action"}, follow=True).content.decode()
    assert "Unknown action." in told
    again = client.get(url)
    assert not again.templates and "Unknown action." not in again.content.decode()


def test_each_language_currency_and_link_has_a_page_of_its_own(client, rules):
    _assessment, edit, view = make_assessment(answers=make_answers("growth"))
    english = client.get(reverse("decider-result", args=[edit])).content.decode()
    viewed = client.get(reverse("decider-view", args=[view])).content.decode()
    in_cny = client.get(reverse("decider-result", args=[edit]), {"currency": "CNY"})
    chinese = client.get(reverse("decider-result", args=[edit]), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert 'id="share"' in english and 'id="share"' not in viewed
    assert "CNY" in in_cny.content.decode().split('id="costs"')[1].split("</table>")[0]
    assert 'lang="zh-Hans"' in chinese.content.decode() and 'lang="en"' in english


def test_no_working_link_is_written_into_the_cache(client, rules, monkeypatch):
    _assessment, edit, view = make_assessment(answers=make_answers("growth"))
    written = []
    cache = caches[caching.CACHE]
    keep = cache.set

    def spied(key, value, *args, **kwargs):
        written.append((key, value))
        keep(key, value, *args, **kwargs)

    monkeypatch.setattr(cache, "set", spied)
    pages = [
        reverse("decider-result", args=[edit]),
        reverse("decider-view", args=[view]),
        reverse("decider-edit-report", args=[edit]),
        reverse("decider-step", args=[edit, "utilization"]),
        reverse("decider-home"),  # lists this browser's assessments
    ]
    shown = [client.get(url).content.decode() for url in pages]
    # The edit page shows both links; home lists the last one opened (the view link).
    assert edit in shown[0] and view in shown[0] and view in shown[-1]
    kept = [value for key, value in written if key.startswith("page:")]
    assert len(kept) == len(pages)
    assert not [value for value in kept if edit in value or view in value]
    again = [client.get(url) for url in pages]
    assert not any(page.templates for page in again)  # read back, holes filled
    assert [_tokenless(page.content.decode()) for page in again] == list(map(_tokenless, shown))


def _tokenless(page: str) -> str:
    """The page with its CSRF tokens (new per request) blanked out."""
    return re.sub(r'(csrfmiddlewaretoken" value="|"X-CSRFToken": ")[^"]+', r"\1", page)


@pytest.mark.parametrize(
    "market, gpu_model", [("global", "a100"), ("cn", "h20"), ("global", "b200")]
)
def test_price_rows_are_read_as_the_orm_reads_them(rules, market, gpu_model):
    orm = Assumption.objects.filter(market=market, gpu_model__in=["", gpu_model])
    expected = tuple(
        (name, model, float(value), source, source_zh, str(as_of))
        for name, model, value, source, source_zh, as_of in orm.values_list(*PRICE_COLUMNS)
    )
    assert any(row[1] == gpu_model for row in expected)  # model rows as well as generic ones
    assert Assumption.price_rows(gpu_model, market) == expected


def test_speed_rows_are_read_as_the_orm_reads_them(rules):
    speeds = Assumption.objects.filter(name__in=["perf_train_vs_h100", "perf_infer_vs_h100"])
    expected = tuple(speeds.values_list("gpu_model", "name", "value"))
    assert len({model for model, _name, _value in expected}) >= 8  # every GPU model offered
    assert Assumption.speed_rows() == expected
    speeds.filter(gpu_model="b200", name="perf_train_vs_h100").update(value=2.75)
    assert ("b200", "perf_train_vs_h100", 2.75) in Assumption.speed_rows()


@pytest.mark.parametrize("kind", ["edit", "view"])
@pytest.mark.parametrize("defer", [("result", "derived"), ("result",)])
def test_a_link_is_looked_up_as_the_orm_looks_it_up(rules, kind, defer):
    assessment, edit, view = make_assessment(name="Lookup")
    services.assessment_score(assessment)
    token = {"edit": edit, "view": view}[kind]
    fast = Assessment.objects.by_token(token, kind=kind, defer=defer, ruleset=False)
    orm = Assessment.objects.defer(*defer).get(pk=assessment.pk)
    assert fast is not None and fast.get_deferred_fields() == orm.get_deferred_fields()
    shown = [f.attname for f in Assessment._meta.concrete_fields if f.attname not in defer]
    assert [getattr(fast, name) for name in shown] == [getattr(orm, name) for name in shown]
    assert fast.result == Assessment.objects.get(pk=assessment.pk).result  # read when asked
    assert Assessment.objects.by_token(token + "x", kind=kind, defer=defer, ruleset=False) is None


def test_a_deploy_that_changes_only_a_stylesheet_starts_the_kept_pages_afresh(settings, tmp_path):
    """Kept pages link hashed static files: a new stylesheet means new names, so pages kept
    under the old code version must not be served."""
    for name, text in {
        "decider/views.py": "VIEW = 1\n",
        "templates/page.html": "<p>page</p>\n",
        "static/app.css": "body { color: black; }\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    settings.BASE_DIR = tmp_path
    caching.code_version.cache_clear()
    try:
        before = caching.code_version()
        (tmp_path / "static/app.css").write_text("body { color: navy; }\n")
        caching.code_version.cache_clear()
        assert caching.code_version() != before
    finally:
        caching.code_version.cache_clear()


def _kept_entries() -> int:
    return len(caches["scored"]._cache)  # local memory in the tests: its dict of entries


def test_a_query_string_the_page_does_not_read_adds_nothing_to_the_cache(client, rules):
    """Issue 49: each `?junk=i` once kept a page of its own for a day (1,000 GETs: 115 MB)."""
    _assessment, edit, view = make_assessment(answers=make_answers("growth"))
    pages = [
        reverse("decider-home"),
        reverse("decider-result", args=[edit]),
        reverse("decider-view", args=[view]),
        reverse("decider-view-report", args=[view]),
        reverse("decider-step", args=[edit, "ops"]),
    ]
    for url in pages * 2:  # twice: the home page lists the assessment once it was opened
        assert client.get(url).status_code == 200
    kept = _kept_entries()
    for n in range(40):
        for url in pages:
            response = client.get(f"{url}?junk={n}&utm_source=x{n}")
            assert response.status_code == 200
    assert _kept_entries() == kept


def test_what_a_query_does_change_is_kept_apart(client, rules):
    _assessment, _edit, view = make_assessment(answers=make_answers("growth"))
    report = reverse("decider-view-report", args=[view])
    a4 = client.get(f"{report}?paper=a4&junk=1").content.decode()
    letter = client.get(f"{report}?paper=letter").content.decode()
    assert "size: A4" in a4 and "size: letter" in letter.lower()
    assert "size: A4" in client.get(f"{report}?paper=nonsense").content.decode()
    usd = client.get(f"{report}?currency=USD").content.decode()
    cny = client.get(f"{report}?currency=CNY").content.decode()
    assert "¥" in cny and "¥" not in usd
