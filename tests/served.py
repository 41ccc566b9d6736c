"""The service as production serves it, on free loopback ports: gunicorn with gunicorn.conf.py
on a SQLite file of its own (migrated here), in-process tasks, and nginx in front of it with
deploy/nginx.conf.template (filled in by deploy/nginx-conf) as a foreground process under a
prefix of its own. For the tests and benches that need real servers."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
NGINX = "/usr/sbin/nginx"
"""Debian's nginx (the package ``nginx``)."""
PROXY_PROGRAMS = (NGINX, "envsubst")
"""What :func:`nginx` runs: nginx, and gettext's envsubst for deploy/nginx-conf."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def manage(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


class Answer(NamedTuple):
    status: int
    kind: str
    body: Any
    """The JSON body parsed, any other as bytes."""


def ask(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    *,
    headers: dict[str, str] | None = None,
    chunked: bool = False,
    source: str = "127.0.0.1",
    timeout: float = 20,
) -> Answer:
    """One request to the loopback's ``port`` from the address ``source``, with ``body`` as
    JSON (sent in two chunks when ``chunked``)."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    given = {"Content-Type": "application/json", **(headers or {})}
    encoded = None if body is None else json.dumps(body).encode()
    try:
        if chunked and encoded is not None:
            middle = len(encoded) // 2
            payload = iter([encoded[:middle], encoded[middle:]])
            connection.request(method, path, body=payload, headers=given, encode_chunked=True)
        else:
            connection.request(method, path, body=encoded, headers=given)
        answer = connection.getresponse()
        content = answer.read()
    finally:
        connection.close()
    kind = answer.getheader("Content-Type", "")
    parsed = json.loads(content) if kind.startswith("application/json") else content
    return Answer(answer.status, kind, parsed)


def served_env(folder: Path, port: int, **settings: str) -> dict[str, str]:
    """The environment of a gunicorn on ``port`` of the loopback with one worker, its SQLite
    file in ``folder`` (migrated here) and ``settings`` on top; none of this process's
    database, broker or Django variables."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DATABASE_", "CELERY_", "KORT_", "DJANGO_", "PYTEST"))
    }
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'served.sqlite3'}",
        DJANGO_SECRET_KEY="a-secret-key-for-the-served-test-only-0123456789",
        DJANGO_SECURE_COOKIES="false",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="1",
        GUNICORN_ACCESSLOG="",
    )
    env.update(settings)
    manage(env, "migrate", "--noinput", "-v", "0")
    return env


def wait_for_port(port: int, process: subprocess.Popen, what: str) -> None:
    for _ in range(150):
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with status {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on port {port}")


def _stopped(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def gunicorn(env: dict[str, str], log: Path | None = None) -> Iterator[subprocess.Popen]:
    """gunicorn serving with ``env`` (:func:`served_env`), its error log written to ``log``."""
    port = int(env["GUNICORN_BIND"].rsplit(":", 1)[1])
    with open(log or os.devnull, "ab") as errors:
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "kort_site.wsgi"],
            cwd=ROOT,
            env=env,
            stdout=errors,
            stderr=errors,
        )
        try:
            wait_for_port(port, server, "gunicorn")
            yield server
        finally:
            _stopped(server)


@contextmanager
def nginx(
    upstream: int,
    *,
    client_timeout: str = "10s",
    upstream_timeout: str = "30s",
    max_body_bytes: int = 1024 * 1024,
) -> Iterator[int]:
    """nginx in front of the gunicorn on port ``upstream``; yields the port it listens on.

    Its prefix is a directory of its own that others may enter: started as root, nginx's
    workers run as nobody and keep request bodies in temporary files there."""
    port = free_port()
    prefix = Path(tempfile.mkdtemp(prefix="kort-nginx-"))
    prefix.chmod(0o755)
    filled = {
        "KORT_PROXY_LISTEN": f"127.0.0.1:{port}",
        "KORT_PROXY_UPSTREAM": f"127.0.0.1:{upstream}",
        "KORT_MAX_BODY_BYTES": str(max_body_bytes),
        "KORT_PROXY_CLIENT_TIMEOUT": client_timeout,
        "KORT_PROXY_UPSTREAM_TIMEOUT": upstream_timeout,
    }
    config = subprocess.run(
        [ROOT / "deploy" / "nginx-conf"],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **filled},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    (prefix / "nginx.conf").write_text(config)
    try:
        with open(prefix / "nginx.log", "ab") as log:
            proxy = subprocess.Popen(
                [NGINX, "-p", f"{prefix}/", "-c", "nginx.conf", "-e", "stderr"],
                stdout=log,
                stderr=log,
            )
            try:
                wait_for_port(port, proxy, "nginx")
                yield port
            finally:
                _stopped(proxy)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
