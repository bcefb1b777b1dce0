"""The production shape of docker-compose.yml, checked without a Docker engine.

The tests read the app service's environment and command from the compose
file itself, so they exercise exactly what `docker compose up` would run.
"""

import json
import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.factories import make_answers

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SECRETS = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "POSTGRES_PASSWORD": "pw"}


def expand(value: str) -> str:
    """Compose-style ${VAR}, ${VAR:-default} and ${VAR:?error} with test secrets."""

    def repl(match):
        name, op, arg = match.group(1), match.group(2), match.group(3)
        if name in SECRETS:
            return SECRETS[name]
        return arg if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(?:(:[-?])([^}]*))?\}", repl, str(value))


def compose_env(**changes) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env |= {k: expand(v) for k, v in COMPOSE["services"]["app"]["environment"].items()}
    env |= changes
    return env


def manage(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_the_database_waits_for_a_healthy_postgres():
    assert COMPOSE["services"]["db"]["image"].startswith("postgres")
    assert "healthcheck" in COMPOSE["services"]["db"]
    assert COMPOSE["services"]["app"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert COMPOSE["services"]["app"]["environment"]["DATABASE_URL"].startswith("postgres://")


def test_production_refuses_to_start_without_a_secret_key():
    env = compose_env()
    del env["DJANGO_SECRET_KEY"]
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def test_check_deploy_is_clean_with_the_compose_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=compose_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_the_compose_command_serves_pages_and_static_files_under_gunicorn(tmp_path):
    """Run the compose command (migrate, load_defaults, gunicorn) on a throwaway SQLite."""
    static_root = tmp_path / "static"
    env = compose_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", DJANGO_STATIC_ROOT=str(static_root)
    )
    assert manage("collectstatic", "--noinput", "-v0", env=env).returncode == 0
    port = free_port()
    command = COMPOSE["services"]["app"]["command"]
    command = command.replace("0.0.0.0:8000", f"127.0.0.1:{port}").replace(
        "python ", f"{sys.executable} "
    )
    command = command.replace(
        "exec gunicorn", f"exec {shlex.quote(str(Path(sys.executable).parent / 'gunicorn'))}"
    )
    args = shlex.split(command)
    assert args[:2] == ["sh", "-c"]
    server = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        assert urllib.request.urlopen(f"{base}/healthz").read() == b"ok"
        # Behind the TLS proxy: pages and hashed static files over "https".
        https = {"X-Forwarded-Proto": "https", "Host": "localhost"}
        page = urllib.request.urlopen(urllib.request.Request(f"{base}/", headers=https))
        html = page.read().decode()
        assert page.status == 200
        assert "Strict-Transport-Security" in page.headers
        css = re.search(r'href="(/static/decider/app\.[0-9a-f]+\.css)"', html).group(1)
        asset = urllib.request.urlopen(urllib.request.Request(base + css, headers=https))
        assert asset.status == 200
        assert "max-age" in asset.headers["Cache-Control"]
        # The PDF in the production shape: hashed static files, a gunicorn worker.
        created = urllib.request.urlopen(
            urllib.request.Request(
                f"{base}/api/assessments",
                data=json.dumps(make_answers("growth")).encode(),
                headers={**https, "Content-Type": "application/json"},
            )
        )
        view_path = urllib.parse.urlsplit(json.load(created)["view_url"]).path
        report = urllib.request.urlopen(
            urllib.request.Request(f"{base}{view_path}report.pdf", headers=https), timeout=60
        )
        assert report.headers["Content-Type"] == "application/pdf"
        assert report.read().startswith(b"%PDF-")
    finally:
        server.terminate()
        logged = server.communicate(timeout=10)[0].decode()
    # The access log names the request, never the link's token.
    token = view_path.split("/")[2]
    assert "GET /v/<token>/report.pdf" in logged
    assert token not in logged
