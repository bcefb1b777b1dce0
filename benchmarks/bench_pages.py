"""Every page against a bare Django view, under wrk: `make bench-pages` (docs/BENCHMARKS.md).

gunicorn runs with the compose file's command line and the production environment (DEBUG
off, whitenoise, Redis for the cache and the rate limits; benchmarks/soak.py's helpers), on
SQLite and on this machine's PostgreSQL, each on a database of its own. One difference: the
settings module is benchmarks/bench_settings.py, whose URLs (benchmarks/bench_urls.py) add a
bare view, `HttpResponse("ok")`, beside decider's own. Four parts:

1. **Seed.** migrate and load_defaults; one assessment made as a browser makes it (the home
   form, then every step), 16 more through the API, whose steps are posted (each connection's
   saves go to assessments of their own); a Celery worker (started for it, stopped after)
   prints the first one's PDF, so that its download is a cached one.
2. **Measure.** Debian's wrk, 16 connections, drives each page for `--seconds` right after
   the bare view for as long (bare, page, bare, page…), `--rounds` times. Server CPU per
   request: the utime+stime of gunicorn's processes (/proc/<pid>/stat) over a run, divided
   by the requests its access log shows. Ratios compare a page with the bare view of the
   same round. Every answer must be the page's own (200; the step POST's redirect, 302; the
   API's 201): a run with any other status, or a socket error, stops the benchmark.
3. **First views** (benchmarks/first_views.py): pages of new assessments, each shown once
   (the result page, the report, a what-if), one request after another, against the bare
   view sent the same way.
4. **Worker classes** (`--compare-workers`): the result page and the bare view under sync
   and gthread workers of several counts.

Traffic goes to 127.0.0.1 only; every loop is bounded in count and in time. Run as
`.venv/bin/python benchmarks/bench_pages.py [--db sqlite|postgres|both] [--compare-workers]
[--write]` (`make bench-pages` writes; `--write` is meant for `--db both`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import first_views  # noqa: E402
from benchmarks.common import DOC, ROOT, machine_lines, report  # noqa: E402
from benchmarks.soak import COMPOSE, HOST, Client, Stack, local, pdf_wait, run  # noqa: E402
from tests.factories import STEP_POSTS, make_answers  # noqa: E402

SECTION = "## Pages"
LUA = ROOT / "benchmarks" / "bench_pages.lua"
PG = "postgres://postgres@127.0.0.1:5432"
PG_DB = "decider_bench_pages"
REDIS_CACHE = "redis://127.0.0.1:6379/4"  # compose uses 0 and 1, soak.py 2 and 3
REDIS_BROKER = "redis://127.0.0.1:6379/5"
CREATE_RATE = "1000000/h"  # one address creates every assessment of the API run
CONNECTIONS = 16
WRK_THREADS = 2
WRK_TIMEOUT_S = 10
WARMUP_S = 1
QUIET_POLLS = 200  # after a run, 0.1 s apart: until the server has answered its last request
TCP_OPEN = {"01", "08"}  # ESTABLISHED, CLOSE_WAIT (/proc/net/tcp): a request still in hand
PDF_DEADLINE_S = 240.0
STEP = "utilization"
P99_GOAL_MS = 50.0
DB_NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
ORDER = ["### SQLite", "### PostgreSQL", "### Worker classes"]  # the subsections
TICK_S = 1 / os.sysconf("SC_CLK_TCK")
ACCESS = re.compile(rb'"(?:GET|POST|HEAD|PUT|DELETE) [^"]*" (\d{3}) ')
VIEW_LINK = re.compile(rb'id="view-link" value="https?://[^/"]+/v/([A-Za-z0-9_-]{16,64})/"')


# --- what is measured -----------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    expect: int = 200  # the only status a run may see
    method: str = "GET"
    body: str = ""
    vary: str = ""  # a form field given a new number in every request (a real save each)
    spread: tuple[str, ...] = ()  # paths the requests go to in turn (`path` is the first)
    headers: dict[str, str] = field(default_factory=dict)
    goal: float | None = None  # CPU ratio to the bare view, at least


class Workers(NamedTuple):
    worker_class: str
    workers: int
    threads: int = 1

    def label(self) -> str:
        threads = f" × {self.threads} threads" if self.threads > 1 else ""
        return f"{self.workers} {self.worker_class}{threads}"


# sync with threads is gthread in gunicorn, so sync stays at one thread.
COMPARED = (
    Workers("sync", 2),
    Workers("sync", 3),
    Workers("gthread", 2, 4),
    Workers("gthread", 4, 2),
)

BARE = Page('bare view (`HttpResponse("ok")`)', "/bench/bare")


@dataclass(frozen=True)
class Seed:
    cookies: dict[str, str]  # the browser that made the assessment through the wizard
    edit: str  # its edit link
    view: str  # its view-only link, whose PDF is cached
    step_edits: tuple[str, ...]  # assessments made through the API, whose step is posted


def pages_for(seed: Seed) -> list[Page]:
    steps = tuple(f"/a/{edit}/step/{STEP}/" for edit in seed.step_edits)
    step = steps[0]
    form = {k: v for k, v in STEP_POSTS[STEP].items() if k != "gpus"}
    form |= {"next": "1", "csrfmiddlewaretoken": seed.cookies["csrftoken"]}
    created = json.dumps({"name": "bench", "answers": make_answers("growth")})
    return [
        Page("home", "/", goal=0.5),
        Page("step page GET", step, goal=0.5),
        Page(
            "step POST (a new GPU count each)",
            step,
            expect=302,
            method="POST",
            body=urlencode(form),
            vary="gpus",
            spread=steps,
            headers={
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": f"https://{HOST}{step}",
            },
            goal=0.5,
        ),
        Page("result page", f"/a/{seed.edit}/", goal=0.25),
        Page("printable report", f"/a/{seed.edit}/report/", goal=0.25),
        Page(
            "cached PDF download",
            f"/v/{seed.view}/report.pdf",
            headers={"Accept": "application/pdf"},
            goal=0.5,
        ),
        Page(
            "API create",
            "/api/assessments",
            expect=201,
            method="POST",
            body=created,
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            goal=0.1,
        ),
    ]


def headers_for(page: Page, cookies: dict[str, str]) -> dict[str, str]:
    """What a browser behind Caddy sends: HTTPS said by the proxy, its address, its cookies."""
    headers = {
        "Host": HOST,
        "X-Forwarded-Proto": "https",
        "X-Forwarded-For": "127.0.0.1",
        "Accept": "text/html",
        "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items()),
    }
    return headers | page.headers


# --- the processes ------------------------------------------------------------------


def _stop(process: subprocess.Popen | None, *, grace_s: float) -> None:
    """SIGTERM, then SIGKILL to its whole group if it has not gone within `grace_s`."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


class PageStack(Stack):
    """soak.py's Stack on a database of this benchmark's own, gunicorn serving its URLs."""

    def __init__(self, workdir: Path, db: str, static: Path) -> None:
        super().__init__(workdir)
        self.db = db
        self.static = static
        self.env |= {
            "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
            "PYTHONPATH": str(ROOT),
            "DJANGO_STATIC_ROOT": str(static),
            "DATABASE_URL": f"{PG}/{PG_DB}"
            if db == "postgres"
            else f"sqlite:///{workdir / 'bench.sqlite3'}",
            "REDIS_URL": REDIS_CACHE,
            "CELERY_BROKER_URL": REDIS_BROKER,
            "DECIDER_QUEUE": f"bench-pages-{secrets.token_hex(4)}",
            "DECIDER_BEHIND_PROXY": "true",  # as in the compose file
            "DECIDER_RATE_CREATE": CREATE_RATE,
        }
        self.workers = Workers("sync", 2)
        self.command: list[str] = []

    def __enter__(self) -> PageStack:
        import redis

        for url in (REDIS_CACHE, REDIS_BROKER):
            redis.Redis.from_url(url).flushdb()
        if self.db == "postgres":
            self._psql(f"DROP DATABASE IF EXISTS {PG_DB} WITH (FORCE)")
            self._psql(f"CREATE DATABASE {PG_DB}")
        if not (self.static / "staticfiles.json").exists():
            run([sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], self.env)
        run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], self.env)
        run([sys.executable, "manage.py", "load_defaults"], self.env)
        return self

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        if self.db == "postgres":
            self._psql(f"DROP DATABASE IF EXISTS {PG_DB} WITH (FORCE)")

    def _psql(self, sql: str) -> None:
        run(
            ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c", sql],
            self.env,
        )

    # gunicorn

    def server_start(self, workers: Workers) -> None:
        self.server_stop()
        ours = ("--workers", "--worker-class", "--threads")
        command = [a for a in local(COMPOSE["app"]["command"], self.port) if not a.startswith(ours)]
        command += [f"--workers={workers.workers}", f"--worker-class={workers.worker_class}"]
        command += [f"--threads={workers.threads}"]
        self.workers, self.command = workers, command
        self.log = (
            self.logs / f"gunicorn-{workers.worker_class}-{workers.workers}x{workers.threads}.log"
        )
        self.server = self._start(command, self.log.stem)
        self._wait_healthy()

    def server_stop(self) -> None:
        _stop(self.server, grace_s=30)
        self.server = None

    def worker_stop(self) -> None:
        """The Celery worker off again (warm shutdown): it has nothing to do while measuring."""
        _stop(self.worker, grace_s=60)
        self.worker = None

    def server_ticks(self) -> tuple[int, frozenset[int]]:
        """utime+stime (clock ticks) of gunicorn's master and workers, and their pids."""
        assert self.server is not None
        total, pids = 0, set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == self.server.pid:  # process group: master and workers
                    total += int(fields[11]) + int(fields[12])
                    pids.add(int(stat.parent.name))
            except (OSError, IndexError, ValueError):
                continue
        return total, frozenset(pids)

    def log_size(self) -> int:
        return self.log.stat().st_size

    def log_statuses(self, offset: int) -> Counter[int]:
        with self.log.open("rb") as log:
            log.seek(offset)
            return Counter(int(status) for status in ACCESS.findall(log.read()))

    def log_tail(self, lines: int = 30) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    def in_flight(self) -> int:
        """Connections to gunicorn not yet answered and closed: being served, or queued."""
        count = 0
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == self.port and fields[3] in TCP_OPEN:
                count += 1
        return count

    def quiet(self) -> None:
        """Wait until gunicorn has answered the requests wrk left in flight."""
        last = None
        for _ in range(QUIET_POLLS):
            now = (self.log_size(), self.server_ticks()[0])
            if now == last and not self.in_flight():
                return
            last = now
            time.sleep(0.1)


# --- seeding ------------------------------------------------------------------------


def expect(stack: PageStack, status: int, wanted: int, what: str, content: bytes = b"") -> None:
    if status != wanted:
        raise SystemExit(
            f"{what}: {status}, not {wanted}\n{content[:300]!r}\n--- gunicorn:\n{stack.log_tail()}"
        )


def seed(stack: PageStack) -> Seed:
    """Assessments made as people make them, and one PDF printed by a worker."""
    user = Client(stack.port)
    status, _h, content = user.get("/")
    expect(stack, status, 200, "home page", content)
    status, headers, content = user.post_form("/", {"preset": ""})
    expect(stack, status, 302, "home form", content)
    edit = headers["Location"].split("/")[2]
    for slug, form in STEP_POSTS.items():
        status, _h, content = user.post_form(f"/a/{edit}/step/{slug}/", {**form, "next": "1"})
        expect(stack, status, 302, f"step {slug}", content)
    status, _h, content = user.get(f"/a/{edit}/")
    expect(stack, status, 200, "result page", content)
    match = VIEW_LINK.search(content)
    if match is None:
        raise SystemExit("the result page shows no view-only link")
    view = match.group(1).decode()
    # Each connection's saves go to assessments of their own (a person saves their own).
    step_edits = tuple(
        Client(stack.port).create("growth", f"bench steps {i}")[0] for i in range(CONNECTIONS)
    )
    stack.worker_start()
    try:
        waited, status = pdf_wait(user, view, time.monotonic() + PDF_DEADLINE_S)
        expect(stack, status, 200, f"the PDF, after {waited:.0f} s")
    finally:
        stack.worker_stop()
    return Seed(cookies=dict(user.cookies), edit=edit, view=view, step_edits=step_edits)


def probe(stack: PageStack, page: Page, cookies: dict[str, str]) -> None:
    """One request as wrk will send it: the page answers what it should."""
    connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=60)
    body = page.body.encode()
    if page.vary:
        body += f"&{page.vary}=4242".encode()
    try:
        connection.request(
            page.method, page.path, body=body or None, headers=headers_for(page, cookies)
        )
        response = connection.getresponse()
        content = response.read()
    finally:
        connection.close()
    expect(stack, response.status, page.expect, page.name, content)
    if page.path.endswith(".pdf") and not content.startswith(b"%PDF-"):
        raise SystemExit(f"{page.name}: not a PDF ({response.getheader('Content-Type')})")
    if page is BARE and content != b"ok":
        raise SystemExit(f"the bare view answered {content[:100]!r}")


# --- one wrk run --------------------------------------------------------------------


class Run(NamedTuple):
    requests: int  # completed, as wrk counts them
    seconds: float
    served: int  # answered, as gunicorn's access log counts them
    cpu_s: float
    p50_ms: float
    p99_ms: float

    @property
    def rps(self) -> float:
        return self.requests / self.seconds

    @property
    def cpu_ms(self) -> float:
        return self.cpu_s * 1000 / self.served


def wrk_command(stack: PageStack, page: Page, cookies: dict[str, str], seconds: int) -> list[str]:
    command = ["wrk", f"--threads={WRK_THREADS}", f"--connections={CONNECTIONS}"]
    command += [f"--duration={seconds}s", f"--timeout={WRK_TIMEOUT_S}s", "--latency"]
    command += ["--script", str(LUA)]
    for name, value in headers_for(page, cookies).items():
        command += ["--header", f"{name}: {value}"]
    command += [f"http://127.0.0.1:{stack.port}{page.path}", "--", page.method]
    if page.spread:
        return [*command, page.body, page.vary, str(WRK_THREADS), *page.spread]
    return command + [arg for arg in (page.body, page.vary) if arg]


def wrk_run(stack: PageStack, page: Page, cookies: dict[str, str], seconds: int) -> Run:
    ticks, pids = stack.server_ticks()
    offset = stack.log_size()
    command = wrk_command(stack, page, cookies, seconds)
    done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    stack.quiet()
    ticks_after, pids_after = stack.server_ticks()
    statuses = stack.log_statuses(offset)
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH ")), None)
    if done.returncode or line is None:
        raise SystemExit(f"wrk failed on {page.name}:\n{done.stdout}\n{done.stderr}")
    summary = json.loads(line.removeprefix("BENCH "))
    errors = {k: summary[k] for k in ("connect", "read", "write", "status", "timeout")}
    wrong = {status: n for status, n in statuses.items() if status != page.expect}
    if wrong or any(errors.values()) or not statuses:
        raise SystemExit(
            f"{page.name} ({page.method} {page.path}) is no page to benchmark: answers "
            f"{dict(statuses)}, wrk errors {errors}\n{done.stdout}\n--- gunicorn:\n"
            f"{stack.log_tail()}"
        )
    if pids_after != pids:
        raise SystemExit(f"a gunicorn process came or went during {page.name}:\n{stack.log_tail()}")
    return Run(
        requests=summary["requests"],
        seconds=summary["duration_us"] / 1e6,
        served=sum(statuses.values()),
        cpu_s=(ticks_after - ticks) * TICK_S,
        p50_ms=summary["p50_us"] / 1000,
        p99_ms=summary["p99_us"] / 1000,
    )


# --- rounds and their figures --------------------------------------------------------


class Row(NamedTuple):
    page: Page
    runs: list[Run]
    bare: list[Run]  # the bare view right before each run

    def median(self, attribute: str) -> float:
        return statistics.median(getattr(run, attribute) for run in self.runs)

    def throughput(self) -> float:
        return statistics.median(r.rps / b.rps for r, b in zip(self.runs, self.bare, strict=True))

    def cpu_ratios(self) -> list[float]:
        return [b.cpu_ms / r.cpu_ms for r, b in zip(self.runs, self.bare, strict=True)]


def alternate(
    stack: PageStack, pages: list[Page], cookies: dict[str, str], rounds: int, seconds: int
) -> list[Row]:
    """Warm every page, then `rounds` of bare view, page, bare view, page…"""
    for page in [BARE, *pages]:
        probe(stack, page, cookies)
        wrk_run(stack, page, cookies, WARMUP_S)
    rows = [Row(page, [], []) for page in pages]
    for round_number in range(rounds):
        for row in rows:
            row.bare.append(wrk_run(stack, BARE, cookies, seconds))
            row.runs.append(wrk_run(stack, row.page, cookies, seconds))
            page, bare = row.runs[-1], row.bare[-1]
            print(
                f"{stack.db} {stack.workers.label()} round {round_number + 1} {row.page.name}: "
                f"{page.cpu_ms:.2f} ms CPU, {page.rps:.0f}/s, p99 {page.p99_ms:.0f} ms; "
                f"bare {bare.cpu_ms:.2f} ms, {bare.rps:.0f}/s",
                flush=True,
            )
    return rows


def bare_row(rows: list[Row]) -> Row:
    runs = [run for row in rows for run in row.bare]
    return Row(BARE, runs, runs)


def stamp(load_before: float) -> str:
    """When a measurement ended, and the load average (1 min) before and after it."""
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{now}, load average {load_before:.1f} before and {os.getloadavg()[0]:.1f} after"


class Result(NamedTuple):
    db: str
    rows: list[Row]
    command: list[str]
    measured: str  # stamp()
    compared: list[tuple[Workers, Row]]
    compared_measured: str
    first: list[first_views.Batch]  # pages of new assessments, each shown once


def database_run(db: str, args: argparse.Namespace, workdir: Path, static: Path) -> Result:
    load = os.getloadavg()[0]
    (workdir / db).mkdir()
    with PageStack(workdir / db, db, static) as stack:
        stack.server_start(Workers(args.worker_class, args.workers, args.threads))
        seeded = seed(stack)
        pages = pages_for(seeded)
        if args.pages:
            pages = [p for p in pages if any(word in p.name for word in args.pages)]
        rows = alternate(stack, pages, seeded.cookies, args.rounds, args.seconds)
        wanted = not args.pages or any(w in n for w in args.pages for n in first_views.GOALS)
        first = first_views.measure(stack, args.rounds) if wanted else []
        command, measured = stack.command, stamp(load)
        compared: list[tuple[Workers, Row]] = []
        if args.compare_workers:
            load = os.getloadavg()[0]
            result_page = next(p for p in pages_for(seeded) if p.name == "result page")
            for workers in COMPARED:
                stack.server_start(workers)
                row = alternate(stack, [result_page], seeded.cookies, args.rounds, args.seconds)
                compared.append((workers, row[0]))
    return Result(db, rows, command, measured, compared, stamp(load) if compared else "", first)


# --- the report ----------------------------------------------------------------------


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def _row_line(row: Row) -> str:
    p99 = row.median("p99_ms")
    cells = [row.page.name, f"{row.median('cpu_ms'):.2f}", f"{row.median('rps'):.0f}"]
    if row.page is BARE:
        cells += ["1×", "1×", ""]
    else:
        ratios = row.cpu_ratios()
        middle = statistics.median(ratios)
        cells += [
            f"{row.throughput():.2f}×",
            f"{middle:.2f}× ({min(ratios):.2f}–{max(ratios):.2f})",
            f"≥ {row.page.goal}×: {_met(middle >= row.page.goal)}" if row.page.goal else "",
        ]
    cells += [f"{row.median('p50_ms'):.1f}", f"{p99:.1f}", _met(p99 < P99_GOAL_MS)]
    return "| " + " | ".join(cells) + " |"


def page_table(rows: list[Row]) -> list[str]:
    return [
        "| page | CPU per request (ms) | req/s | throughput × bare | CPU × bare (range) "
        f"| goal | p50 (ms) | p99 (ms) | p99 < {P99_GOAL_MS:.0f} ms |",
        "|---|---:|---:|---:|---:|---|---:|---:|---|",
        *(_row_line(row) for row in [bare_row(rows), *rows]),
    ]


def workers_table(results: list[Result]) -> list[str]:
    lines = [
        "| database | gunicorn workers | bare req/s | result req/s | result CPU per request "
        "(ms) | throughput × bare | CPU × bare | result p50 / p99 (ms) |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        for workers, row in result.compared:
            lines.append(
                f"| {DB_NAMES[result.db]} | {workers.label()} | "
                f"{statistics.median(r.rps for r in row.bare):.0f} | {row.median('rps'):.0f} | "
                f"{row.median('cpu_ms'):.2f} | {row.throughput():.2f}× | "
                f"{statistics.median(row.cpu_ratios()):.2f}× | "
                f"{row.median('p50_ms'):.0f} / {row.median('p99_ms'):.0f} |"
            )
    return lines


def worker_options(command: list[str]) -> str:
    options = [a for a in command if a.startswith(("--workers", "--worker-class", "--threads"))]
    return " ".join(f"`{a}`" for a in options) or "gunicorn's defaults"


def shown_command(command: list[str]) -> str:
    shown = " ".join(Path(arg).name if arg.startswith("/") else arg for arg in command)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", shown)


def subsections(text: str) -> dict[str, str]:
    """The "### " subsections of a section, by title."""
    parts = re.split(r"^(?=### )", text, flags=re.MULTILINE)[1:]
    return {part.split("\n", 1)[0]: part.rstrip("\n") + "\n" for part in parts}


def kept_subsections(made: set[str]) -> dict[str, str]:
    """This section's subsections in docs/BENCHMARKS.md that this run did not measure (another
    database, the worker classes): kept as they are, with their own dates."""
    old = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    match = re.search(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", old, re.MULTILINE | re.DOTALL)
    found = subsections(match.group(0)) if match else {}
    return {title: text for title, text in found.items() if title not in made}


def method(first: Result, args: argparse.Namespace) -> str:
    """How the figures below were made, in one paragraph."""
    wrk = subprocess.run(["wrk", "--version"], capture_output=True, text=True).stdout
    return " ".join(
        [
            "`.venv/bin/python benchmarks/bench_pages.py --write` (`make bench-pages`, part of",
            "`make bench`; `--compare-workers` for the worker classes): gunicorn with the",
            f"compose file's command line but {worker_options(first.command)}, the production",
            "settings and environment (DEBUG off, whitenoise, Redis for the cache and the rate",
            'limits), and a bare view (`HttpResponse("ok")`) from a benchmark-only URL',
            f"configuration (benchmarks/bench_urls.py). wrk {wrk.split()[1] if wrk else '?'},",
            f"{CONNECTIONS} connections, {WRK_THREADS} threads, {args.seconds} s per run; each",
            f"page right after the bare view, {args.rounds} rounds, medians of the rounds.",
            "CPU per request: the user and system time of gunicorn's processes over a run",
            "(/proc/<pid>/stat; PostgreSQL's and Redis's own not counted) divided by the",
            "requests its access log shows. **CPU × bare** is the bare view's CPU per request",
            "over the page's, in the same round (the range: over the rounds); the goal column",
            "judges it, as it holds steady on a noisy machine. Throughput × bare is the same",
            "with requests a second. Every answer was the page's own: 200, 302 for the step",
            "POST (each changes the GPU count, so each is a write), 201 for the API create (its",
            f"rate limit raised for the one address, `DECIDER_RATE_CREATE={CREATE_RATE}`). The",
            "result page and the report are the edit link's, the PDF the view-only link's,",
            "printed and stored by a Celery worker that is stopped before the runs.",
        ]
    )


def section(results: list[Result], args: argparse.Namespace) -> str:
    lines = [
        SECTION,
        "",
        method(results[0], args),
        "",
        *machine_lines(),
        f"- gunicorn: `{shown_command(results[0].command)}`",
        "",
    ]
    parts = {}
    for result in results:
        title = f"### {DB_NAMES[result.db]}"
        parts[title] = [
            title,
            "",
            f"Measured {result.measured}.",
            "",
            *page_table(result.rows),
            *first_views.table(result.first),
        ]
    if any(r.compared for r in results):
        parts["### Worker classes"] = [
            "### Worker classes",
            "",
            "The result page and the bare view, alternated as above, under each worker setup "
            f"(the compose file has {worker_options(COMPOSE['app']['command'])}). Measured "
            + "; ".join(f"{DB_NAMES[r.db]} {r.compared_measured}" for r in results if r.compared)
            + ".",
            "",
            *workers_table(results),
        ]
    if args.write:
        kept = kept_subsections(set(parts))
        parts |= {title: [text.rstrip("\n")] for title, text in kept.items()}
    for title in sorted(parts, key=lambda t: ORDER.index(t) if t in ORDER else len(ORDER)):
        lines += [*parts[title], ""]
    return "\n".join(lines)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "postgres", "both"), default="both")
    parser.add_argument("--seconds", type=int, default=3, help="per wrk run (whole seconds)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", choices=("sync", "gthread"), default="sync")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--compare-workers", action="store_true", help="sync against gthread")
    parser.add_argument("--page", dest="pages", action="append", help="only pages named so")
    parser.add_argument("--write", action="store_true", help="update docs/BENCHMARKS.md")
    args = parser.parse_args()
    if args.worker_class == "sync" and args.threads > 1:
        parser.error("gunicorn runs gthread workers when sync is given threads: say gthread")
    if not 1 <= args.seconds <= 60 or not 1 <= args.rounds <= 20:
        parser.error("--seconds from 1 to 60, --rounds from 1 to 20")
    return args


def main() -> None:
    args = arguments()
    databases = ("sqlite", "postgres") if args.db == "both" else (args.db,)
    with tempfile.TemporaryDirectory(prefix="bench-pages-") as tmp:
        workdir = Path(tmp)
        results = [database_run(db, args, workdir, workdir / "static") for db in databases]
    report(SECTION, section(results, args), write=args.write)


if __name__ == "__main__":
    main()
