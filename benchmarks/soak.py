"""Fault tests against the production shape: `make soak` (docs/RELIABILITY.md).

gunicorn and the Celery worker run with the compose file's own commands and settings (DEBUG
off, PostgreSQL, Redis) on this machine's PostgreSQL and Redis, on a database and a queue of
their own. Three runs:

1. **Saves through a database restart.** 50 clients save wizard steps, half on 5 shared
   assessments, half each on its own, while PostgreSQL is restarted mid-run. Every save
   changes the answers, so each acknowledged one (a redirect to the next step) adds one
   revision: saves acknowledged must equal revisions found afterwards, with no 5xx.
2. **30 PDFs at once.** 30 distinct assessments' PDFs asked for together; an ordinary page's
   p99 meanwhile against its idle p99, and the worker's memory (its processes' RSS).
3. **A worker killed mid-render.** The worker is killed (SIGKILL, all its processes) while
   it prints; a new one starts, and the PDF still arrives.

Traffic goes to 127.0.0.1 only; every loop is bounded in count and in time. Run as
`.venv/bin/python benchmarks/soak.py [--write]` (`make soak` writes).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import ROOT, machine_lines  # noqa: E402
from tests.factories import STEP_POSTS, make_answers  # noqa: E402

DOC = ROOT / "docs" / "RELIABILITY.md"
HOST = "localhost"
PG = "postgres://postgres@127.0.0.1:5432"
DB = "decider_soak"
CLIENTS = 50
SHARED = 5
SAVE_RUN_S = 30.0
RESTART_AT_S = 10.0
PDFS = 30
CREATE_LIMIT = 200  # per hour per address, in this run
FLOOD_S = 10.0
PDF_DEADLINE_S = 240.0
IDLE_SAMPLES = 200
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


# --- the processes ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def local(command: list[str], port: int) -> list[str]:
    """A compose command run here: this virtualenv's programs, a local port."""
    bin_dir = Path(sys.executable).parent
    swap = {"python": sys.executable, "gunicorn": str(bin_dir / "gunicorn")}
    swap["celery"] = str(bin_dir / "celery")
    command = [swap.get(arg, arg) for arg in command]
    return [arg.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for arg in command]


def environment(static_root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    env |= {
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": HOST,
        "DJANGO_CSRF_TRUSTED_ORIGINS": f"https://{HOST}",
        "DJANGO_SECURE_PROXY_SSL_HEADER": "true",  # the clients say https, as Caddy does
        "DJANGO_STATIC_ROOT": str(static_root),
        "DATABASE_URL": f"{PG}/{DB}",
        "DATABASE_CONN_MAX_AGE": "60",
        "REDIS_URL": "redis://127.0.0.1:6379/2",
        "CELERY_BROKER_URL": "redis://127.0.0.1:6379/3",
        "DECIDER_QUEUE": f"soak-{secrets.token_hex(4)}",
        "DECIDER_PDF_RENDERS": "2",
        # One address plays every client: limits high enough for the runs below, and the
        # create limit low enough for the flood to meet it.
        "DECIDER_RATE_CREATE": f"{CREATE_LIMIT}/h",
        "DECIDER_RATE_PDF": "200/10m",
    }
    return env


def run(command: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{shlex.join(command)} failed:\n{done.stderr[-2000:]}")


def pg_restart() -> float:
    """Restart this machine's PostgreSQL; seconds it took."""
    version = " ".join(os.listdir("/etc/postgresql"))
    started = time.monotonic()
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"],
        check=True,
        capture_output=True,
    )
    return time.monotonic() - started


class Stack:
    """gunicorn and one Celery worker, as compose starts them, on a fresh database."""

    def __init__(self, workdir: Path) -> None:
        self.env = environment(workdir / "static")
        self.port = free_port()
        self.logs = workdir
        self.server: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None
        self.workers_started = 0

    def __enter__(self) -> Stack:
        import redis

        for url in (self.env["REDIS_URL"], self.env["CELERY_BROKER_URL"]):  # this run's own
            redis.Redis.from_url(url).flushdb()
        psql = ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c"]
        run([*psql, f"DROP DATABASE IF EXISTS {DB}"], self.env)
        run([*psql, f"CREATE DATABASE {DB}"], self.env)
        run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], self.env)
        run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], self.env)
        run([sys.executable, "manage.py", "load_defaults"], self.env)
        self.server = self._start(local(COMPOSE["app"]["command"], self.port), "gunicorn")
        self.worker_start()
        self._wait_healthy()
        return self

    def __exit__(self, *exc) -> None:
        for process in (self.server, self.worker):
            if process is not None and process.poll() is None:
                process.terminate()
                try:
                    process.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)

    def _start(self, command: list[str], name: str) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 (closed with the process)
        return subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def worker_start(self) -> None:
        self.workers_started += 1
        command = local(COMPOSE["worker"]["command"], self.port)
        self.worker = self._start(command, f"worker-{self.workers_started}")

    def worker_kill(self) -> None:
        """SIGKILL the worker and its pool processes (and their Chromiums): no warm shutdown."""
        assert self.worker is not None
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait(10)

    def worker_rss_mb(self) -> float:
        """Resident memory of the worker's whole process group (pool and Chromium included)."""
        assert self.worker is not None
        total = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.worker.pid:  # process group
                    total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, IndexError, ValueError):
                continue
        return total / 1e6

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if Client(self.port).get("/healthz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise SystemExit("gunicorn never answered /healthz")


# --- a client -----------------------------------------------------------------------


class Client:
    """One person's browser: its own cookies, HTTPS as the proxy reports it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body: bytes | None = None, **headers: str):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        headers = {
            "Host": HOST,
            "X-Forwarded-Proto": "https",
            "Referer": f"https://{HOST}{path}",
            "Accept": "text/html",
            **headers,
        }
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
        finally:
            connection.close()
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _, rest = value.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
        return response.status, dict(response.getheaders()), content

    def get(self, path: str, **headers: str):
        return self.request("GET", path, **headers)

    def post_form(self, path: str, data: dict[str, str]):
        token = self.cookies.get("csrftoken", "")
        body = urlencode({**data, "csrfmiddlewaretoken": token}).encode()
        return self.request(
            "POST", path, body, **{"Content-Type": "application/x-www-form-urlencoded"}
        )

    def create(self, persona: str = "growth", name: str = "soak") -> tuple[str, str]:
        body = json.dumps({"name": name, "answers": make_answers(persona)}).encode()
        status, _headers, content = self.request(
            "POST", "/api/assessments", body, **{"Content-Type": "application/json"}
        )
        assert status == 201, (status, content[:300])
        document = json.loads(content)
        edit = urlsplit(document["edit_url"]).path.split("/")[2]
        view = urlsplit(document["view_url"]).path.split("/")[2]
        return edit, view


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


# --- 1. saves through a database restart ---------------------------------------------


def saves_through_a_restart(stack: Stack) -> dict:
    setup = Client(stack.port)
    shared = [setup.create(name=f"shared {i}")[0] for i in range(SHARED)]
    own = [setup.create(name=f"own {i}")[0] for i in range(CLIENTS - CLIENTS // 2)]
    targets = [shared[i % SHARED] for i in range(CLIENTS // 2)] + own

    def revisions() -> dict[str, int]:
        """Each assessment's revision, read through its own JSON (one more per save)."""
        found = {}
        for token in set(targets):
            status, _h, content = Client(stack.port).get(f"/a/{token}.json")
            assert status == 200, status
            found[token] = json.loads(content)["revision"]
        return found

    before = revisions()
    statuses: Counter[int] = Counter()
    acknowledged = Counter()
    errors: Counter[str] = Counter()
    counter = iter(range(10**9))
    lock = threading.Lock()
    stop = time.monotonic() + SAVE_RUN_S

    def walk(index: int) -> None:
        client = Client(stack.port)
        token = targets[index]
        step = f"/a/{token}/step/utilization/"
        for _ in range(10_000):  # bounded: SAVE_RUN_S ends it long before
            if time.monotonic() > stop:
                return
            try:
                status, _h, _c = client.get(step)
                with lock:
                    statuses[status] += 1
                    gpus = 8 + next(counter) % 90_000  # every save a new value: a new revision
                form = {**STEP_POSTS["utilization"], "gpus": str(gpus), "next": "1"}
                status, headers, content = client.post_form(step, form)
            except OSError as error:
                with lock:
                    errors[type(error).__name__] += 1
                continue
            with lock:
                statuses[status] += 1
                if status == 302:
                    acknowledged[token] += 1
                elif status == 200:
                    errors[_first_error(content)] += 1

    threads = [threading.Thread(target=walk, args=(i,)) for i in range(CLIENTS)]
    for thread in threads:
        thread.start()
    time.sleep(RESTART_AT_S)
    restart_s = pg_restart()
    for thread in threads:
        thread.join(SAVE_RUN_S + 120)
    after = revisions()
    found = sum(after[token] - before[token] for token in after)
    return {
        "clients": CLIENTS,
        "seconds": SAVE_RUN_S,
        "restart_s": round(restart_s, 2),
        "acknowledged": sum(acknowledged.values()),
        "found": found,
        "statuses": dict(sorted(statuses.items())),
        "server_errors": sum(n for s, n in statuses.items() if s >= 500),
        "client_errors": dict(errors),
    }


def _first_error(content: bytes) -> str:
    match = re.search(rb'class="errorlist[^"]*"[^>]*>\s*<li>([^<]{0,120})', content)
    return match.group(1).decode(errors="replace") if match else "200 without a redirect"


# --- 0. one anonymous client creating as fast as it can ----------------------------------


def create_flood(stack: Stack) -> dict:
    client = Client(stack.port)
    body = json.dumps({"name": "flood", "answers": make_answers()}).encode()
    statuses: Counter[int] = Counter()
    retry_after = ""
    stop = time.monotonic() + FLOOD_S
    for _ in range(100_000):
        if time.monotonic() > stop:
            break
        status, headers, _c = client.request(
            "POST", "/api/assessments", body, **{"Content-Type": "application/json"}
        )
        statuses[status] += 1
        retry_after = headers.get("Retry-After", retry_after)
    return {
        "seconds": FLOOD_S,
        "created": statuses[201],
        "refused_429": statuses[429],
        "retry_after": retry_after,
        "server_errors": sum(n for s, n in statuses.items() if s >= 500),
    }


# --- 2. 30 PDFs at once, and an ordinary page meanwhile -------------------------------


def page_times(port: int, path: str, count: int, stop: threading.Event | None = None):
    client, times, statuses = Client(port), [], Counter()
    for _ in range(count):
        if stop is not None and stop.is_set():
            break
        started = time.perf_counter()
        status, _h, _c = client.get(path)
        times.append(time.perf_counter() - started)
        statuses[status] += 1
    return times, statuses


def pdf_wait(client: Client, view: str, deadline: float) -> tuple[float, int]:
    started = time.monotonic()
    path = f"/v/{view}/report.pdf"
    while time.monotonic() < deadline:
        status, headers, content = client.get(path, Accept="application/pdf")
        if status == 200 and content.startswith(b"%PDF-"):
            return time.monotonic() - started, status
        if status != 202:
            return time.monotonic() - started, status
        time.sleep(float(headers.get("Retry-After", "1")))
    return time.monotonic() - started, 0


def pdf_burst(stack: Stack) -> dict:
    setup = Client(stack.port)
    views = [setup.create(name=f"pdf {i}")[1] for i in range(PDFS)]
    ordinary = f"/v/{views[0]}/"
    page_times(stack.port, ordinary, 20)  # warm
    idle, _ = page_times(stack.port, ordinary, IDLE_SAMPLES)
    stop = threading.Event()
    busy: list[float] = []
    busy_statuses: Counter[int] = Counter()
    memory: list[float] = []

    def reader() -> None:
        times, statuses = page_times(stack.port, ordinary, 100_000, stop)
        busy.extend(times)
        busy_statuses.update(statuses)

    def watch_memory() -> None:
        while not stop.is_set():
            memory.append(stack.worker_rss_mb())
            time.sleep(0.5)

    results: list[tuple[float, int]] = []
    deadline = time.monotonic() + PDF_DEADLINE_S
    askers = [
        threading.Thread(
            target=lambda v=v: results.append(pdf_wait(Client(stack.port), v, deadline))
        )
        for v in views
    ]
    side = [threading.Thread(target=reader), threading.Thread(target=watch_memory)]
    started = time.monotonic()
    for thread in side + askers:
        thread.start()
    for thread in askers:
        thread.join(PDF_DEADLINE_S + 30)
    burst_s = time.monotonic() - started
    stop.set()
    for thread in side:
        thread.join(30)
    return {
        "pdfs": PDFS,
        "arrived": sum(1 for _s, status in results if status == 200),
        "burst_s": round(burst_s, 1),
        "slowest_pdf_s": round(max(s for s, _ in results), 1),
        "idle_p50_ms": round(percentile(idle, 0.5) * 1000, 1),
        "idle_p99_ms": round(percentile(idle, 0.99) * 1000, 1),
        "busy_p50_ms": round(percentile(busy, 0.5) * 1000, 1),
        "busy_p99_ms": round(percentile(busy, 0.99) * 1000, 1),
        "busy_requests": len(busy),
        "busy_server_errors": sum(n for s, n in busy_statuses.items() if s >= 500),
        "worker_rss_mb_max": round(max(memory, default=0.0)),
    }


# --- 3. a worker killed mid-render ---------------------------------------------------


def worker_killed(stack: Stack) -> dict:
    client = Client(stack.port)
    _edit, view = client.create(name="killed mid-render")
    log = stack.logs / f"worker-{stack.workers_started}.log"
    seen = log.read_bytes().count(b"Task decider.tasks.render_pdf") if log.exists() else 0
    status, _h, _c = client.get(f"/v/{view}/report.pdf", Accept="application/pdf")
    assert status == 202, status
    # Kill once the worker has taken the job (its log says "received"), while Chromium prints.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.read_bytes().count(b"Task decider.tasks.render_pdf") > seen:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    killed_at = time.monotonic()
    stack.worker_kill()
    stack.worker_start()
    waited, status = pdf_wait(client, view, time.monotonic() + 300)
    return {
        "pdf_arrived": status == 200,
        "after_kill_s": round(time.monotonic() - killed_at, 1),
        "waited_s": round(waited, 1),
    }


# --- the report ----------------------------------------------------------------------


def report(saves: dict, burst: dict, killed: dict, flood: dict) -> str:
    ratio = burst["busy_p99_ms"] / burst["idle_p99_ms"] if burst["idle_p99_ms"] else 0
    lines = [
        "# Reliability",
        "",
        "Written by `make soak` (`benchmarks/soak.py --write`): gunicorn and the Celery worker",
        "with the compose file's commands and production settings (DEBUG off) on this machine's",
        "PostgreSQL and Redis. Re-run it after a change to the request path, the job queue or",
        "the settings.",
        "",
        *machine_lines(),
        "",
        "## Against the audit of issue 12",
        "",
        "| run | then (the audit) | now |",
        "|---|---|---|",
        f"| 50 clients saving through a PostgreSQL restart | 0 saves lost, 19–30 × 500 | "
        f"{saves['acknowledged'] - saves['found']} lost, {saves['server_errors']} × 5xx |",
        f"| an ordinary page during 30 PDFs | 57 s median (16 ms idle) | {burst['busy_p50_ms']} ms "
        f"median, p99 {ratio:.1f}× idle |",
        f"| one client creating assessments | 4,610 a minute, no limit | {flood['created']} then "
        f"429 ({flood['refused_429']} refused in {flood['seconds']:.0f} s) |",
        f"| a worker killed mid-render | (no worker) | the PDF {killed['after_kill_s']} s after |",
        "",
        "## Saves through a PostgreSQL restart",
        "",
        f"{saves['clients']} clients for {saves['seconds']:.0f} s, half on {SHARED} shared",
        "assessments and half on their own, each loading the utilization step and saving it",
        f"with a new GPU count; PostgreSQL restarted {RESTART_AT_S:.0f} s in (the restart took",
        f"{saves['restart_s']} s).",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| saves acknowledged (302) | {saves['acknowledged']} | |",
        f"| saves found afterwards (revisions) | {saves['found']} | equal |",
        f"| 5xx answers | {saves['server_errors']} | 0 |",
        f"| answers by status | {saves['statuses']} | |",
        f"| connection errors, forms refused | {saves['client_errors'] or 'none'} | |",
        "",
        "## 30 PDFs at once",
        "",
        f"{burst['pdfs']} distinct assessments' PDFs asked for together (each client polls on",
        "202 as `Retry-After` says); one client meanwhile reads an ordinary result page in a",
        "loop.",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| PDFs arrived | {burst['arrived']} of {burst['pdfs']} | all |",
        f"| burst took / slowest PDF | {burst['burst_s']} s / {burst['slowest_pdf_s']} s | |",
        f"| ordinary page p50, idle / during | {burst['idle_p50_ms']} / {burst['busy_p50_ms']} ms | |",
        f"| ordinary page p99, idle / during | {burst['idle_p99_ms']} / {burst['busy_p99_ms']} ms"
        f" ({ratio:.1f}×) | under 10× |",
        f"| ordinary pages read during the burst, 5xx | {burst['busy_requests']}, "
        f"{burst['busy_server_errors']} | 0 × 5xx |",
        f"| worker memory, most seen (pool + Chromium) | {burst['worker_rss_mb_max']} MB | |",
        "",
        "## One client creating as fast as it can",
        "",
        f"One address posting to `/api/assessments` for {flood['seconds']:.0f} s, after the runs",
        f"above had created their assessments; this run's limit: {CREATE_LIMIT} an hour per",
        "address (`DECIDER_RATE_CREATE`, 60 by default).",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| created (201) | {flood['created']} | the rest of the hour's allowance |",
        f"| refused (429), Retry-After | {flood['refused_429']}, {flood['retry_after']} s | |",
        f"| 5xx | {flood['server_errors']} | 0 |",
        "",
        "## A worker killed mid-render",
        "",
        "The worker and its pool processes (Chromium with them) get SIGKILL while a PDF",
        "prints; a new worker starts at once, as compose's `restart: unless-stopped` does.",
        "",
        "| figure | value | goal |",
        "|---|---|---|",
        f"| the PDF arrived | {'yes' if killed['pdf_arrived'] else 'no'} | yes |",
        f"| seconds from the kill to the PDF | {killed['after_kill_s']} | |",
        "",
        "A killed worker's job stays unacknowledged in Redis and comes back after the",
        "visibility timeout (`DECIDER_JOB_REDELIVER_S`, 120 s), or sooner when the page's poll",
        "finds the render mark gone (`pdf.JOB_MARK_S`, 240 s) and asks again; the figure above",
        "shows which came first.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write docs/RELIABILITY.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Stack(Path(tmp)) as stack:
        saves = saves_through_a_restart(stack)
        print(json.dumps(saves))
        burst = pdf_burst(stack)
        print(json.dumps(burst))
        killed = worker_killed(stack)
        print(json.dumps(killed))
        flood = create_flood(stack)
        print(json.dumps(flood))
    text = report(saves, burst, killed, flood)
    print(text)
    if args.write:
        # What benchmarks/hostile.py wrote below its mark stays.
        from benchmarks.hostile import MARK

        old = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        kept = MARK + old.split(MARK, 1)[1] if MARK in old else ""
        DOC.write_text(f"{text}\n{kept}" if kept else text, encoding="utf-8")
        print(f"wrote {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
