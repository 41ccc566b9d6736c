"""With debug off and no real secret key, the Celery worker and beat refuse to start, as
gunicorn does (``kort_site.checks``): real processes, which exit with status 1 and the guard's
message instead of logging it and going on."""

import os
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXIT_SECONDS = 60


@pytest.mark.parametrize(
    ("command", "secret", "message"),
    [
        pytest.param(
            ["worker"],
            "",
            "DJANGO_SECRET_KEY must be set to a real secret (not empty) when DJANGO_DEBUG is off",
            id="worker-empty",
        ),
        pytest.param(
            ["beat", "--schedule", "{scratch}/beat-schedule"],
            "short",
            "DJANGO_SECRET_KEY must be at least 32 characters long",
            id="beat-short",
        ),
    ],
)
def test_the_worker_and_beat_refuse_an_unfit_secret_key(command, secret, message, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_"))}
    env["DJANGO_SECRET_KEY"] = secret
    arguments = [part.format(scratch=tmp_path) for part in command]
    started = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "kort_site", *arguments, "-l", "info"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = started.communicate(timeout=EXIT_SECONDS)
    finally:
        with suppress(ProcessLookupError):  # a worker that started after all, with its pool
            os.killpg(started.pid, signal.SIGKILL)
    assert started.returncode == 1, output
    assert message in output
    assert " ready." not in output
