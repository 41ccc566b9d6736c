"""KORT Ladder settings, read from the environment.

With no environment at all the service runs on its embedded default: a SQLite file next to
``manage.py`` and Celery tasks run in-process. Production sets at least ``DATABASE_URL``,
``CELERY_BROKER_URL``, ``DJANGO_SECRET_KEY`` and ``DJANGO_ALLOWED_HOSTS``.

| variable | default | meaning |
| --- | --- | --- |
| DJANGO_DEBUG | false | debug pages |
| DJANGO_SECRET_KEY | a development key | 32+ characters; with debug off the web service and the worker refuse to start without it (set but empty counts as not set) |
| DJANGO_SECURE_COOKIES | true with debug off | session and CSRF cookies only over TLS; `false` for plain HTTP |
| SECURE_HSTS_SECONDS | 31536000 with secure cookies, else 0 | Strict-Transport-Security max-age of answers served over TLS (0: no header) |
| SECURE_HSTS_INCLUDE_SUBDOMAINS | false | the HSTS header's `includeSubDomains` |
| SECURE_HSTS_PRELOAD | false | the HSTS header's `preload` |
| DJANGO_SECURE_PROXY_SSL_HEADER | false | trust the proxy's `X-Forwarded-Proto: https` as "served over TLS" (HSTS, secure redirects) |
| DJANGO_ALLOWED_HOSTS | localhost,127.0.0.1 (any host with debug on) | comma-separated |
| DJANGO_CSRF_TRUSTED_ORIGINS | (none) | comma-separated origins, e.g. https://kort.example.org (the admin's login form behind a proxy) |
| DJANGO_SECURE_COOKIES | true (with debug off) | session and CSRF cookies only over TLS; false for plain HTTP |
| DJANGO_LOG_LEVEL | INFO | the root logger's level |
| DATABASE_URL | sqlite:///db.sqlite3 | e.g. postgres://user@host:5432/kort |
| DJANGO_CONN_MAX_AGE | 60 | seconds a database connection is kept for the next request (one per thread); `manage.py runserver` ignores it and keeps none |
| DJANGO_CONN_HEALTH_CHECKS | true | check a kept connection before reusing it |
| DATABASE_TRANSACTION_POOLING | false | `true` behind a PgBouncer in transaction pooling mode: no server-side cursors (docs/scaling.md); set `DJANGO_CONN_MAX_AGE=0` too |
| DATABASE_REPLICA_URL | (none) | a streaming replica of DATABASE_URL: a request's reads go there once it has replayed the primary's writes up to the request's arrival, else to the primary (kort_site.db_router); `connect_timeout` 2 s unless the URL names one |
| CELERY_BROKER_URL | (none: tasks run in-process) | e.g. redis://127.0.0.1:6379/0 |
| KORT_TASK_QUEUE | kort | the Celery queue of the service's tasks |
| KORT_TASK_ROUTES | (none) | a queue per task kind, e.g. `ranking.finalize_match=finalize`; other tasks stay on KORT_TASK_QUEUE |
| KORT_BAVAN_VOTE_SECONDS | 30 | length of every Bavan vote, live and reported (KORT_RULES §4) |
| KORT_SWEEP_SECONDS | 10 | how often Celery beat (with no broker, the development server) runs the sweeper, which queues again the tasks of lost work |
| KORT_SWEEP_GRACE_SECONDS | 5 | work due longer ago than this and not done counts as lost (swept, and listed by `rebuild_ladder`) |
| KORT_RANKED_REQUIRE_PLAY | false | ranked matches require every round's full record (`play`) unless created with `require_play` |
| KORT_MAX_BODY_BYTES | 1048576 | largest request body under /api/; a larger one is a 413 |
| KORT_PLAYER_TOKEN_DAYS | 30 | days a player token minted by `POST /api/v1/players/{id}/token/` stays valid |
| KORT_THROTTLE_ANON | 300/min | requests per client address without a valid credential (`none`: no limit) |
| KORT_THROTTLE_PLAYER | 120/min | requests per player token |
| KORT_THROTTLE_SERVICE | 20000/min | requests per service key |
| KORT_TRUSTED_PROXIES | (none) | the networks of the proxies in front of the service (the one of deploy/nginx.conf.template), whose `X-Forwarded-For` gives the client address; from other peers the header is ignored |
| KORT_CACHE_URL | CELERY_BROKER_URL if Redis, else process memory | the cache that counts requests, e.g. redis://127.0.0.1:6379/1 |
| KORT_SEASON_CHECK_SECONDS | 60 | how often Celery beat looks for a season whose end has come (KORT_RULES §10) |
| KORT_IDEMPOTENCY_HOURS | 24 | how long the first answer to a POST with an `Idempotency-Key` is kept for its repeats |
| KORT_IDEMPOTENCY_PURGE_SECONDS | 3600 | how often Celery beat deletes the idempotency keys older than that |
| KORT_SEASON_RESET_FLOOR | 0 | T of the soft reset that opens a season: cups up to T stay, half of the rest is kept (KORT_RULES §10) |
| KORT_METRICS_ALLOW | 127.0.0.0/8,::1 | the networks whose addresses may read `/metrics` (others get a 403) |
| PROMETHEUS_MULTIPROC_DIR | (none: each process counts alone) | a directory where every web and worker process of a machine writes its metric counts, so `/metrics` adds them up; emptied when gunicorn starts, and when the worker starts (give each its own) |
| KORT_WORKER_METRICS_PORT | (none) | a port on which the Celery worker serves its processes' metrics, e.g. 9100 |
| DJANGO_LOG_FORMAT | text | `json`: one JSON object a line from Django, Celery and gunicorn (kort_site.operations.logs) |
"""  # noqa: E501

import ipaddress
import logging
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import environ
from django.core.exceptions import ImproperlyConfigured

from matches.kort.rules import VOTE_LENGTH_MS

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)

DEV_SECRET_KEY = "insecure-development-key-never-use-in-production"
# An empty DJANGO_SECRET_KEY is a key not set: Django itself would stop at the first read of an
# empty SECRET_KEY with a traceback, before the project's check (kort.E001) could say so.
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="") or DEV_SECRET_KEY
# Serving with debug off and this development key is refused where the service starts:
# kort_site.checks, asked by the WSGI app, the Celery worker and beat (kort_site.celery).

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
    # Before staticfiles, so that kort_site's `runserver` is the one that runs: on the embedded
    # default it also runs the periodic tasks (kort_site.embedded_beat).
    "kort_site",
    "django.contrib.staticfiles",
    "rest_framework",
    # Installed only for the migration that hashed its tokens into players.PlayerToken
    # (players 0006 reads its table); nothing else uses it.
    "rest_framework.authtoken",
    "rest_framework_api_key",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "idempotency",
    "players",
    "seasons",
    "matches",
    "belote",
    "stats",
    "ranking",
    "pages",
]

MIDDLEWARE = [
    "kort_site.client_address.ForwardedClientMiddleware",
    "kort_site.operations.metrics.RequestMetricsMiddleware",
    "kort_site.middleware.ApiEdgesMiddleware",
    "kort_site.db_router.ReplicaReadsMiddleware",
    "kort_site.idempotency.IdempotencyMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "pages.middleware.PagesLocaleMiddleware",
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
RUNSERVER = sys.argv[1:2] == ["runserver"]
"""Whether this is ``manage.py runserver``, the development server."""
# The development server answers each client connection in a thread of its own, which ends with
# it: a connection kept for the thread's next request would never be used again nor closed, and
# a burst of requests would use up PostgreSQL's max_connections. Django's docs say not to keep
# connections there, so it closes each at the end of its request (gunicorn keeps the setting).
DATABASES["default"]["CONN_MAX_AGE"] = (
    0 if RUNSERVER else env.int("DJANGO_CONN_MAX_AGE", default=60)
)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("DJANGO_CONN_HEALTH_CHECKS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite ignores row locks: writers take the database lock when their transaction starts,
    # and wait for it, so concurrent requests queue instead of failing.
    DATABASES["default"]["OPTIONS"] = {"transaction_mode": "IMMEDIATE", "timeout": 20}
if env.str("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = env.db_url("DATABASE_REPLICA_URL")
    DATABASES["replica"]["CONN_MAX_AGE"] = DATABASES["default"]["CONN_MAX_AGE"]
    DATABASES["replica"]["CONN_HEALTH_CHECKS"] = DATABASES["default"]["CONN_HEALTH_CHECKS"]
    # A stopped or unreachable replica costs a request this long before the primary serves it
    # (kort_site.db_router); a connect_timeout in the URL wins.
    DATABASES["replica"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 2)
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}
    DATABASE_ROUTERS = ["kort_site.db_router.ReplicaRouter"]
if env.bool("DATABASE_TRANSACTION_POOLING", default=False):
    # A pooler in transaction mode hands each transaction any server connection: a cursor
    # declared WITH HOLD outside a transaction (QuerySet.iterator()) would be lost. psycopg 3
    # prepares no statement on the server as Django configures it (prepare_threshold None),
    # so nothing else needs turning off (docs/scaling.md).
    for alias in DATABASES:
        DATABASES[alias]["DISABLE_SERVER_SIDE_CURSORS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("ru", "Русский")]
LOCALE_PATHS = [BASE_DIR / "locale"]  # compiled catalogs (.mo) are committed beside the .po
FORMAT_MODULE_PATH = ["kort_site.formats"]  # one date format per language on the pages
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # collectstatic writes each file under a name holding its hash, with gzip copies; WhiteNoise
    # serves those names cached for a year. With debug on, the pages link the plain names.
    "staticfiles": {"BACKEND": "kort_site.static_storage.StaticFilesStorage"},
}
# Until collectstatic has run (it does in the image), WhiteNoise has nothing to serve: not news.
warnings.filterwarnings("ignore", message="No directory at", module="whitenoise.base")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "players.auth.PlayerTokenAuthentication",
        "players.auth.ServiceKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PAGINATION_CLASS": "pagination.NumberedPages",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "kort_site.schema.KortAutoSchema",
    "EXCEPTION_HANDLER": "kort_site.api_errors.exception_handler",
    # Every request counts against one rate: its service key's, its player's or its address's.
    "DEFAULT_THROTTLE_CLASSES": [
        "kort_site.throttles.ServiceKeyRateThrottle",
        "kort_site.throttles.PlayerRateThrottle",
        "kort_site.throttles.AnonymousRateThrottle",
    ],
    # A client is counted under REMOTE_ADDR, which kort_site.client_address sets from the
    # X-Forwarded-For of a trusted proxy only (KORT_TRUSTED_PROXIES).
    "NUM_PROXIES": 0,
    # JSON in and out (API.md "Conventions"): another content type is a 415.
    "DEFAULT_PARSER_CLASSES": ["kort_site.parsers.SafeJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
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
        "MatchStatusEnum": "matches.models.MatchStatus",
    },
}

# Celery: no broker means the embedded default, tasks run in-process at commit time.
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
if CELERY_TASK_ALWAYS_EAGER:
    CELERY_BROKER_URL = "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_DEFAULT_QUEUE = env.str("KORT_TASK_QUEUE", default="kort")
CELERY_TASK_ROUTES = {
    task: {"queue": queue} for task, queue in env.dict("KORT_TASK_ROUTES", default={}).items()
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Time limits. A task takes milliseconds (finalization is a few queries; the guaranteed-Bavan
# search of a bot vote is under 20 ms at the 99th percentile, bench/bavan_search.py), so one
# still running after 10 s is stuck (a lock held elsewhere, a lost database): it is stopped,
# and its work stays overdue until the sweeper queues it again.
CELERY_TASK_TIME_LIMIT = 15
CELERY_TASK_SOFT_TIME_LIMIT = 10
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A worker keeps its database connection between tasks as a web thread does between requests
# (CONN_MAX_AGE, the health checks: kort_site.celery applies them around each task). Without
# this, Celery's Django support closes the connection before and after every task, and each
# task would pay for a new connection and a new PostgreSQL backend.
CELERY_DB_REUSE_MAX = 1_000_000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker whose broker is gone tries again forever (Celery's default gives up after 100 tries,
# about 50 minutes), at most 2 s apart (kort_site.celery.Consumer): it carries on by itself
# within 2 s of the broker being back (API.md "Conventions").
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CONSUMER = "kort_site.celery:Consumer"

KORT_BAVAN_VOTE_SECONDS = env.int("KORT_BAVAN_VOTE_SECONDS", default=VOTE_LENGTH_MS // 1000)
KORT_RANKED_REQUIRE_PLAY = env.bool("KORT_RANKED_REQUIRE_PLAY", default=False)
KORT_MAX_BODY_BYTES = env.int("KORT_MAX_BODY_BYTES", default=1024 * 1024)
KORT_PLAYER_TOKEN_DAYS = env.int("KORT_PLAYER_TOKEN_DAYS", default=30)
if KORT_PLAYER_TOKEN_DAYS < 1:
    raise ImproperlyConfigured("KORT_PLAYER_TOKEN_DAYS must be 1 or more")


def _rate(variable: str, default: str) -> str | None:
    """A request rate from the environment: ``N/s``, ``N/min``, ``N/hour``, ``N/day``, or
    ``none`` (None: no limit). A malformed one stops the start."""
    rate = env.str(variable, default=default).strip().lower()
    if rate == "none":
        return None
    if not re.fullmatch(r"[0-9]+/(s|sec|second|m|min|minute|h|hour|d|day)", rate):
        raise ImproperlyConfigured(f"{variable}: {rate!r} is not a rate like 300/min or none")
    return rate


KORT_THROTTLE_ANON = _rate("KORT_THROTTLE_ANON", "300/min")
KORT_THROTTLE_PLAYER = _rate("KORT_THROTTLE_PLAYER", "120/min")
KORT_THROTTLE_SERVICE = _rate("KORT_THROTTLE_SERVICE", "20000/min")

# The throttles' counts: shared by every web process in production, so that the rates hold
# for the service as a whole (Redis; by default the broker's, when that is Redis), and in
# process memory on the embedded default.
KORT_CACHE_URL = env.str(
    "KORT_CACHE_URL",
    default=CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else "",
)
CACHES: dict[str, dict[str, Any]] = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
if KORT_CACHE_URL:
    CACHES["default"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": KORT_CACHE_URL,
        # A Redis that is gone must not hold a request up: while it cannot be reached the
        # rates count in process memory (kort_site.throttles), so a connection fails fast.
        "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
    }

# Nothing is lost (API.md "Conventions"). A request stores its work first and queues its task on
# commit (delivery.queue); a broker that cannot be reached costs a logged warning, not the
# answer. Celery beat runs the sweeper (delivery.sweep) every KORT_SWEEP_SECONDS: it queues again
# the task of work overdue by more than KORT_SWEEP_GRACE_SECONDS (a completed match not
# finalized, a live vote past its deadline or with bot votes due). So a lost task is redone
# within grace + period (15 s by default) of the broker and a worker being back. With no broker
# there is no beat: `manage.py runserver` runs CELERY_BEAT_SCHEDULE itself
# (kort_site.embedded_beat).
KORT_SWEEP_SECONDS = env.int("KORT_SWEEP_SECONDS", default=10)
KORT_SWEEP_GRACE_SECONDS = env.int("KORT_SWEEP_GRACE_SECONDS", default=5)
KORT_SEASON_CHECK_SECONDS = env.int("KORT_SEASON_CHECK_SECONDS", default=60)
KORT_SEASON_RESET_FLOOR = env.int("KORT_SEASON_RESET_FLOOR", default=0)
if KORT_SEASON_RESET_FLOOR < 0:
    raise ImproperlyConfigured("KORT_SEASON_RESET_FLOOR must be 0 or more (KORT_RULES §10)")
# Idempotency keys (API.md "Conventions"): the first answer to a POST with an Idempotency-Key is
# kept this long for its repeats (kort_site.idempotency); Celery beat deletes the older ones.
KORT_IDEMPOTENCY_HOURS = env.int("KORT_IDEMPOTENCY_HOURS", default=24)
if KORT_IDEMPOTENCY_HOURS < 1:
    raise ImproperlyConfigured("KORT_IDEMPOTENCY_HOURS must be 1 or more")
KORT_IDEMPOTENCY_PURGE_SECONDS = env.int("KORT_IDEMPOTENCY_PURGE_SECONDS", default=3600)
CELERY_BEAT_SCHEDULE = {
    # Celery beat looks for a season whose end has come (KORT_RULES §10).
    "end-due-seasons": {"task": "ranking.end_due_seasons", "schedule": KORT_SEASON_CHECK_SECONDS},
    "sweep": {
        "task": "kort_site.sweep",
        "schedule": KORT_SWEEP_SECONDS,
        # A sweep no worker took before the next one is due is dropped, not piled up.
        "options": {"expires": KORT_SWEEP_SECONDS},
    },
    "purge-idempotency-keys": {
        "task": "kort_site.purge_idempotency_keys",
        "schedule": KORT_IDEMPOTENCY_PURGE_SECONDS,
        "options": {"expires": KORT_IDEMPOTENCY_PURGE_SECONDS},
    },
}
# Publishing fails fast: two more tries 0.2 s apart and a 2 s connection timeout, so a request
# whose broker is down answers at once (about 3 s at most for a broker that never answers), and
# its work is swept later.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # Redis hands a message that a worker took and never acknowledged (the worker died) to
    # another worker once it is visibility_timeout old, looked for every unacked_restore_interval
    # seconds (the defaults, an hour looked for about every 100 s, are why a killed worker's task
    # waited an hour). A live message stays unacknowledged for its countdown (a vote's deadline
    # task waits the whole vote) plus its run (at most the hard time limit), so the timeout is
    # those plus 5 s, 50 s by default: anything shorter would hand out running tasks twice. The
    # sweeper redoes a dead worker's work sooner than that; this brings back the message itself.
    # The socket timeouts (2 s to connect, 3 s for an answer) keep a publish from waiting on a
    # broker that is gone without closing its connections.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": KORT_BAVAN_VOTE_SECONDS + CELERY_TASK_TIME_LIMIT + 5,
        "unacked_restore_interval": 5,
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 2,
        "socket_timeout": 3,
    }

if not DEBUG:
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    # Strict-Transport-Security on every answer served over TLS (SecurityMiddleware sends it
    # only then), on by default wherever the cookies are kept to TLS.
    SECURE_HSTS_SECONDS = env.int(
        "SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if SESSION_COOKIE_SECURE else 0
    )
    # The domain's other hosts and the browsers' preload list are the operator's to decide.
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
    SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
if env.bool("DJANGO_SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Redirecting plain HTTP to HTTPS is the TLS proxy's job, not the service's: the API never
# redirects (API.md "Conventions") and health checks reach it over plain HTTP. So the deploy
# check's advice to set SECURE_SSL_REDIRECT is silenced (docs/production.md, "Behind TLS").
SILENCED_SYSTEM_CHECKS = ["security.W008"]

# Content-Security-Policy on every answer (django-csp): scripts, styles, images and fonts of
# this site only, and no inline script or style, so an injected tag runs nothing. The pages,
# the admin and the API docs (drf-spectacular's split Swagger view) load theirs from files.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}


def _networks(variable: str, default: list[str]) -> tuple:
    """A comma list of networks (``10.0.0.0/8``) or addresses from the environment; a
    malformed one stops the start."""
    try:
        return tuple(
            ipaddress.ip_network(n.strip(), strict=False)
            for n in env.list(variable, default=default)
        )
    except ValueError as error:
        raise ImproperlyConfigured(f"{variable}: {error}") from None


# The proxies whose X-Forwarded-For names the client (kort_site.client_address): none unless told.
KORT_TRUSTED_PROXIES = _networks("KORT_TRUSTED_PROXIES", [])

# Who may read /metrics (API.md "Operating the service"): the loopback unless told otherwise.
KORT_METRICS_ALLOW = _networks("KORT_METRICS_ALLOW", ["127.0.0.0/8", "::1"])
KORT_WORKER_METRICS_PORT = env.int("KORT_WORKER_METRICS_PORT", default=None)

# prometheus-client's multiprocess mode (kort_site.operations.metrics): each process writes its
# counts there from its first metric on, so the directory must exist before any process starts.
if env.str("PROMETHEUS_MULTIPROC_DIR", default=""):
    Path(env.str("PROMETHEUS_MULTIPROC_DIR")).mkdir(parents=True, exist_ok=True)

DJANGO_LOG_FORMAT = env.str("DJANGO_LOG_FORMAT", default="text")
if DJANGO_LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"DJANGO_LOG_FORMAT: {DJANGO_LOG_FORMAT!r} is not text or json")
if DJANGO_LOG_FORMAT == "json":
    logging.captureWarnings(True)  # a Python warning is a log line too, not a line of text
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "kort_site.operations.logs.JsonFormatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            **({"formatter": "json"} if DJANGO_LOG_FORMAT == "json" else {}),
        }
    },
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
if CELERY_TASK_ALWAYS_EAGER:  # in-process tasks would log a line each
    LOGGING["loggers"] = {
        "celery.app.trace": {"level": "WARNING"},
        "kort_site.tasks": {"level": "WARNING"},
    }
elif DJANGO_LOG_FORMAT == "json":  # a task's line comes from kort_site.tasks, with its fields
    LOGGING["loggers"] = {"celery.app.trace": {"level": "WARNING"}}
