"""Real processes for integration tests: a Celery worker on the test database and a queue of its
own (so tasks left over from other runs never reach it), with Celery beat if asked, and a
private Redis to break and mend (API.md "Nothing is lost")."""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager, suppress

import kombu.pools
from django.db import connection

from kort_site.celery import app as celery_app

READY_SECONDS = 30
NO_PERSISTENCE = ("--save", "", "--appendonly", "no")


def database_url() -> str:
    """The URL of the test database, for processes and connections of the test's own."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@contextmanager
def celery_worker(*, broker_url: str | None = None, beat: bool = False, **extra_env: str):
    """Run ``celery -A kort_site worker`` against the test database until the block ends.

    ``broker_url`` (default: the settings' broker) is the worker's broker, and the test
    process publishes to it meanwhile (:func:`publishing_to`). ``beat`` runs Celery beat in the
    worker (``-B``), so the sweeper runs every ``KORT_SWEEP_SECONDS``. ``extra_env`` adds to
    the worker's environment. The worker leads a process group of its own (its pool and beat),
    which :func:`kill_hard` kills at once; its output goes to a file (:func:`worker_output`).
    One pool process, without mingle and gossip.

    Raises:
        RuntimeError: the worker did not answer a ping within 30 s (its output is included).
    """
    with _worker(broker_url, beat, False, extra_env) as worker:
        yield worker


@contextmanager
def readme_worker(*, broker_url: str | None = None, beat: bool = False, **extra_env: str):
    """:func:`celery_worker` as docs/production.md's command runs it: two pool processes,
    with mingle and gossip."""
    with _worker(broker_url, beat, True, extra_env) as worker:
        yield worker


@contextmanager
def _worker(broker_url: str | None, beat: bool, as_readme: bool, extra_env: dict[str, str]):
    queue = f"kort-test-{uuid.uuid4().hex[:8]}"
    broker_url = broker_url or celery_app.conf.broker_write_url
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": broker_url,
        "KORT_TASK_QUEUE": queue,
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),
        "DJANGO_CONN_MAX_AGE": "0",
        **extra_env,
    }
    command = [sys.executable, "-m", "celery", "-A", "kort_site", "worker", "-Q", queue]
    command += ["-n", f"{queue}@%h", "-l", "info"]
    if as_readme:
        command += ["--concurrency", "2"]
    else:
        command += ["-c", "1", "--without-mingle", "--without-gossip"]
    with (
        tempfile.TemporaryDirectory() as scratch,
        publishing_to(broker_url),
        open(os.path.join(scratch, "output"), "w") as output,
    ):
        if beat:
            command += ["-B", "-s", os.path.join(scratch, "beat-schedule")]
        worker = subprocess.Popen(
            command,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        worker.output_path = output.name  # type: ignore[attr-defined]
        previous_queue = celery_app.conf.task_default_queue
        celery_app.conf.task_default_queue = queue
        try:
            _wait_until_ready(worker, f"{queue}@")
            yield worker
        except BaseException:
            _stop(worker)
            print(f"The Celery worker's output:\n{worker_output(worker)}")  # shown on failure
            raise
        finally:
            celery_app.conf.task_default_queue = previous_queue
            _stop(worker)


def kill_hard(worker: subprocess.Popen) -> None:
    """``kill -9`` the worker, its pool and its beat at once, as when its machine dies: nothing
    is acknowledged or handed back to the broker."""
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()


def _stop(worker: subprocess.Popen) -> None:
    worker.terminate()
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
    with suppress(ProcessLookupError):  # what of its group outlived it (none, normally)
        os.killpg(worker.pid, signal.SIGKILL)


def _wait_until_ready(worker: subprocess.Popen, name_prefix: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError(f"the Celery worker exited:\n{worker_output(worker)}")
        replies = celery_app.control.ping(timeout=0.5) or []
        if any(name.startswith(name_prefix) for reply in replies for name in reply):
            return
    _stop(worker)
    raise RuntimeError(f"the Celery worker did not start in time:\n{worker_output(worker)}")


def worker_output(worker: subprocess.Popen) -> str:
    """What the worker of :func:`celery_worker` has written so far (a file, not a pipe, so a
    worker that writes a lot never waits for a reader)."""
    with open(worker.output_path) as written:  # type: ignore[attr-defined]
        return written.read()


@contextmanager
def publishing_to(broker_url: str):
    """Make the test process publish its tasks (and pings) to ``broker_url`` until the block
    ends, then to the settings' broker again."""
    previous = celery_app.conf.get("broker_write_url")
    celery_app.conf["broker_write_url"] = broker_url
    _connections_drop()
    try:
        yield
    finally:
        celery_app.conf["broker_write_url"] = previous
        _connections_drop()


@contextmanager
def broker_unreachable():
    """Until the block ends, tasks are published (not run in-process) to a broker address where
    nothing listens, so every publish fails as when the broker is down."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        with publishing_to(f"redis://127.0.0.1:{free_port()}/0"):
            yield
    finally:
        celery_app.conf.task_always_eager = previous


def free_port() -> int:
    """A TCP port of 127.0.0.1 nothing listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _connections_drop() -> None:
    # The app keeps its connections to the broker it first published to in pools; with them
    # closed and forgotten it connects afresh to the broker configured now, as after a fork.
    kombu.pools.reset()
    celery_app._pool = None  # type: ignore[attr-defined]
    celery_app.amqp._producer_pool = None  # type: ignore[attr-defined]


class RedisServer:
    """A ``redis-server`` of the test's own on a free port, keeping nothing on disk.
    :meth:`stop` kills it (the broker is down, and every message in it is lost); :meth:`start`
    brings it back, empty, on the same port."""

    def __init__(self):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen | None = None

    def start(self) -> None:
        """Start the server and wait until it answers (up to 10 s)."""
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("the broker fault tests need redis-server on the PATH")
        self._process = subprocess.Popen(
            [executable, "--port", str(self.port), "--bind", "127.0.0.1", *NO_PERSISTENCE],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while not self._answers():
            if time.monotonic() > deadline or self._process.poll() is not None:
                self.stop()
                raise RuntimeError(f"redis-server did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as client:
                client.sendall(b"PING\r\n")
                return client.recv(16).startswith(b"+PONG")
        except OSError:
            return False
