"""A real Celery worker process for integration tests, on the test database and a queue of its
own (so tasks left over from other runs never reach it)."""

import os
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager

from django.db import connection

from kort_site.celery import app as celery_app

READY_SECONDS = 30


def _test_database_url() -> str:
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(*, beat: bool = False, **extra_env: str):
    """Run ``celery -A kort_site worker`` against the test database until the block ends; with
    ``beat``, Celery beat runs in the same process (``-B``, its schedule file in a temporary
    directory).

    Raises:
        RuntimeError: the worker did not answer a ping within 30 s (its output is included).
    """
    queue = f"kort-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "KORT_TASK_QUEUE": queue,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),
        "DJANGO_CONN_MAX_AGE": "0",
        **extra_env,
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "kort_site",
        "worker",
        "-Q",
        queue,
        "-c",
        "1",
        "-n",
        f"{queue}@%h",
        "-l",
        "info",
        "--without-mingle",
        "--without-gossip",
    ]
    schedule = tempfile.TemporaryDirectory()
    if beat:
        command += ["-B", "-s", os.path.join(schedule.name, "celerybeat-schedule")]
    worker = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    previous_queue = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    try:
        _wait_until_ready(worker, f"{queue}@")
        yield worker
    finally:
        celery_app.conf.task_default_queue = previous_queue
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
        schedule.cleanup()


def _wait_until_ready(worker: subprocess.Popen, name_prefix: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited:\n{worker.stdout.read()}")
        replies = celery_app.control.ping(timeout=0.5) or []
        if any(name.startswith(name_prefix) for reply in replies for name in reply):
            return
    worker.terminate()
    raise RuntimeError(f"the Celery worker did not start in time:\n{worker.communicate()[0]}")
