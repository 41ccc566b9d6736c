"""A season's board as a counted structure (KORT_RULES §10; API.md "Leaderboard").

A rank is 1 + the number of players ahead. Rather than counting the players ahead (a scan of
the board), ranks and pages read two small tables that every change of the board updates in
the transaction of the change:

- ``BoardCount(season, cups, players)``: how many players of the season's board hold exactly
  ``cups`` (one row per distinct total, a few thousand at most);
- ``BoardTotal(season, players)``: how many players the board holds.

The players ahead of a player are the counts of the higher totals (:func:`cups_groups`: one
read of the season's rows of ``BoardCount``) plus the players with the same total who come
first in the tie-break (a range of the index ``leaderboard_order``, never more than the
players of that total). A page at any offset starts in the total whose running count crosses
the offset (:func:`group_at`).

**The invariant** every writer keeps: for a season with a ``BoardTotal`` row,
``BoardCount(season, c).players`` is the number of players in :func:`board_players` of that
season holding ``c`` cups (a missing row counts 0), and ``BoardTotal(season).players`` is their
sum. The ladder's one write path (``ranking.ladder``) keeps it, running the writes of
:func:`board_moves` (or :func:`board_move`) for every change of who is on the board or of a
board player's cups, in the transaction that writes the players' rows; nothing else calls
them.

**Trust.** The reads check what is cheap to check: the season has a total row if its board has
players (a board whose total row is gone has lost its counts), the counts add up to the total
and none is negative, the count of a total covers the ties found ahead in it, a page finds on
its first total as many players as counted. A failed check
raises :class:`BoardUnreliable`; the selectors then count players instead (exact, slow) and
log a warning. ``manage.py rebuild_ladder`` compares the counts of the current season with the
players as the history gives them (:func:`board_differences`) and ``--fix`` rebuilds them
(:func:`board_build`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connections, router
from django.db.models import Count, QuerySet

from bulk.updates import Insert, Statement, Update, Upsert, run
from players.models import LEADERBOARD_ORDER, ON_A_BOARD, Player, may_be_on_a_board
from ranking.models import BoardCount, BoardTotal
from seasons.selectors import current_season

Move = tuple[int | None, int | None]
"""One player's move on a board: ``(cups before, cups after)``, None for "not on the board"."""


def current_season_number() -> int:
    """The number of the current season (KORT_RULES §10), whose board is "the" leaderboard."""
    return current_season().number


def board_players(season: int) -> QuerySet[Player]:
    """The players on the board of ``season`` (humans, no ban, ``board_season == season``) in
    leaderboard order, read through the index ``leaderboard_order``."""
    return Player.objects.filter(ON_A_BOARD, board_season=season).order_by(*LEADERBOARD_ORDER)


def is_on_board(player: Player, season: int) -> bool:
    """Whether ``player``, as loaded, is on the board of ``season`` (KORT_RULES §10)."""
    return may_be_on_a_board(player) and player.board_season == season


class BoardUnreliable(Exception):
    """The counts of a season's board fail a check; the message says which."""


@dataclass(frozen=True)
class CupsGroup:
    """The players of a board holding the same total: ``cups``, how many (``players``) and how
    many players of the board hold more (``ahead``)."""

    cups: int
    players: int
    ahead: int


def _connection(for_write: bool = False):
    """The connection the board's tables are read (or written) on, as the router says."""
    alias = router.db_for_write(BoardCount) if for_write else router.db_for_read(BoardCount)
    return connections[alias]


def _tables(connection) -> dict[str, str]:
    return {
        "counts": connection.ops.quote_name(BoardCount._meta.db_table),
        "totals": connection.ops.quote_name(BoardTotal._meta.db_table),
    }


def _total_row(season: int, using: str | None = None) -> int | None:
    totals = BoardTotal.objects.using(using).filter(season=season)
    return totals.values_list("players", flat=True).first()


# --- writes -------------------------------------------------------------------------------------


def board_move(season: int, moves: Iterable[Move]) -> None:
    """Move players on the board of ``season`` now (see :func:`board_moves`; the players'
    rows written already): the season's total claimed, then the moves written, or the counts
    built if the claim made the total row."""
    if board_claim(season):
        board_build(season)
    else:
        run(board_moves(season, moves))


def board_moves(season: int, moves: Iterable[Move]) -> list[Statement]:
    """The writes that move players on the board of ``season``: each move is ``(cups before,
    cups after)`` of one player, ``None`` where they are not on that board (before: they join
    it; after: they leave it). ``(c, c)`` and ``(None, None)`` change nothing.

    Run them in the transaction that writes the players' rows (``cups``, ``board_season``,
    ``is_banned``), after those writes (``bulk.updates.run``: in the same batch on
    PostgreSQL), once per season and transaction with every move of that transaction, for
    every change that the board of ``season`` sees, and once :func:`board_claim` has found
    the season's total row there:

    - a finalized ranked match: ``(cups before or None, cups after)`` for each human player
      (None before when they were not on this season's board; None after while banned);
    - a ban: ``(cups, None)``; an unban: ``(None, cups)`` (players on this season's board);
    - a void's reversal: ``(cups before, cups after)``, or ``(cups before, None)`` when the
      player is left with no counted match in the season and leaves its board;
    A season's reset moves no count, whoever writes it (a batch of the season's end, a
    player's first change of the season, a read of their ledger): the ended season's counts
    are dropped when the next season opens (:func:`board_retire`), and the new season's board
    starts empty, each player joining it with their first change of the season, which writes
    their reset first if it was still to come.

    The writes: the season's total first, then its counts in increasing ``cups``, as
    increments (``INSERT ... ON CONFLICT DO UPDATE`` for the counts, PostgreSQL and SQLite):
    every writer takes the row locks in that order, so concurrent moves cannot deadlock.
    """
    deltas: Counter[int] = Counter()
    for before, after in moves:
        if before is not None:
            deltas[before] -= 1
        if after is not None:
            deltas[after] += 1
    changed = sorted((cups, delta) for cups, delta in deltas.items() if delta)
    if not changed:
        return []
    statements: list[Statement] = []
    joined = sum(delta for _, delta in changed)
    if joined:  # the total's row, which every move of the season shares, only when it moves
        statements.append(Update(BoardTotal, ("season",), {"players": "+"}, [(season, joined)]))
    rows = [{"season": season, "cups": cups, "players": delta} for cups, delta in changed]
    statements.append(Insert(BoardCount, rows, COUNT_ADDED))
    return statements


COUNT_ADDED = Upsert(("season", "cups"), ("players",), adding=True)
"""A count's row meeting the stored one of its total: the amount added to it."""


def board_claim(season: int) -> bool:
    """Insert the season's total row if it is missing (its first move, or its counts were
    lost); True if this call inserted it. The caller then builds the season's counts from the
    players' rows (:func:`board_build`) once it has written them, instead of running its
    moves (:func:`board_moves`): a concurrent move waits for that build to commit, then
    applies its own moves. An existing row is left unlocked (``DO NOTHING``): the moves lock
    it, in their order."""
    connection = _connection(for_write=True)
    totals = _tables(connection)["totals"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {totals} (season, players) VALUES (%s, 0) "
            "ON CONFLICT (season) DO NOTHING RETURNING id",
            [season],
        )
        return cursor.fetchone() is not None


def board_build(season: int) -> None:
    """Write the counts and total of ``season`` from the players' rows (one grouped read of
    the season's part of the index), all on the database the board is written to. Call
    inside a transaction that holds the season's total row (or the players' rows) against
    concurrent moves."""
    using = router.db_for_write(BoardCount)
    counted = counted_board(season, using)
    BoardCount.objects.using(using).filter(season=season).delete()
    BoardCount.objects.using(using).bulk_create(
        BoardCount(season=season, cups=cups, players=players) for cups, players in counted.items()
    )
    BoardTotal.objects.using(using).update_or_create(
        season=season, defaults={"players": sum(counted.values())}
    )


def board_retire(season: int) -> None:
    """Remove the counts and total of ``season``, whose board its frozen final standings
    replace once it is finalized (``ranking.ladder.ladder_close``, in the transaction that
    opens the next season): nothing reads a finalized season's counts."""
    using = router.db_for_write(BoardCount)
    BoardCount.objects.using(using).filter(season=season).delete()
    BoardTotal.objects.using(using).filter(season=season).delete()


# --- reads --------------------------------------------------------------------------------------


def counted_board(season: int, using: str | None = None) -> dict[int, int]:
    """``{cups: players}`` of the season's board, counted from the players' rows (on the
    database ``using``; default: where players are read)."""
    players = board_players(season).using(using).order_by()
    return dict(players.values_list("cups").annotate(players=Count("id")))


def stored_board(season: int) -> tuple[dict[int, int], int | None]:
    """The stored counts of ``season`` (``{cups: players}``, counts of 0 left out) and its
    total row (None: no row)."""
    counts = BoardCount.objects.filter(season=season).exclude(players=0)
    return dict(counts.values_list("cups", "players")), _total_row(season)


def board_differences(
    season: int,
    counted: dict[int, int],
    stored_counts: tuple[dict[int, int], int | None] | None = None,
) -> list[tuple[int | None, int | None, int]]:
    """How the stored counts of ``season`` (as read now, or ``stored_counts`` as
    :func:`stored_board` read them) differ from ``counted`` (``{cups: players}``, as
    :func:`counted_board` gives): one ``(cups, stored, counted)`` per total whose count
    differs (stored None: no row, or 0), by cups, then ``(None, stored total, counted total)``
    if the total row differs (stored None: no row, which a season whose board is empty may
    lack)."""
    stored, total = stored_board(season) if stored_counts is None else stored_counts
    differences: list[tuple[int | None, int | None, int]] = [
        (cups, stored.get(cups), counted.get(cups, 0))
        for cups in sorted(stored.keys() | counted.keys())
        if stored.get(cups, 0) != counted.get(cups, 0)
    ]
    if (total or 0) != sum(counted.values()) or (total is None and counted):
        differences.append((None, total, sum(counted.values())))
    return differences


def _rows(sql: str, params: list) -> list[tuple]:
    connection = _connection()
    with connection.cursor() as cursor:
        cursor.execute(sql.format(**_tables(connection)), params)
        return cursor.fetchall()


def _checked(season: int, counted: int, lowest: int | None, expected: int | None) -> int:
    """The season's total if its counts can be trusted: ``counted`` is their sum, ``lowest``
    the smallest (None: no row), ``expected`` the total row (None: no row).

    Raises:
        BoardUnreliable: a board with players but no total row, counts that do not add up to
            the total, a negative count.
    """
    if expected is None:
        if board_players(season).exists():
            raise BoardUnreliable(f"season {season} has players on its board but no total")
        expected = 0
    if counted != expected:
        raise BoardUnreliable(f"the counts add up to {counted}, the total is {expected}")
    if lowest is not None and lowest < 0:
        raise BoardUnreliable(f"a count is negative ({lowest})")
    return expected


_BANDS_SQL = """
SELECT {band} AS band, SUM(players), MIN(players),
       SUM(CASE WHEN cups IN ({wanted}) THEN players END),
       (SELECT players FROM {{totals}} WHERE season = %s)
FROM {{counts}}
WHERE season = %s
GROUP BY band
"""
"""The season's counts summed in bands between the wanted totals ``t1 > t2 > ... > tk``: band
``j`` holds the totals ``c`` with ``tj >= c > t(j+1)`` (band 0: above ``t1``), so the players
ahead of ``tj`` are the sum of the bands before ``j``. Per band: its sum, its smallest count,
the count of its wanted total (band ``j`` can hold only ``tj``), and the season's total row."""


def board_total(season: int) -> int:
    """The number of players on the board of ``season``, from its total row.

    Raises:
        BoardUnreliable: the counts fail a check.
    """
    return _bands(season, [])[1]


def cups_groups(season: int, cups: Iterable[int]) -> dict[int, CupsGroup]:
    """The groups of the board of ``season`` holding each of the totals ``cups`` (totals that
    players of the board hold), by cups; one pass over the season's counts, whatever the
    number of totals asked.

    Raises:
        BoardUnreliable: the counts fail a check, or one of ``cups`` has no player counted.
    """
    wanted = sorted(set(cups), reverse=True)
    groups = _bands(season, wanted)[0]
    for value in wanted:
        if groups[value].players < 1:
            raise BoardUnreliable(f"no player counted on {value} cups, which a player holds")
    return groups


def _bands(season: int, wanted: list[int]) -> tuple[dict[int, CupsGroup], int]:
    """The groups of the ``wanted`` totals (in decreasing order) and the season's total."""
    cases = " ".join(f"WHEN cups > %s THEN {number}" for number in range(len(wanted)))
    bands = f"CASE {cases} ELSE {len(wanted)} END" if wanted else "0"
    listed = ", ".join(["%s"] * len(wanted)) or "NULL"
    sql = _BANDS_SQL.format(band=bands, wanted=listed)
    rows = {row[0]: row[1:] for row in _rows(sql, [*wanted, *wanted, season, season])}
    expected = next(iter(rows.values()))[3] if rows else _total_row(season)
    lowest = min((row[1] for row in rows.values()), default=None)
    total = _checked(season, sum(row[0] for row in rows.values()), lowest, expected)
    groups, ahead = {}, 0
    for number, value in enumerate(wanted):
        ahead += rows.get(number, (0,))[0]
        at_value = rows.get(number + 1, (0, None, None))[2]
        groups[value] = CupsGroup(value, at_value or 0, ahead)
    return groups, total


def group_at(season: int, position: int) -> tuple[CupsGroup | None, int]:
    """The group holding the player at 0-based ``position`` of the board of ``season`` (None
    past the end), and the board's total: the season's counts read in decreasing cups.

    Raises:
        BoardUnreliable: the counts fail a check.
    """
    rows = _rows(
        "SELECT cups, players, (SELECT players FROM {totals} WHERE season = %s) "
        "FROM {counts} WHERE season = %s ORDER BY cups DESC",
        [season, season],
    )
    expected = rows[0][2] if rows else _total_row(season)
    lowest = min((players for _, players, _ in rows), default=None)
    total = _checked(season, sum(players for _, players, _ in rows), lowest, expected)
    ahead = 0
    for cups, players, _ in rows:
        if ahead + players > position:
            return CupsGroup(cups, players, ahead), total
        ahead += players
    return None, total
