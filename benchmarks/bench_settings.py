"""Settings for the page benchmark (benchmarks/bench_pages.py) only: production's own, with
the benchmark's URL configuration (a bare view beside decider's pages).

gunicorn gets `DJANGO_SETTINGS_MODULE=benchmarks.bench_settings` from the benchmark; nothing
in production names this module or benchmarks/bench_urls.py. Everything else, rate limits
included, comes from the same environment variables as in production (the benchmark raises
`DECIDER_RATE_CREATE` so that the API-create run measures creations, not 429s).
"""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "benchmarks.bench_urls"
