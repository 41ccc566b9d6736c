"""KORT Ladder settings, read from the environment.

With no environment at all the service runs on its embedded default: a SQLite file next to
``manage.py`` and Celery tasks run in-process. Production sets at least ``DATABASE_URL``,
``CELERY_BROKER_URL``, ``DJANGO_SECRET_KEY`` and ``DJANGO_ALLOWED_HOSTS``.

| variable | default | meaning |
| --- | --- | --- |
| DJANGO_DEBUG | false | debug pages |
| DJANGO_SECRET_KEY | a development key | 32+ characters; with debug off the web service and the worker refuse to start without it |
| DJANGO_ALLOWED_HOSTS | localhost,127.0.0.1 (any host with debug on) | comma-separated |
| DATABASE_URL | sqlite:///db.sqlite3 | e.g. postgres://user@host:5432/kort |
| CELERY_BROKER_URL | (none: tasks run in-process) | e.g. redis://127.0.0.1:6379/0 |
| KORT_TASK_QUEUE | kort | the Celery queue of the service's tasks |
| KORT_BAVAN_VOTE_SECONDS | 30 | length of a live Bavan vote (KORT_RULES §4) |
| KORT_RANKED_REQUIRE_PLAY | false | ranked matches require every round's full record (`play`) unless created with `require_play` |
| KORT_SEASON_CHECK_SECONDS | 60 | how often Celery beat looks for a season whose end has come (KORT_RULES §10) |
| KORT_SEASON_RESET_FLOOR | 0 | T of the soft reset that opens a season: cups up to T stay, half of the rest is kept (KORT_RULES §10) |
"""  # noqa: E501

import warnings
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from matches.kort.rules import VOTE_LENGTH_MS

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)

DEV_SECRET_KEY = "insecure-development-key-never-use-in-production"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=DEV_SECRET_KEY)
# Serving with debug off and this development key is refused where the service starts:
# kort_site.checks.require_real_secret, called by the WSGI app and the Celery worker.

ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS", default=["*"] if DEBUG else ["localhost", "127.0.0.1"]
)
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "rest_framework_api_key",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "kort_site",
    "players",
    "seasons",
    "matches",
    "belote",
    "stats",
    "ranking",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "kort_site.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "kort_site.wsgi.application"

DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite ignores row locks: writers take the database lock when their transaction starts,
    # and wait for it, so concurrent requests queue instead of failing.
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Until collectstatic has run (it does in the image), WhiteNoise has nothing to serve: not news.
warnings.filterwarnings("ignore", message="No directory at", module="whitenoise.base")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.auth.PlayerTokenAuthentication",
        "players.auth.ServiceKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "kort_site.api_errors.exception_handler",
    "DEFAULT_PARSER_CLASSES": [
        "kort_site.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "KORT Ladder API",
    "DESCRIPTION": "Ranked ladder for KORT (Court Piece, Rang, Hokm) and a Bazar Belote scorer.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Bazar Belote: one enum for the sheet's columns, one for the roles in a deal; KORT: one for
    # the team choices, which winners, shutout teams and voting teams share.
    "ENUM_NAME_OVERRIDES": {
        "BeloteSheetPairEnum": ["pair_1", "pair_2"],
        "BeloteRoleEnum": ["playing", "whisting"],
        "TeamEnum": "matches.fields.TEAM_CHOICES",
    },
}

# Celery: no broker means the embedded default, tasks run in-process at commit time.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if CELERY_TASK_ALWAYS_EAGER:
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_DEFAULT_QUEUE = env.str("KORT_TASK_QUEUE", default="kort")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_TIME_LIMIT = 120
CELERY_TASK_SOFT_TIME_LIMIT = 100
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

KORT_BAVAN_VOTE_SECONDS = env.int("KORT_BAVAN_VOTE_SECONDS", default=VOTE_LENGTH_MS // 1000)
KORT_RANKED_REQUIRE_PLAY = env.bool("KORT_RANKED_REQUIRE_PLAY", default=False)
KORT_SEASON_CHECK_SECONDS = env.int("KORT_SEASON_CHECK_SECONDS", default=60)
KORT_SEASON_RESET_FLOOR = env.int("KORT_SEASON_RESET_FLOOR", default=0)
if KORT_SEASON_RESET_FLOOR < 0:
    raise ImproperlyConfigured("KORT_SEASON_RESET_FLOOR must be 0 or more (KORT_RULES §10)")
# Celery beat (`celery -A kort_site beat`) looks for a season whose end has come.
CELERY_BEAT_SCHEDULE = {
    "end-due-seasons": {"task": "ranking.end_due_seasons", "schedule": KORT_SEASON_CHECK_SECONDS},
}

if not DEBUG:
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
if CELERY_TASK_ALWAYS_EAGER:  # in-process tasks would log a line each
    LOGGING["loggers"] = {"celery.app.trace": {"level": "WARNING"}}
