"""WSGI entry point (gunicorn kort_site.wsgi). Refuses to start with debug off and no real
secret key."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kort_site.settings")

application = get_wsgi_application()

from kort_site.checks import require_real_secret  # noqa: E402  (needs configured settings)

require_real_secret()
