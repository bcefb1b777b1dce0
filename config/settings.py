"""One settings module, read from environment variables.

DEBUG is off unless DJANGO_DEBUG=true (`make run` sets it; development then gets
SQLite and a dev secret key). Without DEBUG the process refuses to start without
DJANGO_SECRET_KEY and turns on the HTTPS hardening that `check --deploy` asks for.
"""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


# Off unless asked for: `make run` sets DJANGO_DEBUG=true, production never has to.
DEBUG = envbool("DJANGO_DEBUG", False)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false "
            "(for development, set DJANGO_DEBUG=true, as `make run` does)."
        )
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = envlist("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "csp",
    "simple_history",
    "decider",
]

MIDDLEWARE = [
    # /healthz answers whatever the Host header is (see decider/middleware.py).
    "decider.middleware.HealthCheckMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Django's CsrfViewMiddleware, accepting the `Origin: null` of no-referrer pages.
    "decider.middleware.NoReferrerCsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A request past its time budget (decider/budget.py) answers 503 and frees the worker.
    "decider.middleware.TimeBudgetMiddleware",
    # A request over a rate limit (decider/limits.py) gets decider.views.rate_limited: 429.
    "django_ratelimit.middleware.RatelimitMiddleware",
    # A lost database connection: GETs tried once more, else 503 with Retry-After.
    "decider.middleware.DatabaseAwayMiddleware",
    # Records who made each change to rules and figures (admin inlines included).
    "simple_history.middleware.HistoryRequestMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "decider.context_processors.preferences",
            ],
        },
    },
]

# Django's form renderer, with plain inputs and radio options drawn without a template each
# (decider/renderers.py): the same markup, a fraction of a step page's time.
FORM_RENDERER = "decider.renderers.FormRenderer"

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Write-ahead logging: a save appends to the log instead of writing a rollback journal
    # beside the file (a fifth less server CPU per step saved, benchmarks/bench_pages.py),
    # and pages read while another request writes. Every commit is still synced to disk
    # (synchronous=FULL): nothing a user saved is lost with the power. IMMEDIATE: a
    # transaction takes the write lock when it begins, so concurrent saves wait their turn
    # (up to the timeout) rather than fail on a lock they cannot upgrade.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        transaction_mode="IMMEDIATE",
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Tokens that grant access to assessments are kept in the visitor's signed
# cookie, not in a session table, so a database leak reveals no working link.
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_AGE = 60 * 60 * 24 * 365
SESSION_COOKIE_HTTPONLY = True

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# Everything is served from our own origin: no CDN, no third party.
# Plotly writes inline style attributes and a <style> element, hence the
# 'unsafe-inline' for styles only; scripts stay 'self'.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, "'unsafe-inline'"],
        "img-src": [SELF, "data:"],
        "font-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Opt-in: trusting X-Forwarded-Proto is safe only when a proxy that sets it is the app's one
# way in (docker-compose.yml). Otherwise any client could claim HTTPS.
if envbool("DJANGO_SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

if not DEBUG:
    # Production sits behind a TLS-terminating proxy (see docs/OPERATIONS.md, Deployment).
    SECURE_SSL_REDIRECT = envbool("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = envint("DJANGO_SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    # Preload lists are hard to leave again: the domain's owner opts in.
    SECURE_HSTS_PRELOAD = envbool("DJANGO_SECURE_HSTS_PRELOAD", False)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # The health check answers plain HTTP from inside the container network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# What an operator needs: PDF failures with the page's errors, save contention,
# rule sets refused or missing, impact preview timings. Never a link token.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {
            "()": "decider.logs.RedactingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        }
    },
    "filters": {
        "redact_links": {"()": "decider.logs.RedactLinks"},
        "cache_unreachable": {"()": "decider.logs.CacheUnreachable"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["redact_links"],
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("DJANGO_LOG_LEVEL", "INFO")},
    "loggers": {
        # Django logs request paths (404s, 5xx, runserver lines): the filter sits on the
        # loggers so that every handler gets the redacted record.
        "django": {"handlers": [], "propagate": True},
        "django.request": {"filters": ["redact_links"]},
        "django.server": {"filters": ["redact_links"]},
        # django-redis, as DJANGO_REDIS_LOGGER names it: Redis away is one warning a call.
        "decider.caching": {"filters": ["cache_unreachable"]},
    },
}

# Where the server-side PDF renderer finds Debian's Chromium.
CHROMIUM_PATH = os.environ.get("DECIDER_CHROMIUM_PATH", "/usr/bin/chromium")

# A second pair of eyes (issue 35): a draft rule set is published only by someone other
# than its last editor. Off by default (one admin alone can publish); on in docker-compose.yml.
DECIDER_PUBLISH_REVIEW = envbool("DECIDER_PUBLISH_REVIEW", False)

# security.W003 looks for Django's CsrfViewMiddleware by name; ours is a subclass
# (decider/middleware.py), and tests/test_sharing.py checks that it refuses forged posts.
SILENCED_SYSTEM_CHECKS = ["security.W003"]
# security.W021 asks for HSTS preload, a commitment only the domain's owner can make
# (docs/OPERATIONS.md, Deployment): silent while DJANGO_SECURE_HSTS_PRELOAD is not set.
if not DEBUG and not SECURE_HSTS_PRELOAD:
    SILENCED_SYSTEM_CHECKS.append("security.W021")

# Caches: Redis when REDIS_URL is set (production: shared by every worker, so the rate limits
# hold across them), local memory otherwise. Redis is a cache, never a store: with it away
# every read is a miss and every write is dropped, with a log line (django-redis's
# IGNORE_EXCEPTIONS), so pages and saves work on; the rate limits then let requests through
# (RATELIMIT_FAIL_OPEN) and /healthz says the cache is degraded.
# `scored` keeps what a saved result shows and the current rule books (decider/caching.py).
REDIS_OPTIONS = {"IGNORE_EXCEPTIONS": True, "SOCKET_CONNECT_TIMEOUT": 0.5, "SOCKET_TIMEOUT": 0.5}
DJANGO_REDIS_LOG_IGNORED_EXCEPTIONS = True
DJANGO_REDIS_LOGGER = "decider.caching"
if REDIS_URL := os.environ.get("REDIS_URL", ""):
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": REDIS_OPTIONS,
        },
        "scored": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "scored",
            "OPTIONS": REDIS_OPTIONS,
        },
    }
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        "scored": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "scored",
            "OPTIONS": {"MAX_ENTRIES": 2000},
        },
    }

# Rate limits per client (decider/limits.py); DECIDER_RATELIMIT=false turns them off.
RATELIMIT_ENABLE = envbool("DECIDER_RATELIMIT", True)
RATELIMIT_VIEW = "decider.views.rate_limited"
RATELIMIT_FAIL_OPEN = True  # the counters' cache unreachable: let requests through
RATELIMIT_IP_META_KEY = "decider.limits.client_ip"
DECIDER_BEHIND_PROXY = envbool("DECIDER_BEHIND_PROXY", False)
DECIDER_RATES = {
    "create": os.environ.get("DECIDER_RATE_CREATE", "60/h"),  # new assessments per client
    "pdf": os.environ.get("DECIDER_RATE_PDF", "30/10m"),  # PDF renders started per client
    "login": os.environ.get("DECIDER_RATE_LOGIN", "10/5m"),  # admin sign-in attempts
}

# Jobs (config/celery.py, decider/tasks.py): Celery on Redis when CELERY_BROKER_URL is set;
# without one (`make run`, the tests) every job runs inline, in the request that asks for it.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("DECIDER_QUEUE", "decider")
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
# Inline jobs still take a producer from the pool: in memory, never a broker on localhost.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://"
CELERY_TASK_EAGER_PROPAGATES = True
# A job is acknowledged when it is done, not when it is taken: a worker killed mid-job
# leaves it to the next worker (at once when a pool process dies; after the visibility
# timeout when the whole worker does).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": envint("DECIDER_JOB_REDELIVER_S", 120)}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}
# Jobs write what they make to the database; nobody reads Celery results.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = 300
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_WORKER_MAX_TASKS_PER_CHILD = 500
# Retention (`manage.py prune`), run by the scheduler service (celery beat).
CELERY_BEAT_SCHEDULE = {
    "prune": {"task": "decider.tasks.prune", "schedule": envint("DECIDER_PRUNE_EVERY_S", 6 * 3600)}
}
# The daily price import (manage.py refresh_prices, docs/PROVIDERS.md): off unless its
# sources are named, "azure,skypilot:aws,skypilot:lambda,gpuhunt:lambdalabs"; each run's
# changes wait in the admin for a publisher.
DECIDER_PRICE_REFRESH = [
    entry.strip()
    for entry in os.environ.get("DECIDER_PRICE_REFRESH", "").split(",")
    if entry.strip()
]
if DECIDER_PRICE_REFRESH:
    CELERY_BEAT_SCHEDULE["refresh-prices"] = {
        "task": "decider.tasks.refresh_prices",
        "schedule": envint("DECIDER_PRICE_REFRESH_EVERY_S", 24 * 3600),
    }
# Chromium renders at once across every worker (a slot each in the shared cache).
DECIDER_PDF_RENDERS = envint("DECIDER_PDF_RENDERS", 2)
# The deployment's own address (https://decider.example.com): links printed in a PDF (the
# method page) point there; unset, a PDF carries no link into the app.
DECIDER_SITE_URL = os.environ.get("DECIDER_SITE_URL", "").rstrip("/")
# Retention (manage.py prune, on the scheduler's clock): an assessment none of whose links was
# opened, and that nobody saved, for this many days is removed; 0 keeps every one.
DECIDER_KEEP_ASSESSMENT_DAYS = envint("DECIDER_KEEP_ASSESSMENT_DAYS", 365)
# Seconds a request may compute before it is stopped with a clear 503 (decider/budget.py):
# well inside gunicorn's --timeout (60 in compose), which would kill the worker instead.
DECIDER_REQUEST_BUDGET_S = envint("DECIDER_REQUEST_BUDGET_S", 20)

# Errors to Sentry when SENTRY_DSN is set (decider/observability.py: tokens scrubbed).
if SENTRY_DSN := os.environ.get("SENTRY_DSN", ""):
    from decider.observability import sentry_init

    sentry_init(SENTRY_DSN, environment=os.environ.get("SENTRY_ENVIRONMENT", "production"))
