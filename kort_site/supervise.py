"""Keep a process running: ``python -m kort_site.supervise COMMAND [ARG...]`` runs the command
(a program beside this interpreter first: a virtualenv's ``celery`` needs no activation) and
starts it again whenever it exits by itself with a failure, until it is told to stop.

The Celery worker is run this way (docs/production.md, compose.yaml), so that a broker outage never
stops finalization for good (API.md "Conventions", Redis is not a single point of failure): Celery
retries a lost broker connection forever (``CELERY_BROKER_CONNECTION_MAX_RETRIES``), but kombu's
Redis transport (5.7.0, the newest) can raise ``AttributeError: 'NoneType' object has no attribute
'hostname'`` while it closes the lost connection with unacknowledged messages on it (it tries to
hand them back through a connection it has just let go), and the worker treats that as unrecoverable
and exits. Started again, it waits for the broker and carries on; what it held is handed out again
by the broker (``visibility_timeout``) or queued again by the sweeper.

- SIGTERM, SIGINT, SIGQUIT and SIGHUP are passed on to the command once (its own process group,
  so a terminal's Ctrl-C reaches it once, through this process), and this process then exits
  with the command's exit status, without starting it again.
- An exit by itself with status 0 is a requested stop (``celery control shutdown``): not
  restarted either.
- Any other exit (a failure, or a signal from elsewhere such as the kernel's out-of-memory
  killer) is logged as a warning and the command is started again after
  :data:`FIRST_DELAY_SECONDS`; a command that keeps failing within :data:`STABLE_SECONDS` of its
  start waits twice as long each time, up to :data:`MAX_DELAY_SECONDS`.
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from types import FrameType

log = logging.getLogger("kort_site.supervise")

FIRST_DELAY_SECONDS = 1.0
MAX_DELAY_SECONDS = 30.0
STABLE_SECONDS = 60.0
"""A run at least this long counts as healthy: the next restart waits the first delay again."""

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT, signal.SIGHUP)


class Supervisor:
    """Runs ``command`` again and again as the module says; :meth:`run` returns the exit status
    of the last run once a stop was asked for or the command exited with 0."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.restarts = 0
        self._stopping = threading.Event()
        self._child: subprocess.Popen[bytes] | None = None

    def stop(self, signum: int, frame: FrameType | None = None) -> None:
        """Pass ``signum`` on to the running command and start it no more."""
        self._stopping.set()
        child = self._child
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    def run(self) -> int:
        delay = FIRST_DELAY_SECONDS
        while True:
            started = time.monotonic()
            self._child = subprocess.Popen(self.command, process_group=0)
            if self._stopping.is_set():  # asked to stop while it was being started
                self._child.send_signal(signal.SIGTERM)
            status = self._child.wait()
            if self._stopping.is_set() or status == 0:
                return exit_status(status)
            ran = time.monotonic() - started
            delay = FIRST_DELAY_SECONDS if ran >= STABLE_SECONDS else delay
            log.warning(
                "%s exited with status %s after %.0f s; starting it again in %.0f s",
                self.command[0],
                status,
                ran,
                delay,
            )
            if self._stopping.wait(delay):
                return exit_status(status)
            self.restarts += 1
            delay = min(delay * 2, MAX_DELAY_SECONDS)


def exit_status(returncode: int) -> int:
    """A shell's exit status for a child's return code: ``-N`` (killed by signal N) is 128 + N."""
    return returncode if returncode >= 0 else 128 - returncode


def program(name: str) -> str:
    """The program ``name`` names: found beside this interpreter first (``celery`` of the
    virtualenv whose ``python`` runs this module, activated or not), else on ``PATH``."""
    if os.sep in name:
        return name
    search = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return shutil.which(name, path=search) or name


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m kort_site.supervise COMMAND [ARG...]", file=sys.stderr)
        return 2
    logging.basicConfig(format="[%(asctime)s: %(levelname)s/supervise] %(message)s")
    supervisor = Supervisor([program(argv[0]), *argv[1:]])
    for signum in STOP_SIGNALS:
        signal.signal(signum, supervisor.stop)
    return supervisor.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
