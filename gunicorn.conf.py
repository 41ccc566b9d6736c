"""How gunicorn serves the web service: ``gunicorn -c gunicorn.conf.py kort_site.wsgi``.

Every value may be overridden from the environment:

| variable | default | meaning |
| --- | --- | --- |
| GUNICORN_BIND | 0.0.0.0:8000 | address to listen on |
| GUNICORN_WORKERS | the cores the server may run on | worker processes |
| GUNICORN_THREADS | 4 | request threads per worker process |
| GUNICORN_KEEPALIVE | 5 | seconds an idle keep-alive connection stays open |
| GUNICORN_ACCESSLOG | - (standard output) | access log file; empty for none |

With ``DJANGO_LOG_FORMAT=json`` the access and error logs are JSON lines
(``kort_site.operations.logs``). With ``PROMETHEUS_MULTIPROC_DIR`` set, gunicorn empties that
directory as it starts and marks each worker that exits as gone, as prometheus-client's
multiprocess mode asks (``kort_site.operations.metrics``).

Why: a request is mostly Python (serializers, rules, the ORM) and partly waiting for
PostgreSQL. One process runs Python on one core at a time, so one worker per core; a few threads
in each keep that core busy while a request waits for the database, and the threaded workers
keep clients' connections alive, so a game server reporting round after round does not open a
new TCP connection for each request. Every thread holds a database connection of its own, kept
open between requests for ``DJANGO_CONN_MAX_AGE`` seconds: the web service holds up to
workers x threads connections and the Celery worker one per process (``--concurrency``), which
together must stay well below PostgreSQL's ``max_connections``. More threads than a few per core
add connections and wait for the interpreter lock rather than adding throughput.
"""

import os
import shutil
from pathlib import Path


def _cores() -> int:
    """The cores this process may run on (a CPU quota of a container is not seen here: set
    ``GUNICORN_WORKERS`` there)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


bind = [os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")]
worker_class = "gthread"
workers = int(os.environ.get("GUNICORN_WORKERS", _cores()))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
accesslog = os.environ.get("GUNICORN_ACCESSLOG", "-") or None
# Request lines and header fields longer than gunicorn's defaults (4094 and 8190 bytes) reach
# the service, which refuses them with a JSON 414 / 431 (kort_site.middleware): gunicorn's own
# answers are HTML. Past these hard limits (8190 bytes, gunicorn's most, and 16 KiB) gunicorn
# still answers in HTML; the proxy in front (deploy/nginx.conf.template) passes nothing longer
# on and answers such requests itself in JSON.
limit_request_line = 8190
limit_request_field_size = 16384

if os.environ.get("DJANGO_LOG_FORMAT") == "json":
    from kort_site.operations.logs import gunicorn_logconfig

    logconfig_dict = gunicorn_logconfig()


def on_starting(server):
    """Start from no counts: the files of an earlier run's processes would add to this one's."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        shutil.rmtree(directory, ignore_errors=True)
        Path(directory).mkdir(parents=True, exist_ok=True)


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
