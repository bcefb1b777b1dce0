"""The production shape of docker-compose.yml, checked without a Docker engine.

The tests read the services' environment and commands from the compose file
itself, so they exercise exactly what `docker compose up` would run.
"""

import http.client
import json
import logging
import os
import re
import secrets
import shlex
import shutil
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
SERVICES = COMPOSE["services"]
APP, MIGRATE, PROXY = SERVICES["app"], SERVICES["migrate"], SERVICES["proxy"]
WORKER, SCHEDULER = SERVICES["worker"], SERVICES["scheduler"]
SECRETS = {"DJANGO_SECRET_KEY": secrets.token_urlsafe(50), "POSTGRES_PASSWORD": "pw"}


def expand(value: str, variables: dict | None = None) -> str:
    """Compose-style ${VAR}, ${VAR:-default} and ${VAR:?error} with test secrets."""
    known = SECRETS | (variables or {})

    def repl(match):
        name, op, arg = match.group(1), match.group(2), match.group(3)
        if known.get(name) or (name in known and op != ":-"):
            return known[name]
        return arg if op == ":-" else ""  # ":-" stands in for an empty value too

    return re.sub(r"\$\{(\w+)(?:(:[-?])([^}]*))?\}", repl, str(value))


def compose_env(variables: dict | None = None, **changes) -> dict:
    """The app's environment as compose gives it, `variables` standing for the operator's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env |= {k: expand(v, variables) for k, v in APP["environment"].items()}
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


@pytest.mark.slow
def test_production_refuses_to_start_without_a_secret_key():
    env = compose_env()
    del env["DJANGO_SECRET_KEY"]
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


def settings_value(name: str, env: dict):
    """One setting as the process started with `env` sees it."""
    code = f"import json; from django.conf import settings; print(json.dumps(settings.{name}))"
    result = manage("shell", "-c", code, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])  # after shell's own chatter


def caddy_expand(text: str, env: dict) -> str:
    """Caddyfile {$VAR:default} placeholders, with the proxy service's environment."""
    return re.sub(r"\{\$(\w+)(?::([^}]*))?\}", lambda m: env.get(m[1]) or m[2] or "", text)


def caddyfile(variables: dict | None = None) -> list[str]:
    mounts = dict(v.split(":")[:2] for v in PROXY["volumes"] if v.startswith("./"))
    source = next(src for src, dest in mounts.items() if dest == "/etc/caddy/Caddyfile")
    env = {k: expand(v, variables) for k, v in PROXY["environment"].items()}
    text = caddy_expand((ROOT / source).read_text(), env)
    return [line.strip() for line in text.splitlines() if line.strip() and line[0] != "#"]


def gunicorn_option(command: list[str], name: str) -> str:
    return next(arg.split("=", 1)[1] for arg in command if arg.startswith(f"--{name}="))


@pytest.mark.slow
def test_the_proxy_compresses_no_page_that_can_carry_a_link_token():
    """BREACH: a compressed body that holds a secret beside text the client chose leaks
    the secret through its length. Link pages, the home page (recent links), "my
    assessments" and compare (?a=<token>) stay uncompressed; static files are compressed by
    whitenoise."""
    lines = caddyfile()
    encodes = [line for line in lines if line.startswith("encode")]
    assert encodes == ["encode @tokenless zstd gzip"]
    (matcher,) = [line.split()[2:] for line in lines if line.startswith("@tokenless path")]
    assert matcher, "the matcher names paths"
    for path in matcher:
        assert not path.startswith(("/a/", "/v/", "/compare", "/mine")) and path != "/"
    storage = settings_value("STORAGES", compose_env())["staticfiles"]["BACKEND"]
    assert storage == "whitenoise.storage.CompressedManifestStaticFilesStorage"


@pytest.mark.slow
def test_check_deploy_is_clean_with_the_compose_settings():
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=compose_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
def test_no_check_is_silenced_that_the_operations_manual_does_not_justify():
    manual = (ROOT / "docs" / "OPERATIONS.md").read_text()
    deployment = manual[manual.index("## Deployment") :].split("\n## ", 1)[0]
    for check in settings_value("SILENCED_SYSTEM_CHECKS", compose_env()):
        assert f"`{check}`" in deployment, (
            f"{check} is silenced without a word in docs/OPERATIONS.md"
        )


def test_only_the_tls_proxy_is_published():
    published = {name for name, service in SERVICES.items() if service.get("ports")}
    assert published == {"proxy"}
    assert PROXY["image"].startswith("caddy:2")
    assert {"80:80", "443:443"} <= set(PROXY["ports"])
    # The app is reachable on the compose network only, and only the proxy talks to it.
    assert "ports" not in APP
    assert gunicorn_option(APP["command"], "bind") == "0.0.0.0:8000"
    assert APP["expose"] == ["8000"]


def test_the_proxy_serves_the_site_the_app_allows_and_forwards_to_the_app():
    lines = caddyfile()
    assert "localhost {" in lines
    assert "tls internal" in lines  # Caddy's own CA: a certificate for localhost out of the box
    assert "reverse_proxy app:8000" in lines
    env = compose_env()
    assert env["DJANGO_ALLOWED_HOSTS"] == "localhost"
    assert env["DJANGO_CSRF_TRUSTED_ORIGINS"] == "https://localhost"


def test_the_proxys_error_log_drops_the_url_and_referer_a_token_could_be_in():
    lines = caddyfile()
    assert {"request>uri delete", "request>headers>Referer delete"} <= set(lines)
    assert not any(line.startswith("log") and line != "log default {" for line in lines)


def test_one_variable_names_a_real_domain_everywhere():
    domain = {"DECIDER_DOMAIN": "decider.example.com", "DECIDER_TLS": "ops@example.com"}
    lines = caddyfile(domain)
    assert "decider.example.com {" in lines
    assert "tls ops@example.com" in lines  # ACME (Let's Encrypt) with the operator's address
    env = compose_env(domain)
    assert env["DJANGO_ALLOWED_HOSTS"] == "decider.example.com"
    assert env["DJANGO_CSRF_TRUSTED_ORIGINS"] == "https://decider.example.com"


@pytest.mark.slow
def test_the_workers_share_rate_limit_counters_and_see_the_client_the_proxy_saw():
    assert SERVICES["cache"]["image"].startswith("redis:")
    assert APP["depends_on"]["cache"]["condition"] == "service_healthy"
    assert APP["environment"]["REDIS_URL"].startswith("redis://cache:")
    assert settings_value("DECIDER_BEHIND_PROXY", compose_env()) is True


@pytest.mark.slow
def test_the_proxy_header_is_trusted_only_when_compose_says_a_proxy_is_there():
    assert APP["environment"]["DJANGO_SECURE_PROXY_SSL_HEADER"] == "true"
    trusted = ["HTTP_X_FORWARDED_PROTO", "https"]
    assert settings_value("SECURE_PROXY_SSL_HEADER", compose_env()) == trusted
    env = compose_env()
    del env["DJANGO_SECURE_PROXY_SSL_HEADER"]
    assert settings_value("SECURE_PROXY_SSL_HEADER", env) is None


def test_migrations_run_once_before_any_app_replica_starts():
    assert MIGRATE["command"][:2] == ["sh", "-c"]
    steps = [step.strip() for step in MIGRATE["command"][2].split("&&")]
    assert steps == ["python manage.py migrate --noinput", "python manage.py load_defaults"]
    assert MIGRATE["depends_on"]["db"]["condition"] == "service_healthy"
    assert MIGRATE["restart"] == "no"
    assert APP["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "migrate" not in " ".join(APP["command"])
    # The same image and settings as the app it prepares the database for.
    assert MIGRATE["image"] == APP["image"] and MIGRATE["environment"] == APP["environment"]
    assert PROXY["depends_on"]["app"]["condition"] == "service_healthy"


def test_the_app_runs_with_an_init_and_a_timeout_above_its_longest_request():
    assert APP["init"] is True and MIGRATE["init"] is True
    # No request waits on Chromium; the slowest (a result scored on first view, the report's
    # HTML for a render) take well under a second, a slow database some more.
    assert int(gunicorn_option(APP["command"], "timeout")) >= 30


@pytest.mark.slow
def test_the_worker_and_scheduler_run_the_apps_image_after_its_migrations():
    for service in (WORKER, SCHEDULER):
        assert service["image"] == APP["image"] and service["environment"] == APP["environment"]
        assert service["init"] is True
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert WORKER["command"][:5] == ["nice", "-n10", "celery", "--app=config", "worker"]
    assert SCHEDULER["command"][:3] == ["celery", "--app=config", "beat"]
    assert "ports" not in WORKER and "ports" not in SCHEDULER
    env = compose_env()
    assert settings_value("CELERY_TASK_ALWAYS_EAGER", env) is False  # jobs leave the web
    assert settings_value("CELERY_BROKER_URL", env) == "redis://queue:6379/0"
    assert settings_value("CELERY_TASK_ACKS_LATE", env) is True  # a killed worker's job stays
    schedule = settings_value("CELERY_BEAT_SCHEDULE", env)
    assert schedule["prune"]["task"] == "decider.tasks.prune"
    # Queued jobs survive a Redis restart, and are never evicted for memory.
    assert "--appendonly" in SERVICES["queue"]["command"]
    assert _redis_option(SERVICES["queue"], "maxmemory-policy") == "noeviction"
    assert WORKER["depends_on"]["queue"]["condition"] == "service_healthy"


def _redis_option(service: dict, name: str) -> str | None:
    command = service["command"]
    return command[command.index(f"--{name}") + 1] if f"--{name}" in command else None


def test_the_cache_is_capped_and_evicts_while_the_queue_never_does():
    """Issue 49: pages kept for any query string once filled an uncapped, never-evicting
    Redis that also held the job queue (946 MB after an audit)."""
    cache, queue = SERVICES["cache"], SERVICES["queue"]
    assert _redis_option(cache, "maxmemory-policy") == "allkeys-lru"
    assert _redis_option(cache, "maxmemory") == "${DECIDER_CACHE_MEMORY:-256mb}"
    assert _redis_option(cache, "appendonly") == "no" and "volumes" not in cache
    assert _redis_option(queue, "maxmemory-policy") == "noeviction"
    env = compose_env()
    assert env["REDIS_URL"].split("/")[2] != env["CELERY_BROKER_URL"].split("/")[2]


def test_the_dockerfile_and_compose_start_the_same_gunicorn():
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE).group(1))
    assert cmd == APP["command"]
    assert gunicorn_option(cmd, "logger-class") == "decider.logs.GunicornLogger"


def test_the_image_leaves_out_virtualenvs_local_databases_and_history():
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".venv", ".venv-tools", ".git", "db.sqlite3", "staticfiles"} <= ignored
    assert "**/__pycache__" in ignored


TOKEN = "Ab3_-" * 8  # 40 characters, as secrets.token_urlsafe(30) gives


@pytest.mark.parametrize(
    "text, expected",
    [
        (f"GET /a/{TOKEN}/step/gpus/ HTTP/1.1", "GET /a/<token>/step/gpus/ HTTP/1.1"),
        (f"/v/{TOKEN}.json", "/v/<token>.json"),
        (f"/v/{TOKEN}/report.pdf", "/v/<token>/report.pdf"),
        (
            f"GET /compare/?a={TOKEN}&a={TOKEN[::-1]} HTTP/1.1",
            "GET /compare/?a=<token>&a=<token> HTTP/1.1",
        ),
        (f"a={TOKEN}&paper=a4", "a=<token>&paper=a4"),
        (f"https://decider.example.com/a/{TOKEN * 3}/", "https://decider.example.com/a/<token>/"),
        (
            "GET /static/decider/app.css?paper=a4 HTTP/1.1",
            "GET /static/decider/app.css?paper=a4 HTTP/1.1",
        ),
    ],
)
def test_link_tokens_are_redacted_wherever_they_appear(text, expected):
    from decider.logs import redact

    assert redact(text) == expected


def test_the_gunicorn_access_log_never_carries_a_token():
    from datetime import timedelta
    from types import SimpleNamespace

    from gunicorn.config import Config
    from gunicorn.glogging import SafeAtoms

    from decider.logs import GunicornLogger

    logger = GunicornLogger(Config())
    environ = {
        "REQUEST_METHOD": "GET",
        "RAW_URI": f"/compare/?a={TOKEN}",
        "PATH_INFO": "/compare/",
        "QUERY_STRING": f"a={TOKEN}",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_REFERER": f"https://localhost/v/{TOKEN}/",
    }
    resp = SimpleNamespace(status="302 Found", sent=0, headers=[("Location", f"/a/{TOKEN}/")])
    req = SimpleNamespace(headers=[("REFERER", f"https://localhost/v/{TOKEN}/")])
    atoms = logger.atoms(resp, req, environ, timedelta(milliseconds=5))
    line = logger.cfg.access_log_format % SafeAtoms(atoms)
    assert '"GET /compare/?a=<token> HTTP/1.1" 302' in line
    assert TOKEN not in line
    assert not any(TOKEN in str(value) for value in atoms.values())


def test_the_gunicorn_error_log_never_carries_a_token():
    from gunicorn.config import Config

    from decider.logs import GunicornLogger

    logger = GunicornLogger(Config())
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger.error_log.addHandler(handler)
    try:
        logger.error("Error handling request %s", f"/a/{TOKEN}/links/")
    finally:
        logger.error_log.removeHandler(handler)
    assert records[0].getMessage() == "Error handling request /a/<token>/links/"


@pytest.mark.django_db
def test_the_apps_own_request_log_never_carries_a_token(client, caplog):
    with caplog.at_level(logging.WARNING, logger="django.request"):
        response = client.get(f"/a/{TOKEN}/")
    assert response.status_code == 404
    assert "Not Found: /a/<token>/" in caplog.text
    assert TOKEN not in caplog.text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(port: int, path: str, headers: dict) -> http.client.HTTPResponse:
    """One request, redirects not followed (a redirect to https would leave 127.0.0.1)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    connection.close()
    return response


def local(command: list[str], port: int) -> list[str]:
    """A compose command run here: this virtualenv's python and gunicorn, a free local port."""
    bin_dir = Path(sys.executable).parent
    swap = {
        "python": sys.executable,
        "gunicorn": str(bin_dir / "gunicorn"),
        "celery": str(bin_dir / "celery"),
    }
    command = [swap.get(arg, arg) for arg in command]
    command = [arg.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for arg in command]
    return [
        arg.replace("python manage.py", f"{shlex.quote(sys.executable)} manage.py")
        for arg in command
    ]


@pytest.mark.slow
def test_the_compose_services_serve_pages_and_static_files_under_gunicorn(tmp_path):
    """Run migrate, then the app, then its health check, on a throwaway SQLite and a real domain."""
    domain = "decider.example.com"
    static_root = tmp_path / "static"
    env = compose_env(
        {"DECIDER_DOMAIN": domain},
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DJANGO_STATIC_ROOT=str(static_root),
        REDIS_URL="",  # local-memory counters: the machine's Redis is no compose service
        # The machine's Redis as the job queue, on a queue of this run's own.
        CELERY_BROKER_URL="redis://127.0.0.1:6379/1",
        DECIDER_QUEUE=f"test-{secrets.token_hex(4)}",
    )
    assert manage("collectstatic", "--noinput", "-v0", env=env).returncode == 0
    port = free_port()
    migrated = subprocess.run(
        local(MIGRATE["command"], port), cwd=ROOT, env=env, capture_output=True
    )
    assert migrated.returncode == 0, migrated.stderr
    server = subprocess.Popen(
        local(APP["command"], port),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    worker = subprocess.Popen(
        local(WORKER["command"], port) + ["--concurrency=1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        # The compose health check itself, with DJANGO_ALLOWED_HOSTS set to the real domain.
        healthcheck = local(APP["healthcheck"]["test"][1:], port)
        healthcheck[-1] = healthcheck[-1].replace("127.0.0.1:8000", f"127.0.0.1:{port}")
        for _ in range(100):
            if subprocess.run(healthcheck, env=env, capture_output=True).returncode == 0:
                break
            time.sleep(0.2)
        result = subprocess.run(healthcheck, env=env, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        # Behind the TLS proxy: the proxy's Host and X-Forwarded-Proto.
        https = {"X-Forwarded-Proto": "https", "Host": domain}
        page = fetch(port, "/", https)
        assert page.status == 200
        assert "Strict-Transport-Security" in page.headers
        # Plain HTTP (what a client reaching the app without the proxy would get): to HTTPS.
        plain = fetch(port, "/", {"Host": domain})
        assert plain.status == 301 and plain.headers["Location"] == f"https://{domain}/"
        html = page.body.decode()
        css = re.search(r'href="(/static/decider/app\.[0-9a-f]+\.css)"', html).group(1)
        asset = fetch(port, css, https)
        assert asset.status == 200
        assert "max-age" in asset.headers["Cache-Control"]
        base = f"http://127.0.0.1:{port}"
        created = urllib.request.urlopen(
            urllib.request.Request(
                f"{base}/api/assessments",
                data=json.dumps(make_answers("growth")).encode(),
                headers={**https, "Content-Type": "application/json"},
            )
        )
        view_path = urllib.parse.urlsplit(json.load(created)["view_url"]).path
        token = view_path.split("/")[2]
        # The PDF in the production shape: hashed static files, printed by the Celery worker
        # while the web answers 202 at once.
        for _ in range(300):
            report = fetch(port, f"{view_path}report.pdf", https)
            if report.status != 202:
                break
            time.sleep(0.2)
        assert report.status == 200, report.body[:500]
        assert report.headers["Content-Type"] == "application/pdf"
        assert report.body.startswith(b"%PDF-")
        assert fetch(port, f"/compare/?a={token}", https).status == 200
        assert fetch(port, f"/a/{token}/", https).status == 404  # a view token is no edit link
    finally:
        server.terminate()
        worker.terminate()
        logged = server.communicate(timeout=10)[0].decode()
        worker_logged = worker.communicate(timeout=30)[0].decode()
    assert "PDF of assessment" in worker_logged and token not in worker_logged
    # The access log and the app's own log name the requests, never the link's token.
    assert "GET /v/<token>/report.pdf" in logged
    assert "GET /compare/?a=<token>" in logged
    assert "Not Found: /a/<token>/" in logged
    assert token not in logged


@pytest.mark.skipif(
    not shutil.which("caddy"), reason="Caddy is not installed (apt-get install caddy)"
)
@pytest.mark.parametrize("tls", [None, "", "ops@example.com"])
def test_caddy_itself_reads_the_caddyfile(tls):
    """With the proxy's environment as compose gives it (an empty DECIDER_TLS is unset)."""
    variables = {"DECIDER_DOMAIN": "decider.example.com"}
    if tls is not None:
        variables["DECIDER_TLS"] = tls
    env = os.environ | {k: expand(v, variables) for k, v in PROXY["environment"].items()}
    mounts = dict(v.split(":")[:2] for v in PROXY["volumes"] if v.startswith("./"))
    source = next(src for src, dest in mounts.items() if dest == "/etc/caddy/Caddyfile")
    result = subprocess.run(
        ["caddy", "adapt", "--adapter", "caddyfile", "--config", str(ROOT / source)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    config = json.loads(result.stdout)
    (issuer,) = config["apps"]["tls"]["automation"]["policies"][0]["issuers"][:1]
    assert issuer == ({"module": "acme", "email": tls} if tls else {"module": "internal"})
    assert '"dial":"app:8000"' in result.stdout.replace(" ", "")
    dropped = config["logging"]["logs"]["default"]["encoder"]["fields"]
    assert dropped == {f: {"filter": "delete"} for f in ("request>uri", "request>headers>Referer")}


@pytest.mark.slow
def test_a_sqlite_database_logs_ahead_and_syncs_every_commit(tmp_path):
    # `make run`'s database: saves append to a write-ahead log (pages read while a save
    # writes), and every commit reaches the disk.
    env = {**os.environ, "DJANGO_DEBUG": "true", "DATABASE_URL": f"sqlite:///{tmp_path}/d.db"}
    code = (
        "from django.db import connection\n"
        "with connection.cursor() as c:\n"
        "    print([c.execute(f'PRAGMA {p}').fetchone()[0] for p in ('journal_mode', 'synchronous')])"
    )
    done = manage("shell", "-c", code, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['wal', 2]"  # 2: FULL


@pytest.mark.slow
def test_the_apps_processes_run_numpy_on_one_thread_each():
    # Spinning OpenBLAS threads doubled an API create's CPU in a gunicorn worker; the workers
    # are the parallelism. The setting must come before numpy loads, and the operator's wins.
    code = "import os, decider, numpy; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for given, expected in ((None, "1"), ("2", "2")):
        run = {**env, **({"OPENBLAS_NUM_THREADS": given} if given else {})}
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=run, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected


@pytest.mark.slow
def test_the_production_shape_asks_a_second_pair_of_eyes_to_publish():
    """Issue 35: off by default (one admin alone can publish), on in docker-compose.yml."""
    assert settings_value("DECIDER_PUBLISH_REVIEW", compose_env()) is True
    default = compose_env()
    default.pop("DECIDER_PUBLISH_REVIEW")
    assert settings_value("DECIDER_PUBLISH_REVIEW", default) is False
