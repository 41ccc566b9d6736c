"""``rebuild_ladder`` as a stream (``ranking.rebuild``): the same report whatever the chunk
size, every read bounded by a chunk, ``--season N`` limited to season N's figures, and
``--fix`` idempotent (KORT_RULES §7, §8, §10, §11)."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from players.models import Player
from ranking.models import CupChange
from stats.models import SeasonStats
from tests.migrations import migrate
from tests.ranking.test_rebuild_seasons import seasons  # noqa: F401 (a fixture)

WRITES = ("INSERT", "UPDATE", "DELETE")


def rebuild(*args) -> tuple[int, list[str]]:
    """The command's exit status and the lines it printed."""
    out = StringIO()
    try:
        call_command("rebuild_ladder", *args, stdout=out)
    except CommandError as failed:
        return failed.returncode, out.getvalue().splitlines()
    return 0, out.getvalue().splitlines()


def corrupt() -> dict[str, Player]:
    """Three wrong values, one per kind of row: amir's total (the current season, 2; below his
    best), iman's row of season 1, bita's reset opening season 2."""
    players = {p.username: p for p in Player.objects.all()}
    Player.objects.filter(pk=players["amir"].pk).update(cups=1)
    SeasonStats.objects.filter(player=players["iman"], season=1).update(best_cups=40)
    CupChange.objects.filter(kind="season_reset", player=players["bita"]).update(cups_after=3)
    return players


@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_any_chunk_size_reports_what_one_chunk_does(seasons, chunk):  # noqa: F811
    with override_settings(KORT_SEASON_RESET_FLOOR=0):  # the end's own floor counts: 10
        assert rebuild("--chunk", str(chunk)) == rebuild()
        assert rebuild("--chunk", str(chunk))[1] == [
            "No difference: the stored ladder is what the rounds give."
        ]
    corrupt()
    status, lines = rebuild("--chunk", str(chunk))
    assert (status, lines) == rebuild()
    assert status == 1 and len(lines) == 3


def test_every_read_fetches_at_most_a_chunk_and_rows_of_a_player_span_reads(
    seasons,  # noqa: F811
    monkeypatch,
):
    """Each read beside the players is one query on a cursor that fetches a chunk at a time
    (``connection.chunked_cursor``): every fetch is recorded with the query's table."""
    fetched = []
    chunked = connection.chunked_cursor

    def recorded():
        cursor = chunked()
        execute, fetchmany = cursor.execute, cursor.fetchmany
        table = []

        def executed(sql, params=None):
            found = re.search(r'FROM ("\w+")(?!\))', sql)
            assert found is not None
            table.append(found.group(1))
            return execute(sql, params)

        def fetch(size):
            rows = fetchmany(size)
            fetched.append((table[-1], len(rows)))
            return rows

        cursor.execute, cursor.fetchmany = executed, fetch  # type: ignore[method-assign,attr-defined]
        return cursor

    monkeypatch.setattr(connection, "chunked_cursor", recorded)
    assert rebuild("--chunk", "2")[0] == 0
    assert max(rows for _, rows in fetched) <= 2
    ledger_reads = [rows for table, rows in fetched if table == '"ranking_cupchange"']
    most = max(CupChange.objects.filter(player=p).count() for p in Player.objects.all())
    assert most > 2  # a player's ledger rows are split across reads, and still all read
    assert len(ledger_reads) > Player.objects.count() / 2


def test_a_season_limits_the_check_to_that_seasons_figures(seasons):  # noqa: F811
    players = corrupt()
    amir, iman, bita = (players[name] for name in ("amir", "iman", "bita"))

    assert rebuild("--season", "1") == (
        1,
        [f"player iman (id {iman.pk}), season 1: best_cups stored 40, recomputed 8"],
    )
    assert rebuild("--season", "2") == (
        1,
        [
            f"player amir (id {amir.pk}): cups stored 1, recomputed 14",
            f"ledger reset opening season 2, player bita (id {bita.pk}): cups_after stored 3, "
            "recomputed 0",
        ],
    )


def test_a_fix_of_one_season_writes_only_that_season(seasons):  # noqa: F811
    players = corrupt()
    iman = players["iman"]

    assert rebuild("--fix", "--season", "1")[1][-1] == "Fixed 1 difference(s)."
    assert SeasonStats.objects.get(player=iman, season=1).best_cups == 8
    assert Player.objects.get(pk=players["amir"].pk).cups == 1
    assert rebuild("--season", "1") == (
        0,
        ["No difference: the stored ladder is what the rounds give."],
    )
    assert rebuild()[0] == 1


def test_a_second_fix_finds_nothing_and_writes_nothing(seasons):  # noqa: F811
    corrupt()
    assert rebuild("--fix", "--chunk", "2")[1][-1].startswith("Fixed ")

    with CaptureQueriesContext(connection) as queries:
        assert rebuild("--fix", "--chunk", "2") == (
            0,
            ["No difference: the stored ladder is what the rounds give."],
        )
    written = [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)]
    assert written == []


def test_the_migration_sets_autovacuum_on_postgresql(db):
    if connection.vendor != "postgresql":
        pytest.skip("autovacuum is PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname IN "
            "('players_player', 'ranking_boardcount', 'ranking_boardtotal', 'stats_seasonstats')"
        )
        options = {name: set(values or ()) for name, values in cursor.fetchall()}
    assert {
        "autovacuum_vacuum_scale_factor=0.01",
        "autovacuum_vacuum_threshold=1000",
        "autovacuum_analyze_scale_factor=0.02",
    } <= options["players_player"]
    assert "autovacuum_vacuum_scale_factor=0.0" in options["ranking_boardcount"]
    assert "autovacuum_vacuum_threshold=100" in options["ranking_boardtotal"]
    assert "autovacuum_vacuum_scale_factor=0.02" in options["stats_seasonstats"]


@pytest.mark.django_db(transaction=True)
def test_the_autovacuum_migration_is_reversible():
    if connection.vendor != "postgresql":
        pytest.skip("autovacuum is PostgreSQL's")

    def players_options() -> list[str]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'players_player'")
            return cursor.fetchone()[0] or []

    try:
        migrate({"ranking": "0008_ledger_constraints_and_season_ends"})
        assert not [option for option in players_options() if "autovacuum" in option]
    finally:
        migrate({})
    assert "autovacuum_vacuum_scale_factor=0.01" in players_options()
