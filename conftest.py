"""Test fixtures shared by the whole suite: a service key, a fixed cast of four players (team A
= seats 0 and 2, team B = seats 1 and 3) and API clients that run on-commit callbacks, so the
finalization task runs as it does in production (in-process unless a test asks for a worker);
for the admins, a staff client and a finalized ranked match.
"""

import os
import shutil

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import override_settings
from hypothesis import settings as hypothesis_settings
from rest_framework.test import APIClient
from rest_framework_api_key.models import APIKey

from kort_site.celery import app as celery_app
from matches.models import Match
from players.services import player_create
from tests.served import PROXY_PROGRAMS

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# Property tests judge rules, not speed: no per-example deadline (a busy machine is no bug),
# and in CI a fixed sequence of examples, so a run can be repeated exactly.
hypothesis_settings.register_profile("kort", deadline=None, derandomize=IN_CI, print_blob=True)
hypothesis_settings.load_profile("kort")


SERVICES = {
    "postgres": ("DATABASE_URL", ("postgres://", "postgresql://")),
    "worker": ("CELERY_BROKER_URL", ("redis://", "amqp://", "pyamqp://")),
}
PROGRAMS = {
    "browser": ("/usr/bin/chromium", "/usr/bin/chromedriver"),
    "gettext": ("msgfmt",),
    "redis": ("redis-server",),
    "proxy": PROXY_PROGRAMS,
}
"""The programs a marker needs: Debian's Chromium and its driver, gettext's compiler, Redis,
Debian's nginx and envsubst.
``cluster`` needs PostgreSQL's server programs and PgBouncer (``tests.pgcluster``)."""


def _missing_services(keywords) -> list[str]:
    missing = []
    for marker, (variable, schemes) in SERVICES.items():
        wanted = marker in keywords or (marker == "postgres" and "worker" in keywords)
        if wanted and not os.environ.get(variable, "").startswith(schemes):
            missing.append(f"{variable} ({' or '.join(schemes)})")
    for marker, programs in PROGRAMS.items():
        if marker in keywords:
            missing.extend(program for program in programs if shutil.which(program) is None)
    if "cluster" in keywords:
        from tests.pgcluster import missing_programs

        missing.extend(missing_programs())
    return missing


def pytest_collection_modifyitems(config, items):
    """Tests marked ``postgres`` or ``worker`` need PostgreSQL, or a broker and a real Celery
    worker; ``browser`` and ``gettext`` need programs (:data:`PROGRAMS`). Elsewhere they are
    skipped; in CI a missing service stops the run loudly."""
    for item in items:
        missing = _missing_services(item.keywords)
        if not missing:
            continue
        if IN_CI:
            raise pytest.UsageError(f"CI runs every test; {item.nodeid} needs {', '.join(missing)}")
        item.add_marker(pytest.mark.skip(reason=f"needs {', '.join(missing)}"))


@pytest.fixture(autouse=True, scope="session")
def _no_request_rates():
    """No request is throttled unless its test sets the rates it checks (API.md "Throttling")."""
    with override_settings(
        KORT_THROTTLE_ANON=None, KORT_THROTTLE_PLAYER=None, KORT_THROTTLE_SERVICE=None
    ):
        yield


@pytest.fixture(autouse=True, scope="session")
def _static_files_as_found():
    """The pages link their static files by their plain names, found in the apps: the tests
    need no ``collectstatic`` (production's hashed names come from it)."""
    plain = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    with override_settings(STORAGES={**settings.STORAGES, "staticfiles": plain}):
        yield


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """On SQLite the test database is a file, as the embedded default's is, not one in-memory
    connection: the live server's request threads (browser tests) then each open their own
    connection, and SQLite queues their writers, instead of sharing one connection."""
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        test_file = tmp_path_factory.mktemp("database") / "test.sqlite3"
        database.setdefault("TEST", {})["NAME"] = str(test_file)


@pytest.fixture(autouse=True)
def _tasks_in_process(request):
    """Run Celery tasks in-process, except in tests that use the real worker."""
    eager = "worker" not in request.keywords
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = eager
    yield
    celery_app.conf.task_always_eager = previous


class Api:
    """An API client for tests: ``api.post(path, body)`` returns the response; on-commit
    callbacks (queued tasks) run when the request's transaction commits."""

    def __init__(self, client, capture):
        self.client = client
        self._capture = capture

    def _call(self, method, path, body=None, **kwargs):
        with self._capture(execute=True):
            return getattr(self.client, method)(path, body, format="json", **kwargs)

    def get(self, path, params=None):
        return self._call("get", path, params)

    def post(self, path, body=None):
        return self._call("post", path, body)

    def delete(self, path):
        return self._call("delete", path)

    def as_service(self, key: str) -> "Api":
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Api-Key {key}")
        return Api(client, self._capture)

    def as_player(self, token: str) -> "Api":
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return Api(client, self._capture)


@pytest.fixture
def api(db, django_capture_on_commit_callbacks):
    """An anonymous client (public reads)."""
    return Api(APIClient(), django_capture_on_commit_callbacks)


@pytest.fixture
def service_key(db) -> str:
    _, key = APIKey.objects.create_key(name="game-server")
    return key


@pytest.fixture
def service(api, service_key) -> Api:
    """A client acting as a game server."""
    return api.as_service(service_key)


@pytest.fixture
def cast(db):
    """Four human players: seats 0..3 of a match in this order (Amir, Bita, Cyrus, Dara)."""
    return [
        player_create(username=name.lower(), display_name=name)
        for name in ("Amir", "Bita", "Cyrus", "Dara")
    ]


@pytest.fixture
def staff(client, db):
    """A Django test client logged in to the admin as a superuser."""
    admin = get_user_model().objects.create_superuser("root", "root@example.org", "pw")
    client.force_login(admin)
    return client


@pytest.fixture
def finalized_ranked(service, cast):
    """A ranked match won 3:0 by team A with three plain wins, finalized."""
    ids = [p.id for p in cast]
    match_id = service.post(
        "/api/v1/matches/", {"mode": "ranked", "seats": ids, "first_trump_seat": 0}
    ).data["id"]
    for number in (1, 2, 3):
        service.post(
            f"/api/v1/matches/{match_id}/rounds/",
            {"number": number, "trump_seat": 0, "tricks": {"A": 7, "B": 2}},
        )
    return Match.objects.get(pk=match_id)
