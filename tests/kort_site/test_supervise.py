"""The worker's supervision (``python -m kort_site.supervise``, docs/production.md "Running the
pieces"): a command that fails is started again, one that exits with 0 or is told to stop is
not, and a stop signal reaches the command once."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from kort_site import supervise


@pytest.fixture(autouse=True)
def _short_delays(monkeypatch):
    monkeypatch.setattr(supervise, "FIRST_DELAY_SECONDS", 0.01)


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def fails_until_third_run(tmp_path) -> list[str]:
    """A command that exits with 3 on its first two runs and with 0 on the third."""
    runs = tmp_path / "runs"
    return python(
        f"import pathlib, sys; p = pathlib.Path({str(runs)!r}); "
        "p.write_text(p.read_text() + 'x' if p.exists() else 'x'); "
        "sys.exit(0 if len(p.read_text()) == 3 else 3)"
    )


def test_a_command_that_fails_is_started_again_until_it_exits_with_0(tmp_path, caplog):
    supervisor = supervise.Supervisor(fails_until_third_run(tmp_path))

    assert supervisor.run() == 0
    assert supervisor.restarts == 2
    assert (tmp_path / "runs").read_text() == "xxx"
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert [w.split(" exited ")[1].split(" after ")[0] for w in warnings] == ["with status 3"] * 2
    assert all(w.endswith("; starting it again in 0 s") for w in warnings)


def test_a_command_that_exits_with_0_is_not_started_again():
    supervisor = supervise.Supervisor(python("pass"))

    assert supervisor.run() == 0
    assert supervisor.restarts == 0


def test_a_stop_passes_the_signal_on_and_starts_the_command_no_more():
    supervisor = supervise.Supervisor(python("import time; time.sleep(60)"))
    result = []
    runner = threading.Thread(target=lambda: result.append(supervisor.run()))
    runner.start()
    while supervisor._child is None:
        time.sleep(0.01)

    supervisor.stop(signal.SIGTERM)
    runner.join(timeout=10)

    assert result == [128 + signal.SIGTERM]
    assert supervisor.restarts == 0


def test_sigterm_to_the_module_stops_the_command_once_and_exits_with_its_status():
    # The command leaves with 7 on the first SIGTERM, and says so on a second one.
    command = (
        "import signal, sys, time\n"
        "def leave(*_): print('stopping', flush=True); sys.exit(7)\n"
        "signal.signal(signal.SIGTERM, leave)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "kort_site.supervise", sys.executable, "-c", command],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"

    process.send_signal(signal.SIGTERM)

    assert process.wait(timeout=10) == 7
    assert process.stdout.read() == "stopping\n"


def test_without_a_command_it_says_how_to_use_it(capsys):
    assert supervise.main([]) == 2
    assert "usage: python -m kort_site.supervise COMMAND" in capsys.readouterr().err


def test_a_program_of_the_interpreters_virtualenv_needs_no_activation(tmp_path):
    # README's command, run by the virtualenv's python with a PATH that lacks its bin.
    ran = subprocess.run(
        [sys.executable, "-m", "kort_site.supervise", "celery", "--version"],
        env={**os.environ, "PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip()[0].isdigit()
