# The buffering proxy in front of the web service (compose.yaml's proxy, `--target proxy`):
# Debian's nginx, its configuration filled in from the environment as it starts, every file
# under /tmp/nginx; its workers run as nobody.
FROM debian:bookworm-slim AS proxy

RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx gettext-base \
    && rm -rf /var/lib/apt/lists/*
COPY deploy/nginx.conf.template deploy/nginx-conf /etc/kort/

EXPOSE 8080
CMD ["sh", "-c", "mkdir -p /tmp/nginx && /etc/kort/nginx-conf > /tmp/nginx/nginx.conf && exec nginx -p /tmp/nginx/ -c nginx.conf -e stderr"]

# One image for the web service, the Celery worker and beat; they differ only in their command.
# The last stage: what `docker build .` builds.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# gettext compiles the pages' translations (locale/) during the build.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# The translations are compiled and the static files (admin, API docs, the pages' styles and
# chart) collected at build time; WhiteNoise serves them.
RUN python manage.py compilemessages \
    && python manage.py collectstatic --noinput \
    && useradd --system --create-home kort \
    && chown -R kort /app

USER kort
# 8000: the web service; 9100: the worker's metrics (KORT_WORKER_METRICS_PORT, compose.yaml).
EXPOSE 8000 9100

# With DJANGO_DEBUG off (the default) gunicorn, the worker and beat refuse to start without
# DJANGO_SECRET_KEY: see compose.yaml for the variables production sets. gunicorn.conf.py:
# threaded workers with keep-alive, one process per core (a container's CPU quota is not seen
# there: set GUNICORN_WORKERS), 4 threads each.
CMD ["gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"]
