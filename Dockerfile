# The production image: the app under gunicorn, static files served by whitenoise.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DECIDER_CHROMIUM_PATH=/usr/bin/chromium
# Debian's Chromium renders the PDF report; the CJK fonts make Chinese print, and
# the build fails if fontconfig (how the app checks) finds no Chinese font.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fontconfig fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/* \
    && fc-list :lang=zh | grep -q .

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN DJANGO_DEBUG=false DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home decider
USER decider
EXPOSE 8000
# Migrations run once, before the app starts (the compose "migrate" service; with plain
# `docker run`: `docker run --rm IMAGE sh -c "python manage.py migrate && python manage.py
# load_defaults"`). The worker is the same image: `celery --app=config worker`.
CMD ["gunicorn", "config.wsgi:application", "--bind=0.0.0.0:8000", "--workers=3", "--timeout=60", "--access-logfile=-", "--logger-class=decider.logs.GunicornLogger"]
