# One image for the web service, the Celery worker and beat; they differ only in their command.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# Static files (admin, API docs) are collected at build time and served by WhiteNoise.
RUN python manage.py collectstatic --noinput \
    && useradd --system --create-home kort \
    && chown -R kort /app

USER kort
EXPOSE 8000

# With DJANGO_DEBUG off (the default) gunicorn and the worker refuse to start without
# DJANGO_SECRET_KEY: see compose.yaml for the variables production sets.
CMD ["gunicorn", "kort_site.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
