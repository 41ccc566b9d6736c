"""A private PostgreSQL primary with a streaming replica, and a PgBouncer in front of them, on
free loopback ports of this machine: for the replica tests and ``bench.scale_out``.

Everything lives in one temporary directory owned by the ``postgres`` user (the servers refuse
to run as root: a root caller runs them through ``runuser``), and goes when :meth:`stop` or the
``with`` block ends. The primary keeps WAL for a replica (``wal_level=replica``); the replica is
a ``pg_basebackup -R`` of it with ``hot_standby`` and ``recovery_min_apply_delay``, so it
replays every change that long after the primary committed it. Durability is off on both
(``fsync``, ``full_page_writes``): the data is thrown away anyway. A caller may give the
primary other settings instead (``bench.season_end`` runs one server with PostgreSQL's
defaults, as a production server has them).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

import psycopg

SERVER_USER = "postgres"
READY_SECONDS = 30
REPLICATION_SETTINGS = {
    "wal_level": "replica",
    "max_wal_senders": "4",
    "fsync": "off",
    "full_page_writes": "off",
    "synchronous_commit": "on",
    "max_connections": "200",
    "shared_buffers": "64MB",
}
"""The primary's settings (``postgresql.conf``) by default, besides its address: WAL for a
replica, no durability, connections for the replica tests' clients and PgBouncers."""
REPLICA_QUERY_WAIT_SECONDS = 2
"""The replica's PgBouncer's ``query_wait_timeout``: how long a client waits there for a
server connection when the replica is stopped."""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _running(pid: int) -> bool:
    """Whether process ``pid`` of this machine has not exited yet (an exited process waiting to
    be reaped, a zombie, has)."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone, or exiting while read
        return False
    return status.rpartition(")")[2].split()[0] != "Z"


def server_program(name: str) -> str | None:
    """The path of a PostgreSQL server program (``initdb``, ``pg_ctl``, ``pg_basebackup``), of
    the newest installed major version, or None."""
    versions = sorted(
        glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
        key=lambda path: int(Path(path).parts[4]) if Path(path).parts[4].isdigit() else 0,
    )
    return versions[-1] if versions else shutil.which(name)


def pgbouncer_program() -> str | None:
    return shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None
    )


def missing_programs(*, bouncer: bool = True) -> list[str]:
    """The programs a cluster needs that this machine lacks (Debian: ``postgresql``, and
    ``pgbouncer`` unless ``bouncer`` is False: a cluster that starts no PgBouncer)."""
    wanted = {name: server_program(name) for name in ("initdb", "pg_ctl", "pg_basebackup")}
    if bouncer:
        wanted["pgbouncer"] = pgbouncer_program()
    return [name for name, path in wanted.items() if path is None]


def _program(name: str) -> str:
    found = pgbouncer_program() if name == "pgbouncer" else server_program(name)
    if found is None:
        raise RuntimeError(f"a private PostgreSQL cluster needs {name}")
    return found


def _as_server_user(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``command`` as the ``postgres`` user (when called as root) in ``cwd``, a directory
    that user may enter (the caller's own may be closed to it)."""
    if os.geteuid() == 0:
        command = ["runuser", "-u", SERVER_USER, "--", *command]
    return subprocess.run(command, check=True, capture_output=True, text=True, cwd=cwd)


class PgCluster:
    """A primary (and, once :meth:`replica_start` ran, its streaming replica) of database
    :attr:`name`, and optionally a PgBouncer in transaction pooling mode. ``settings`` are
    the primary's ``postgresql.conf`` lines besides its address (name to value as the file
    spells it, default :data:`REPLICATION_SETTINGS`; a replica needs ``wal_level = replica``
    and ``max_wal_senders``); ``bouncer`` False makes a cluster that needs no PgBouncer.

    Raises:
        RuntimeError: a program is missing (:func:`missing_programs`) or a server did not come
            up within 30 s (its log is included).
    """

    def __init__(
        self,
        *,
        name: str = "kort",
        apply_delay_ms: int = 300,
        settings: Mapping[str, str] = REPLICATION_SETTINGS,
        bouncer: bool = True,
    ):
        missing = missing_programs(bouncer=bouncer)
        if missing:
            raise RuntimeError(f"a private PostgreSQL cluster needs {', '.join(missing)}")
        self.name = name
        self.apply_delay_ms = apply_delay_ms
        self.settings = dict(settings)
        self.root = Path(tempfile.mkdtemp(prefix="kort-pgcluster-"))
        server = pwd.getpwnam(SERVER_USER) if os.geteuid() == 0 else None
        if server is not None:
            os.chown(self.root, server.pw_uid, server.pw_gid)
        self.primary_port = _free_port()
        self.replica_port: int | None = None
        self.bouncer_port: int | None = None
        self.replica_bouncer_port: int | None = None
        self._bouncers: list[subprocess.Popen] = []
        self._bouncer_ports: list[int] = []

    # --- the servers --------------------------------------------------------------------

    def start(self) -> PgCluster:
        """Make and start the primary, with an empty database :attr:`name`."""
        data = self.root / "primary"
        options = ["-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"]
        _as_server_user([_program("initdb"), "-D", str(data), *options], self.root)
        with open(data / "postgresql.conf", "a") as conf:
            conf.write(
                f"port = {self.primary_port}\nlisten_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{self.root}'\n"
                + "".join(f"{name} = {value}\n" for name, value in self.settings.items())
            )
        with open(data / "pg_hba.conf", "a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        self._pg_ctl(data, "start")
        with self.connect(self.primary_port, "postgres") as connection:
            connection.execute(f'CREATE DATABASE "{self.name}"')
        return self

    def primary_stop(self) -> None:
        """Stop the primary at once (its connections are cut)."""
        self._pg_ctl(self.root / "primary", "stop", "-m", "immediate")

    def primary_resume(self) -> None:
        """Start the stopped primary again."""
        self._pg_ctl(self.root / "primary", "start")

    def replica_start(self) -> int:
        """Copy the primary into a streaming replica (``pg_basebackup -R``), start it, wait
        until it accepts reads, and return its port."""
        data = self.root / "replica"
        self.replica_port = _free_port()
        source = ["-h", "127.0.0.1", "-p", str(self.primary_port), "-U", "postgres"]
        copy = ["-D", str(data), "-R", "-X", "stream", "--no-sync", "--checkpoint=fast"]
        _as_server_user([_program("pg_basebackup"), *source, *copy], self.root)
        with open(data / "postgresql.conf", "a") as conf:
            conf.write(
                f"port = {self.replica_port}\nhot_standby = on\n"
                f"recovery_min_apply_delay = '{self.apply_delay_ms}ms'\n"
            )
        self._pg_ctl(data, "start")
        return self.replica_port

    def replica_stop(self) -> None:
        """Stop the replica at once (its connections are cut)."""
        self._pg_ctl(self.root / "replica", "stop", "-m", "immediate")

    def replica_resume(self) -> None:
        """Start the stopped replica again (it catches up from the primary)."""
        self._pg_ctl(self.root / "replica", "start")

    def bouncer_start(self) -> int:
        """Start a PgBouncer in transaction pooling mode in front of the primary and, once the
        replica runs, another in front of the replica (as each host would run its own); return
        the primary's. The replica's waits at most :data:`REPLICA_QUERY_WAIT_SECONDS` for a
        server connection, so a stopped replica fails its clients quickly instead of holding
        them (``query_wait_timeout``); the primary's keeps PgBouncer's default."""
        self.bouncer_port = self._bouncer_start("primary", self.primary_port, None)
        if self.replica_port is not None:
            self.replica_bouncer_port = self._bouncer_start(
                "replica", self.replica_port, REPLICA_QUERY_WAIT_SECONDS
            )
        return self.bouncer_port

    def _bouncer_start(self, label: str, server_port: int, query_wait: int | None) -> int:
        port = _free_port()
        (self.root / "users.txt").write_text('"postgres" ""\n')
        config = self.root / f"pgbouncer-{label}.ini"
        log = self.root / f"pgbouncer-{label}.log"
        config.write_text(
            f"[databases]\n{self.name} = host=127.0.0.1 port={server_port} dbname={self.name}\n"
            f"\n[pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\n"
            f"unix_socket_dir =\nauth_type = trust\nauth_file = {self.root / 'users.txt'}\n"
            "pool_mode = transaction\nmax_client_conn = 500\ndefault_pool_size = 20\n"
            f"logfile = {log}\npidfile = {self.root / f'pgbouncer-{label}.pid'}\n"
            "ignore_startup_parameters = extra_float_digits,options\n"
            + (f"query_wait_timeout = {query_wait}\n" if query_wait else "")
        )
        command = [_program("pgbouncer"), str(config)]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SERVER_USER, "--", *command]
        self._bouncers.append(
            subprocess.Popen(
                command,
                cwd=self.root,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )
        self._wait_for(port, self.name, log)
        self._bouncer_ports.append(port)
        return port

    def backends_end(self) -> None:
        """End every other connection to database :attr:`name` on both servers (PgBouncer's
        server connections among them, which it opens again when needed) and wait until their
        processes have exited: a backend reports what it read as it exits, after it has left
        ``pg_stat_activity`` (:meth:`rows_read`, :meth:`tables_scanned`)."""
        ports = [self.primary_port] + ([self.replica_port] if self.replica_port else [])
        others = "datname = %s AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        for port in ports:
            with self.connect(port) as connection:
                query = f"SELECT pid FROM pg_stat_activity WHERE {others}"
                pids = [pid for (pid,) in connection.execute(query, [self.name]).fetchall()]
                ending = "SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid"
                connection.execute(ending, [pids])
            deadline = time.monotonic() + READY_SECONDS
            while any(_running(pid) for pid in pids):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"connections to {self.name} on {port} did not end")
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop every server and remove the directory."""
        for bouncer in self._bouncers:
            bouncer.terminate()
            try:
                bouncer.wait(timeout=10)
            except subprocess.TimeoutExpired:
                bouncer.kill()
        for data in ("replica", "primary"):
            if (self.root / data / "postmaster.pid").exists():
                with contextlib.suppress(RuntimeError):
                    self._pg_ctl(self.root / data, "stop", "-m", "immediate")
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> PgCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # --- addresses and figures ------------------------------------------------------------

    def server_url(self, port: int | None = None) -> str:
        """The address of the server on ``port`` (default: the primary), no database."""
        return f"postgres://postgres@127.0.0.1:{port or self.primary_port}"

    def url(self, port: int | None = None, name: str | None = None) -> str:
        """A ``DATABASE_URL`` for the database on ``port`` (default: the primary's)."""
        return f"{self.server_url(port)}/{name or self.name}"

    def connect(self, port: int, name: str | None = None) -> psycopg.Connection:
        return psycopg.connect(
            host="127.0.0.1",
            port=port,
            user="postgres",
            dbname=name or self.name,
            autocommit=True,
            connect_timeout=5,
        )

    def rows_read(self, port: int) -> int:
        """Rows the server on ``port`` has read for database :attr:`name` so far
        (``pg_stat_database``: ``tup_returned`` + ``tup_fetched``), as its statistics show
        them: a backend reports its counts from time to time while it stays connected (up to
        some seconds late) and at once when it disconnects."""
        with self.connect(port) as connection:
            connection.execute("SELECT pg_stat_clear_snapshot()")
            row = connection.execute(
                "SELECT tup_returned + tup_fetched FROM pg_stat_database WHERE datname = %s",
                [self.name],
            ).fetchone()
        return int(row[0]) if row else 0

    def tables_scanned(self, port: int) -> dict[str, int]:
        """Scans of each table of database :attr:`name` on the server on ``port`` so far
        (``pg_stat_user_tables``: sequential and index scans), as its statistics show them:
        complete for the backends that have exited (:meth:`backends_end`)."""
        with self.connect(port) as connection:
            connection.execute("SELECT pg_stat_clear_snapshot()")
            rows = connection.execute(
                "SELECT relname, seq_scan + coalesce(idx_scan, 0) FROM pg_stat_user_tables"
            ).fetchall()
        return {name: int(scans) for name, scans in rows}

    def wal_position(self) -> str:
        """The primary's current WAL position (``pg_current_wal_lsn()``)."""
        with self.connect(self.primary_port) as primary:
            return str(self._one(primary, "SELECT pg_current_wal_lsn()"))

    def replica_caught_up(self, seconds: float = 10) -> str:
        """Wait until the replica has replayed everything the primary has written; the WAL
        position it replayed up to."""
        assert self.replica_port is not None
        position = self.wal_position()
        deadline = time.monotonic() + seconds
        with self.connect(self.replica_port) as replica:
            while time.monotonic() < deadline:
                if self._one(replica, "SELECT pg_last_wal_replay_lsn() >= %s", position):
                    return position
                time.sleep(0.05)
        raise RuntimeError(f"the replica did not replay up to {position} in {seconds} s")

    # --- internals ------------------------------------------------------------------------

    @staticmethod
    def _one(connection: psycopg.Connection, query, *params):
        row = connection.execute(query, params).fetchone()
        assert row is not None
        return row[0]

    def _pg_ctl(self, data: Path, action: str, *options: str) -> None:
        log = data.parent / f"{data.name}.log"
        command = [_program("pg_ctl"), "-D", str(data), "-l", str(log), "-w"]
        command += ["-t", str(READY_SECONDS), action, *options]
        try:
            _as_server_user(command, self.root)
        except subprocess.CalledProcessError as error:
            shown = log.read_text()[-3000:] if log.exists() else ""
            raise RuntimeError(f"pg_ctl {action} failed: {error.stderr}\n{shown}") from error

    def _wait_for(self, port: int, name: str, log: Path) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            try:
                with self.connect(port, name) as connection:
                    connection.execute("SELECT 1")
                return
            except psycopg.OperationalError:
                time.sleep(0.1)
        shown = log.read_text()[-3000:] if log.exists() else ""
        raise RuntimeError(f"nothing answered on port {port} in {READY_SECONDS} s\n{shown}")
