"""What an operator relies on: the health check, the settings' defaults, migrations that reverse."""

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse

from decider.models import token_hash
from tests.factories import migrate_to

ROOT = Path(__file__).resolve().parent.parent


# --- /healthz ---------------------------------------------------------------------


@pytest.mark.django_db
def test_the_health_check_answers_ok_when_the_database_answers(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"ok"


class _DatabaseDown:
    def cursor(self):
        raise DatabaseError("connection refused")


@pytest.mark.django_db
def test_the_health_check_answers_503_when_the_database_is_down(client, monkeypatch):
    monkeypatch.setattr("decider.views.connection", _DatabaseDown())
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.content == b"database unavailable"


@contextmanager
def queue_at(broker_url: str):
    """Jobs queued on `broker_url` instead of run inline, as the compose file has it."""
    from config.celery import app

    saved = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager, app.conf.broker_url = False, broker_url
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.broker_url = saved


@pytest.mark.django_db
def test_the_health_check_says_the_job_queue_is_away_and_keeps_the_traffic(client):
    with queue_at("redis://127.0.0.1:9/0"):  # nothing listens there
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"degraded: job queue unavailable"


@pytest.mark.django_db
def test_the_health_check_says_redis_is_away_for_the_cache_and_the_queue(client, settings):
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:9/0",
            "OPTIONS": settings.REDIS_OPTIONS,
        },
    }
    with queue_at("redis://127.0.0.1:9/0"):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response.content == b"degraded: cache and job queue unavailable"


@pytest.mark.django_db
def test_the_health_check_asks_a_real_queue(client):
    with queue_at("redis://127.0.0.1:6379/1"):  # the machine's Redis, as the worker uses it
        response = client.get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok")


@pytest.mark.django_db
def test_the_health_check_answers_whatever_the_host_header_is(client, settings):
    settings.ALLOWED_HOSTS = ["decider.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    # What a container health check or a load balancer sends: an IP, a service name.
    for host in ("10.0.3.7:8000", "app", "127.0.0.1:8000"):
        response = client.get("/healthz", HTTP_HOST=host)
        assert (response.status_code, response.content) == (200, b"ok"), host
    # Every other page still checks the Host header.
    assert client.get(reverse("decider-home"), HTTP_HOST="app").status_code == 400


# --- settings defaults ----------------------------------------------------------------


def _settings_in_a_fresh_process(**env):
    """The settings as a process started with only `env` (no DJANGO_* of this run) sees them."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    code = (
        "from django.conf import settings; "
        "print(settings.DEBUG, getattr(settings, 'SECURE_HSTS_PRELOAD', False), "
        "'security.W021' in settings.SILENCED_SYSTEM_CHECKS)"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_debug_is_off_and_hsts_preload_opt_in_when_nothing_is_set():
    result = _settings_in_a_fresh_process(DJANGO_SECRET_KEY="k" * 50)
    # check --deploy's preload warning is silenced until then (docs/OPERATIONS.md, Deployment).
    assert result.stdout.split() == ["False", "False", "True"], result.stderr


@pytest.mark.slow
def test_without_debug_a_missing_secret_key_is_refused_with_a_hint():
    result = _settings_in_a_fresh_process()
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr
    assert "DJANGO_DEBUG=true" in result.stderr


@pytest.mark.slow
def test_development_asks_for_debug_and_needs_no_secret_key():
    result = _settings_in_a_fresh_process(DJANGO_DEBUG="true")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == "True"


@pytest.mark.slow
def test_hsts_preload_is_on_only_when_asked_for():
    result = _settings_in_a_fresh_process(
        DJANGO_SECRET_KEY="k" * 50, DJANGO_SECURE_HSTS_PRELOAD="true"
    )
    assert result.stdout.split() == ["False", "True", "False"], result.stderr


def test_make_run_asks_for_debug():
    makefile = (ROOT / "Makefile").read_text()
    assert "export DJANGO_DEBUG ?= true" in makefile


# --- migrations -----------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_every_migration_reverses_over_the_shipped_figures_and_their_history():
    """`migrate decider 0001` on a database as `make run` leaves it, and back up again."""
    from decider.models import Assumption as Figures

    call_command("load_defaults", verbosity=0)
    shipped = Figures.objects.count()
    shipped_global = Figures.objects.filter(market="global").count()
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("decider")[0][1]
    try:
        apps = migrate_to(executor, "0008_view_seal_nonce")
        # The units that moved into the code come back into their columns.
        Assumption = apps.get_model("decider", "Assumption")
        units = dict(Assumption.objects.values_list("name", "unit"))
        assert units["server_price"] == "USD per node" and "" not in units.values(), [
            k for k, v in units.items() if not v
        ]
        migrate_to(executor, "0001_initial")
    finally:
        migrate_to(executor, latest)
    # The global price set survives the way back; the others had no place there and come
    # back with load_defaults, as on a deployment.
    assert Figures.objects.filter(market="global").count() == shipped_global > 0
    call_command("load_defaults", verbosity=0)
    assert Figures.objects.count() == shipped


@pytest.mark.django_db(transaction=True)
def test_migration_0002_reverses_after_a_view_link_was_revoked():
    """`migrate decider 0001` once a link is revoked: 0001 requires a view hash."""
    call_command("flush", "--noinput", verbosity=0)
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("decider")[0][1]
    try:
        apps = migrate_to(executor, "0002_assessment_links_and_pdfs")
        Assessment = apps.get_model("decider", "Assessment")
        revoked = Assessment.objects.create(edit_hash=token_hash("edit"), view_hash=None)
        kept = Assessment.objects.create(edit_hash=token_hash("e2"), view_hash=token_hash("v2"))

        apps = migrate_to(executor, "0001_initial")
        Assessment = apps.get_model("decider", "Assessment")
        rows = dict(Assessment.objects.values_list("pk", "view_hash"))
        # A hash of a token nobody has: the link stays revoked under the old schema.
        assert len(rows[revoked.pk]) == 64 and rows[revoked.pk] != token_hash("edit")
        assert rows[kept.pk] == token_hash("v2")
    finally:
        migrate_to(executor, latest)


# --- backup and restore ---------------------------------------------------------------


def test_the_manual_backup_leaves_out_the_pdf_cache_by_its_real_table_name():
    from decider.models import ReportPdf

    manual = (ROOT / "docs" / "OPERATIONS.md").read_text()
    section = manual[manual.index("## Backup and restore") :].split("\n## ", 1)[0]
    table = ReportPdf._meta.db_table
    assert f"--exclude-table-data={table}" in section
    assert f"DELETE FROM {table};" in section
    assert "pg_restore" in section and "db.sqlite3" in section
