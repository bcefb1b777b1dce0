"""Prices imported from public sources, checked before anyone sees them (issue 53): recorded
files in each source's own format (fixtures/prices/, real rows with their capture date) are
replayed through `manage.py refresh_prices --from-file`, exactly as the scheduler reads them
over HTTPS."""

from __future__ import annotations

import csv
import json
import re
from datetime import timedelta
from io import StringIO
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import resolve, reverse

from decider import price_import, price_sources
from decider.models import (
    Assessment,
    FigureChange,
    PriceImport,
    PriceObservation,
    Provider,
    ProviderPrice,
    TokenPrice,
)
from decider.services import evaluate_now
from tests.factories import make_answers

pytestmark = pytest.mark.django_db

PRICES = Path(__file__).resolve().parent.parent / "fixtures" / "prices"
AZURE = PRICES / "azure-retail-2026-08-03.json"
AZURE_EARLIER = PRICES / "azure-retail-2026-07-27.json"
LAMBDA = next(PRICES.glob("skypilot-lambda-*.csv"))


def refresh(*args: str) -> dict:
    out = StringIO()
    call_command("refresh_prices", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def azure_items(path: Path = AZURE) -> list[dict]:
    return json.loads(path.read_text())["Items"]


def live(provider: str, name: str, gpu_model: str) -> ProviderPrice | None:
    return ProviderPrice.objects.filter(
        provider__key=provider, name=name, gpu_model=gpu_model
    ).first()


def created(client, **providers) -> dict:
    """An assessment made through the API, as a person's client makes it."""
    return client.post(
        "/api/assessments",
        json.dumps(make_answers("growth", providers=providers)),
        content_type="application/json",
    ).json()


def azure_cloud_price(name: str = "gpu_hour_on_demand") -> float:
    answers = make_answers("growth", providers={"allow": ["azure"]})
    return evaluate_now(answers)[1].costs["assumptions"][name]["value"]


# Reading each source's own format ---------------------------------------------------------


def test_azure_rows_are_priced_per_gpu_hour_and_its_pitfalls_refused(rules):
    report = refresh("--source", "azure", "--from-file", str(AZURE))
    items = azure_items()
    by_tier = {(a["tier"], a["region"]): a for a in report["accepted"]}
    # On demand: $98.32 an hour for the ND96isr H100 v5's eight GPUs.
    assert by_tier[("on_demand", "eastus")]["price_per_gpu_hour"] == pytest.approx(98.32 / 8)
    # A reservation's price is for its whole term: 8,760 hours a year, eight GPUs.
    reserved = next(i for i in items if i["type"] == "Reservation")
    assert by_tier[("reserved_1y", "eastus")]["price_per_gpu_hour"] == pytest.approx(
        reserved["retailPrice"] / 8760 / 8
    )
    spot = next(
        i for i in items if i["meterName"].endswith(" Spot") and "Windows" not in i["productName"]
    )
    assert by_tier[("spot", "eastus")]["price_per_gpu_hour"] == pytest.approx(
        spot["retailPrice"] / 8
    )
    assert {a["gpu_model"] for a in report["accepted"]} == {"h100"}
    assert {a["currency"] for a in report["accepted"]} == {"USD"}
    reasons = [r["reason"] for r in report["refused"]]
    windows = [i for i in items if i["productName"].endswith(" Windows")]
    assert sum(r.startswith("Windows") for r in reasons) == len(windows) >= 2
    assert any(r.startswith("Low Priority") for r in reasons)
    # Every refused row is named by its place in what was read, with the row itself.
    assert all(r["row"]["line"] >= 1 and r["row"].get("meterName") for r in report["refused"])
    assert report["read"] == len(items)


def test_skypilot_rows_divide_by_their_gpus_and_a_host_only_row_is_refused(rules):
    report = refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    rows = list(csv.DictReader(LAMBDA.open()))
    h100 = next(r for r in rows if r["InstanceType"] == "gpu_8x_h100_sxm5")
    accepted = [a for a in report["accepted"] if a["sku"] == "gpu_8x_h100_sxm5"]
    assert len(accepted) == 17  # one per region, each the row's price over its GPUs
    for found in accepted:
        assert found["price_per_gpu_hour"] == pytest.approx(
            float(h100["Price"]) / float(h100["AcceleratorCount"])
        )
    assert {a["provider"] for a in report["accepted"]} == {"lambda"}
    hosts = [r for r in rows if not r["AcceleratorName"]]
    host_refusals = [r for r in report["refused"] if r["reason"].startswith("host only")]
    assert len(host_refusals) == len(hosts) > 0
    # The PCIe H100 and the 40 GB A100 are not the parts Decider prices: neither is taken.
    assert not any("pcie" in a["sku"] for a in report["accepted"])
    a100 = {a["sku"] for a in report["accepted"] if a["gpu_model"] == "a100"}
    assert a100 and all("80gb" in sku for sku in a100)


def test_a_duplicate_row_and_a_zero_price_are_refused_with_reasons(rules, tmp_path):
    text = LAMBDA.read_text()
    lines = text.splitlines()
    h100 = next(n for n, line in enumerate(lines) if line.startswith("gpu_8x_h100_sxm5,"))
    # The same real row twice (a source that repeats itself), and a row published at zero.
    zero = lines[h100].replace(",23.92,", ",0.0,", 1).replace("europe-central-1", "us-test-9")
    recorded = tmp_path / "skypilot-lambda-2026-11-30.csv"
    recorded.write_text("\n".join([*lines, lines[h100], zero]) + "\n")
    report = refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(recorded))
    reasons = {r["row"]["line"]: r["reason"] for r in report["refused"]}
    assert reasons[len(lines) + 1] == f"duplicate of line {h100 + 1} (same SKU, region, tier)"
    assert reasons[len(lines) + 2].startswith("zero price")


def test_a_file_not_in_the_source_s_format_is_refused_with_exit_2(rules, tmp_path):
    wrong = tmp_path / "prices.csv"
    wrong.write_text("name,price\nx,1\n")
    with pytest.raises(CommandError, match="no column InstanceType") as raised:
        call_command(
            "refresh_prices", "--source", "skypilot", "--provider", "aws", "--from-file", str(wrong)
        )
    assert raised.value.returncode == 2
    with pytest.raises(CommandError, match="name it with --provider") as raised:
        call_command("refresh_prices", "--source", "skypilot", "--from-file", str(LAMBDA))
    assert raised.value.returncode == 2


# The ladder --------------------------------------------------------------------------------


def _dated_earlier(provider: str = "azure", day: str = "2026-01-05") -> None:
    ProviderPrice.objects.filter(provider__key=provider).update(as_of=day)


def test_a_price_within_one_percent_confirms_the_live_one(rules):
    _dated_earlier()
    before = live("azure", "gpu_hour_on_demand", "h100")
    assert before is not None and before.value == pytest.approx(98.32 / 8, rel=0.01)
    report = refresh("--source", "azure", "--from-file", str(AZURE))
    assert {
        "provider": "azure",
        "gpu_model": "h100",
        "tier": "on_demand",
        "current": before.value,
    } in report["unchanged"]
    after = live("azure", "gpu_hour_on_demand", "h100")
    assert after.value == before.value
    assert str(after.as_of) == "2026-08-03" and after.source.startswith(
        "Imported: Azure Retail Prices API"
    )


def test_a_new_price_waits_in_the_draft_until_a_publisher_publishes_it(rules, django_user_model):
    assert live("azure", "gpu_hour_reserved_1y", "h100") is None
    priced_before = azure_cloud_price("gpu_hour_reserved_1y")
    report = refresh("--source", "azure", "--from-file", str(AZURE))
    proposed = {(p["gpu_model"], p["tier"]): p for p in report["proposed"]}
    assert proposed[("h100", "reserved_1y")]["current"] is None
    assert live("azure", "gpu_hour_reserved_1y", "h100") is None  # a draft, not live
    assert azure_cloud_price("gpu_hour_reserved_1y") == priced_before
    run = PriceImport.objects.get(pk=PriceImport.objects.latest("started_at").pk)
    publisher = django_user_model.objects.create_user("paul", is_staff=True)
    publisher.groups.add(Group.objects.get(name="publishers"))
    done, refused = price_import.publish_draft(run, user=publisher)
    assert done == len(report["proposed"]) and not refused
    new = live("azure", "gpu_hour_reserved_1y", "h100")
    assert new.value == pytest.approx(551221.0 / 8760 / 8, abs=1e-4)
    assert azure_cloud_price("gpu_hour_reserved_1y") == pytest.approx(new.value)


def test_a_fifty_percent_move_waits_for_approval_and_results_keep_the_old_price(
    rules, django_user_model, client
):
    row = live("azure", "gpu_hour_on_demand", "h100")
    old = round(98.32 / 8 / 1.5, 4)
    ProviderPrice.objects.filter(pk=row.pk).update(value=old)
    saved = created(client, allow=["azure"])
    report = refresh("--source", "azure", "--from-file", str(AZURE))
    waiting = report["awaiting_approval"]
    assert [(w["gpu_model"], w["tier"], w["current"]) for w in waiting] == [
        ("h100", "on_demand", old)
    ]
    assert waiting[0]["change_pct"] == pytest.approx(50.0, abs=0.1)
    assert azure_cloud_price() == old  # the pages keep the old price
    publisher = django_user_model.objects.create_user("paul", is_staff=True)
    publisher.groups.add(Group.objects.get(name="publishers"))
    run = PriceImport.objects.latest("started_at")
    price_import.publish_draft(run, user=publisher)  # the draft never carries a large move
    assert azure_cloud_price() == old
    large = FigureChange.objects.get(price_import=run, large_move=True)
    client.force_login(publisher)
    client.post(
        reverse("admin:decider_figurechange_changelist"),
        {"action": "publish_changes", "_selected_action": [large.pk]},
    )
    assert azure_cloud_price() == pytest.approx(98.32 / 8)
    # The assessment saved before keeps the price it was scored with.
    assert saved["edit_url"]
    kept = Assessment.objects.latest("pk")
    assert kept.result["assumptions"]["gpu_hour_on_demand"]["value"] == old


def test_importing_the_same_file_twice_changes_nothing(rules):
    refresh("--source", "azure", "--from-file", str(AZURE))
    refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    state = _state()
    again = refresh("--source", "azure", "--from-file", str(AZURE))
    refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    assert _state() == state
    assert again["accepted"]  # it read the rows: they were kept the first time


def _state():
    return (
        list(PriceObservation.objects.order_by("pk").values_list("pk", "price_per_gpu_hour")),
        list(FigureChange.objects.order_by("pk").values_list("pk", "state", "values")),
        list(ProviderPrice.objects.order_by("pk").values_list("pk", "value", "as_of", "source")),
    )


def test_an_older_file_read_after_a_newer_one_does_not_re_date_the_price(rules):
    _dated_earlier()
    refresh("--source", "azure", "--from-file", str(AZURE))
    refresh("--source", "azure", "--from-file", str(AZURE_EARLIER))
    assert str(live("azure", "gpu_hour_on_demand", "h100").as_of) == "2026-08-03"


def test_two_sources_more_than_twenty_percent_apart_are_flagged_on_both(rules, tmp_path):
    # Lambda's own file against a second reading of the same prices a third dearer (another
    # source's format is not at hand for Lambda: the flag compares sources, not formats).
    first = refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    assert first["flags"] == []
    PriceObservation.objects.filter(source="skypilot").update(source="gpuhunt")
    second = refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    assert second["flags"] == []  # the same prices: nothing to flag
    PriceObservation.objects.filter(source="gpuhunt", gpu_model="h100").update(
        price_per_gpu_hour=2.0
    )
    third = refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    flag = next(f for f in third["flags"] if f["gpu_model"] == "h100" and f["tier"] == "on_demand")
    assert flag["prices"] == {"skypilot": pytest.approx(2.99), "gpuhunt": 2.0}
    assert flag["gap_pct"] == pytest.approx(49.5)
    other = PriceObservation.objects.filter(source="gpuhunt").first().price_import
    assert flag in other.report["flags"]


# No network ------------------------------------------------------------------------------


def test_with_no_network_the_command_fails_clearly_and_changes_nothing(
    rules, monkeypatch, client, admin_user
):
    # Port 9 (discard) on this machine refuses: a real failed connection, not a stub.
    monkeypatch.setattr(price_sources, "SKYPILOT_URL", "http://127.0.0.1:9/{provider}/vms.csv")
    before = _state()
    with pytest.raises(
        CommandError,
        match=r"Could not read skypilot:lambda: could not read http://127\.0\.0\.1:9/lambda/vms\.csv.*Nothing was changed",
    ) as raised:
        call_command("refresh_prices", "--source", "skypilot", "--provider", "lambda")
    assert raised.value.returncode == 1
    assert _state() == before
    failed = PriceImport.objects.get()
    assert failed.state == PriceImport.FAILED and "127.0.0.1:9" in failed.error
    client.force_login(admin_user)
    page = client.get(reverse("admin:decider_providerprice_changelist"))
    assert "The last import from skypilot lambda failed" in page.content.decode()
    assert "its prices are the last approved ones" in page.content.decode()


# The admin ---------------------------------------------------------------------------------


@pytest.fixture
def staff(django_user_model, rules):
    def make(name: str, group: str):
        user = django_user_model.objects.create_user(name, password="pw-Decider-1", is_staff=True)
        user.groups.add(Group.objects.get(name=group))
        return user

    return {"erin": make("erin", "editors"), "paul": make("paul", "publishers")}


def test_the_admin_shows_the_draft_s_diff_and_flags(client, staff):
    ProviderPrice.objects.filter(
        provider__key="azure", name="gpu_hour_on_demand", gpu_model="h100"
    ).update(value=8.0)
    refresh("--source", "azure", "--from-file", str(AZURE))
    run = PriceImport.objects.latest("started_at")
    run.report["flags"] = [
        {
            "provider": "azure",
            "gpu_model": "h100",
            "tier": "spot",
            "prices": {"azure": 2.27, "gpuhunt": 3.1},
            "gap_pct": 36.6,
        }
    ]
    run.save()
    client.force_login(staff["erin"])
    page = client.get(reverse("admin:decider_priceimport_change", args=[run.pk])).content.decode()
    assert "azure h100 on demand: 8 → 12.29 per GPU-hour" in page
    assert "large move: approve it on its own" in page
    assert "azure h100 reserved 1y: new → 7.8656 per GPU-hour" in page
    assert "azure h100 spot: azure 2.27, gpuhunt 3.1 (36.6 %)" in page
    assert "Windows: the price includes a Windows licence" in page


def test_staff_without_the_publish_right_cannot_make_a_draft_current(client, staff):
    refresh("--source", "azure", "--from-file", str(AZURE))
    run = PriceImport.objects.latest("started_at")
    url = reverse("admin:decider_priceimport_changelist")
    client.force_login(staff["erin"])
    assert "publish_drafts" not in client.get(url).content.decode()
    client.post(url, {"action": "publish_drafts", "_selected_action": [run.pk]})
    assert run.changes.filter(state=FigureChange.WAITING).count() == len(run.report["proposed"]) > 0
    assert live("azure", "gpu_hour_reserved_1y", "h100") is None
    done, refusals = price_import.publish_draft(run, user=staff["erin"])
    assert (
        done == 0
        and "right to publish" in refusals[0]
        and live("azure", "gpu_hour_reserved_1y", "h100") is None
    )
    client.force_login(staff["paul"])
    assert "publish_drafts" in client.get(url).content.decode()
    client.post(url, {"action": "publish_drafts", "_selected_action": [run.pk]})
    assert live("azure", "gpu_hour_reserved_1y", "h100") is not None
    assert not run.changes.filter(state=FigureChange.WAITING).exists()


def test_providers_are_shipped_for_every_key_the_sources_name(rules):
    keys = set(Provider.keys())
    assert {"azure", "lambda", "aws", "gcp"} <= keys


# Freshness ---------------------------------------------------------------------------------


def test_the_figures_table_says_which_prices_were_imported_and_which_are_stale(client, staff):
    refresh("--source", "azure", "--from-file", str(AZURE))
    price_import.publish_draft(PriceImport.objects.latest("started_at"), user=staff["paul"])
    made = created(client, allow=["azure"])
    match = resolve(urlparse(made["edit_url"]).path)
    edit = match.args[0] if match.args else next(iter(match.kwargs.values()))
    for path in ("decider-result", "decider-edit-report"):
        page = client.get(reverse(path, args=[edit])).content.decode()
        rows = {
            name: row
            for row in page.split("<tr")
            if (
                name := next(
                    (
                        n
                        for n in ("gpu_hour_reserved_1y", "gpu_hour_on_demand", "server_price")
                        if f">{n}<" in row
                    ),
                    None,
                )
            )
        }
        # Read on 2026-08-03 from Azure's price list, published by paul: imported, and more
        # than 30 days old today, so stale.
        assert (
            "August 2026" in rows["gpu_hour_reserved_1y"]
            and "imported" in rows["gpu_hour_reserved_1y"]
        )
        assert "Imported: Azure Retail Prices API" in rows["gpu_hour_reserved_1y"]
        assert "stale: imported over 30 days ago" in rows["gpu_hour_reserved_1y"]
        # Typed in by an admin from a dated source.
        assert "entered by hand" in rows["server_price"]
        assert ">derived<" not in rows["server_price"]
        assert "imported" not in rows["server_price"]
        # The sentence naming the provider dates its price as the table does: Azure's H100 on
        # demand was typed from a November copy, newer than the file (so not re-dated).
        assert "entered by hand" in rows["gpu_hour_on_demand"]
        assert "Its on-demand price as of November 2026, entered by hand from its source." in page


def test_an_imported_price_is_fresh_for_thirty_days(client, staff, settings):
    from decider import report

    today = report.timezone.localdate()
    assert report._stale((today - timedelta(days=31)).isoformat(), imported=True)
    assert not report._stale((today - timedelta(days=29)).isoformat(), imported=True)
    assert not report._stale((today - timedelta(days=300)).isoformat(), imported=False)
    assert report._stale((today - timedelta(days=400)).isoformat(), imported=False)


# No recorded gpuhunt catalog was reachable (they are published to object storage): the
# header is gpuhunt's own (src/gpuhunt/_internal/storage.py at 35841515), the prices are AWS's
# p5en.48xlarge in us-east-1 as `dstack offer` printed them through gpuhunt (dstack pull
# request 4110, 2026-08-06); the other columns are left empty. The last row stands for GCP's
# calendar-mode bookings, which gpuhunt flags "gcp-dws-calendar-mode".
GPUHUNT_AWS = "\n".join(
    [
        "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,"
        "disk_size,gpu_vendor,flags,cpu_arch,provider_data",
        "p5en.48xlarge,us-east-1,63.296,,,8,H200,141,False,,nvidia,,,",
        "p5en.48xlarge,us-east-1,27.1992,,,8,H200,141,True,,nvidia,,,",
        "r5.large,us-east-1,0.126,,,0,,,False,,,,,",
        "a3-highgpu-8g,us-central1,30.0,,,8,H100,80,False,,nvidia,gcp-dws-calendar-mode,,",
    ]
)


def test_gpuhunt_rows_divide_by_their_gpus_and_spot_is_its_own_tier():
    parsed = price_sources.gpuhunt(GPUHUNT_AWS, "aws")
    assert [(r.tier, r.gpu_model, r.price_per_gpu_hour) for r in parsed.rows] == [
        ("on_demand", "h200", pytest.approx(7.912)),
        ("spot", "h200", pytest.approx(3.3999)),
    ]
    assert [r["reason"][:9] for r in parsed.refused] == ["host only", "Dynamic W"]


def test_gpuhunt_s_current_catalog_is_found_by_its_version_over_http(rules, tmp_path, monkeypatch):
    """Without --from-file: the provider's version, then its catalog zip, as dstack
    publishes them (served here by a real HTTP server on this machine)."""
    import threading
    import zipfile
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    published = tmp_path / "aws" / "20261207-3"
    published.mkdir(parents=True)
    (tmp_path / "aws" / "version").write_text("20261207-3\n")
    with zipfile.ZipFile(published / "catalog.zip", "w") as archive:
        archive.writestr("aws.csv", GPUHUNT_AWS)
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setattr(price_sources, "GPUHUNT_BASE", base)
    monkeypatch.setattr(price_sources, "GPUHUNT_URL", base + "/{provider}/version")
    try:
        report = refresh("--source", "gpuhunt", "--provider", "aws")
    finally:
        server.shutdown()
    assert sorted((a["tier"], round(a["price_per_gpu_hour"], 4)) for a in report["accepted"]) == [
        ("on_demand", 7.912),
        ("spot", 3.3999),
    ]
    # AWS's H200 prices were typed from the same reading: confirmed, nothing proposed.
    assert {(u["gpu_model"], u["tier"]) for u in report["unchanged"]} == {
        ("h200", "on_demand"),
        ("h200", "spot"),
    }
    assert report["proposed"] == report["awaiting_approval"] == []


# Per-token prices: LiteLLM's table ------------------------------------------------------

LITELLM = PRICES / "litellm-1.110.2-2026-09-29.json"


def test_litellm_prices_per_million_tokens_confirm_the_shipped_ones(rules):
    report = refresh("--source", "litellm", "--from-file", str(LITELLM))
    table = json.loads(LITELLM.read_text())
    shipped = {(t.provider, t.model): t for t in TokenPrice.objects.all()}
    assert len(report["accepted"]) == sum("key '" in t.source for t in shipped.values()) > 40
    for found in report["accepted"]:
        row = shipped[(found["provider"], found["model"])]
        entry = table[re.search(r"key '([^']+)'", row.source).group(1)]
        assert found["price_in_per_m"] == pytest.approx(entry["input_cost_per_token"] * 1e6)
        assert found["price_out_per_m"] == pytest.approx(entry["output_cost_per_token"] * 1e6)
    # The shipped prices were read from this very file: every one is confirmed.
    assert len(report["unchanged"]) == len(report["accepted"])
    assert report["proposed"] == report["awaiting_approval"] == []
    zero = [r for r in report["refused"] if r["reason"].startswith("zero price")]
    assert len(zero) == 2 and all(table[r["row"]["key"]]["input_cost_per_token"] == 0 for r in zero)


def test_a_token_price_that_moved_half_waits_for_its_own_approval(rules, staff, client):
    row = TokenPrice.objects.filter(source__contains="key 'deepinfra/").order_by("pk").first()
    was_in, was_out = row.price_in_per_m, row.price_out_per_m
    TokenPrice.objects.filter(pk=row.pk).update(
        price_in_per_m=round(was_in / 1.5, 6), price_out_per_m=round(was_out / 1.5, 6)
    )
    report = refresh("--source", "litellm", "--from-file", str(LITELLM))
    waiting = report["awaiting_approval"]
    assert [(w["provider"], w["model"]) for w in waiting] == [(row.provider, row.model)]
    assert waiting[0]["change_pct"] == pytest.approx(50.0, abs=0.5)
    run = PriceImport.objects.latest("started_at")
    price_import.publish_draft(run, user=staff["paul"])
    assert TokenPrice.objects.get(pk=row.pk).price_in_per_m == round(was_in / 1.5, 6)
    large = FigureChange.objects.get(price_import=run, large_move=True)
    client.force_login(staff["paul"])
    client.post(
        reverse("admin:decider_figurechange_changelist"),
        {"action": "publish_changes", "_selected_action": [large.pk]},
    )
    now = TokenPrice.objects.get(pk=row.pk)
    assert (now.price_in_per_m, now.price_out_per_m) == (
        pytest.approx(was_in),
        pytest.approx(was_out),
    )
    assert now.source.startswith("Imported: LiteLLM model price table")
    # Its source still names the key, so the next import reads it again.
    again = refresh("--source", "litellm", "--from-file", str(LITELLM))
    assert (row.provider, row.model) in {(u["provider"], u["model"]) for u in again["unchanged"]}


def test_a_published_import_prices_the_next_result_and_says_it_was_imported(client, staff):
    report = refresh("--source", "skypilot", "--provider", "lambda", "--from-file", str(LAMBDA))
    moved = {(p["gpu_model"], p["tier"]): p for p in report["proposed"]}
    assert moved[("h100", "on_demand")]["proposed"] == pytest.approx(23.92 / 8)
    price_import.publish_draft(PriceImport.objects.latest("started_at"), user=staff["paul"])
    made = created(client, allow=["lambda"])
    assert made["result"]["costs"]["provider"]["key"] == "lambda"
    assert made["result"]["costs"]["assumptions"]["gpu_hour_on_demand"]["value"] == 2.99
    page = client.get(urlparse(made["edit_url"]).path).content.decode()
    assert "Its on-demand price as of December 2026, imported from a public price source." in page
    # Lambda publishes no spot price: derived from the imported one, and said so.
    spot = next(row for row in page.split("<tr") if ">gpu_hour_spot<" in row)
    assert ">derived<" in spot and "entered by hand" not in spot


# The schedule ------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_daily_import_is_scheduled_only_when_its_sources_are_named():
    from tests.test_deploy import ROOT, compose_env

    code = "from django.conf import settings; print(sorted(settings.CELERY_BEAT_SCHEDULE))"

    def schedule(**env: str) -> str:
        import subprocess
        import sys

        shell = compose_env({"DJANGO_SECRET_KEY": "x" * 50, "POSTGRES_PASSWORD": "pw"}, **env)
        done = subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=ROOT,
            env=shell,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip().splitlines()[-1]

    assert "refresh-prices" not in schedule()  # compose's default: off
    assert "refresh-prices" in schedule(DECIDER_PRICE_REFRESH="azure,skypilot:lambda")


def test_the_scheduled_import_logs_a_source_it_cannot_read_and_reads_the_rest(
    rules, settings, monkeypatch, caplog
):
    from decider import tasks

    monkeypatch.setattr(price_sources, "SKYPILOT_URL", "http://127.0.0.1:9/{provider}/vms.csv")
    monkeypatch.setattr(price_sources, "AZURE_URL", "http://127.0.0.1:9/azure")
    settings.DECIDER_PRICE_REFRESH = ["skypilot:lambda", "azure"]
    tasks.refresh_prices()
    runs = PriceImport.objects.order_by("pk")
    assert [(r.source, r.provider, r.state) for r in runs] == [
        ("skypilot", "lambda", "failed"),
        ("azure", "", "failed"),
    ]
    assert "price import skypilot:lambda" in caplog.text
