"""A season's board as a counted structure (KORT_RULES §10; API.md "Leaderboard").

A rank is 1 + the number of players ahead. Rather than counting the players ahead (a scan of
the board), ranks and pages read two small tables that every change of the board updates in
its own transaction:

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
sum. Writers keep it by calling :func:`board_move` for every change of who is on the board or
of a board player's cups, in the transaction that writes the players' rows.

**Trust.** The reads check what is cheap to check: the season has a total row if its board has
players (a board whose total row is gone has lost its counts), the counts add up to the total
and none is negative, the count of a total covers the ties found ahead in it. A failed check
raises :class:`BoardUnreliable`; the selectors then count players instead (exact, slow) and
log a warning. ``manage.py rebuild_ladder`` compares the counts of the current season with the
players as the history gives them (:func:`board_differences`) and ``--fix`` rebuilds them
(:func:`board_build`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, F, QuerySet

from players.models import LEADERBOARD_ORDER, ON_A_BOARD, Player
from ranking.models import BoardCount, BoardTotal

Move = tuple[int | None, int | None]
"""One player's move on a board: ``(cups before, cups after)``, None for "not on the board"."""


def current_season_number() -> int:
    """The number of the current season (KORT_RULES §10), whose board is "the" leaderboard."""
    return 1


def board_players(season: int) -> QuerySet[Player]:
    """The players on the board of ``season`` (humans, no ban, ``board_season == season``) in
    leaderboard order, read through the index ``leaderboard_order``."""
    return Player.objects.filter(ON_A_BOARD, board_season=season).order_by(*LEADERBOARD_ORDER)


def is_on_board(player: Player, season: int) -> bool:
    """Whether ``player``, as loaded, is on the board of ``season`` (KORT_RULES §10)."""
    return not player.is_bot and not player.is_banned and player.board_season == season


class BoardUnreliable(Exception):
    """The counts of a season's board fail a check; the message says which."""


@dataclass(frozen=True)
class CupsGroup:
    """The players of a board holding the same total: ``cups``, how many (``players``) and how
    many players of the board hold more (``ahead``)."""

    cups: int
    players: int
    ahead: int


# --- writes -------------------------------------------------------------------------------------


def board_move(season: int, moves: Iterable[Move]) -> None:
    """Move players on the board of ``season``: each move is ``(cups before, cups after)`` of
    one player, ``None`` where they are not on that board (before: they join it; after: they
    leave it). ``(c, c)`` and ``(None, None)`` change nothing.

    Call it inside the transaction that writes the players' rows, *after* writing them
    (``cups``, ``board_season``, ``is_banned``), once per season and transaction with every
    move of that transaction, for every change that the board of ``season`` sees:

    - a finalized ranked match: ``(cups before or None, cups after)`` for each human player
      (None before when they were not on this season's board; None after while banned);
    - a ban: ``(cups, None)``; an unban: ``(None, cups)`` (players on this season's board);
    - a void's reversal: ``(cups before, cups after)``, or ``(cups before, None)`` when the
      player is left with no counted match in the season and leaves its board;
    - a season reset (the players' new totals of the new season): nothing for the new season,
      whose board the reset puts nobody on; the ended season's counts are not read again
      (its standings are frozen), so they need not follow the reset.

    Writes: the season's total first, then its counts in increasing ``cups``, with
    ``INSERT ... ON CONFLICT DO UPDATE`` increments (PostgreSQL and SQLite): every writer
    takes the row locks in that order, so concurrent moves cannot deadlock. If the season has
    no total row yet (its first move, or its counts were lost), this call builds the season's
    counts from the players' rows instead (:func:`board_build`; they already hold the moves),
    and a concurrent move waits for that build to commit, then applies its own moves.
    """
    deltas: Counter[int] = Counter()
    for before, after in moves:
        if before is not None:
            deltas[before] -= 1
        if after is not None:
            deltas[after] += 1
    changed = sorted((cups, delta) for cups, delta in deltas.items() if delta)
    if not changed:
        return
    if _total_claimed(season):
        board_build(season)
        return
    joined = sum(delta for _, delta in changed)
    if joined:
        BoardTotal.objects.filter(season=season).update(players=F("players") + joined)
    _counts_add(season, changed)


def _total_claimed(season: int) -> bool:
    """Insert the season's total row if it is missing; True if this call inserted it."""
    totals = connection.ops.quote_name(BoardTotal._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {totals} (season, players) VALUES (%s, 0) "
            "ON CONFLICT (season) DO NOTHING RETURNING id",
            [season],
        )
        return cursor.fetchone() is not None


def _counts_add(season: int, changed: list[tuple[int, int]]) -> None:
    """Add each ``(cups, delta)`` to the season's count of ``cups`` (in the given order)."""
    counts = connection.ops.quote_name(BoardCount._meta.db_table)
    values = ", ".join(["(%s, %s, %s)"] * len(changed))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {counts} (season, cups, players) VALUES {values} "
            "ON CONFLICT (season, cups) "
            f"DO UPDATE SET players = {counts}.players + excluded.players",
            [value for cups, delta in changed for value in (season, cups, delta)],
        )


def board_build(season: int) -> None:
    """Write the counts and total of ``season`` from the players' rows (one grouped read of
    the season's part of the index). Call inside a transaction that holds the season's total
    row (or the players' rows) against concurrent moves."""
    counted = counted_board(season)
    BoardCount.objects.filter(season=season).delete()
    BoardCount.objects.bulk_create(
        BoardCount(season=season, cups=cups, players=players) for cups, players in counted.items()
    )
    BoardTotal.objects.update_or_create(season=season, defaults={"players": sum(counted.values())})


# --- reads --------------------------------------------------------------------------------------


def counted_board(season: int) -> dict[int, int]:
    """``{cups: players}`` of the season's board, counted from the players' rows."""
    rows = board_players(season).order_by().values_list("cups").annotate(players=Count("id"))
    return dict(rows)


def board_differences(
    season: int, counted: dict[int, int]
) -> list[tuple[int | None, int | None, int]]:
    """How the stored counts of ``season`` differ from ``counted`` (``{cups: players}``, as
    :func:`counted_board` gives): one ``(cups, stored, counted)`` per total whose count
    differs (stored None: no row, or 0), by cups, then ``(None, stored total, counted total)``
    if the total row differs (stored None: no row, which a season whose board is empty may
    lack)."""
    stored = dict(
        BoardCount.objects.filter(season=season).exclude(players=0).values_list("cups", "players")
    )
    differences: list[tuple[int | None, int | None, int]] = [
        (cups, stored.get(cups), counted.get(cups, 0))
        for cups in sorted(stored.keys() | counted.keys())
        if stored.get(cups, 0) != counted.get(cups, 0)
    ]
    total = BoardTotal.objects.filter(season=season).values_list("players", flat=True).first()
    if (total or 0) != sum(counted.values()) or (total is None and counted):
        differences.append((None, total, sum(counted.values())))
    return differences


_GROUPS_SQL = """
SELECT cups, players, ahead, counted, lowest,
       (SELECT players FROM {totals} WHERE season = %s) AS expected
FROM (
    SELECT cups, players,
           SUM(players) OVER (ORDER BY cups DESC) - players AS ahead,
           SUM(players) OVER () AS counted,
           MIN(players) OVER () AS lowest
    FROM {counts}
    WHERE season = %s
) AS board
WHERE {where}
"""
"""The season's counts with running sums, each row ``(cups, players, ahead, counted, lowest,
expected)``: ``ahead`` the players on higher totals, ``counted`` the sum of all counts,
``lowest`` the smallest count, ``expected`` the season's total row (None if missing)."""

_SUMS_SQL = """
SELECT (SELECT SUM(players) FROM {counts} WHERE season = %s),
       (SELECT MIN(players) FROM {counts} WHERE season = %s),
       (SELECT players FROM {totals} WHERE season = %s)
"""


def _query(sql: str, where: str, params: list) -> list[tuple]:
    tables = {
        "counts": connection.ops.quote_name(BoardCount._meta.db_table),
        "totals": connection.ops.quote_name(BoardTotal._meta.db_table),
    }
    with connection.cursor() as cursor:
        cursor.execute(sql.format(where=where, **tables), params)
        return cursor.fetchall()


def _checked(season: int, counted: int | None, lowest: int | None, expected: int | None) -> int:
    """The season's total if the counts can be trusted, else raise :class:`BoardUnreliable`."""
    if expected is None:
        if board_players(season).exists():
            raise BoardUnreliable(f"season {season} has players on its board but no total")
        expected = 0
    if (counted or 0) != expected:
        raise BoardUnreliable(f"the counts add up to {counted or 0}, the total is {expected}")
    if lowest is not None and lowest < 0:
        raise BoardUnreliable(f"a count is negative ({lowest})")
    return expected


def board_total(season: int) -> int:
    """The number of players on the board of ``season``, from its total row.

    Raises:
        BoardUnreliable: the counts fail a check.
    """
    ((counted, lowest, expected),) = _query(_SUMS_SQL, "", [season, season, season])
    return _checked(season, counted, lowest, expected)


def cups_groups(season: int, cups: Iterable[int]) -> dict[int, CupsGroup]:
    """The groups of the board of ``season`` holding each of the totals ``cups`` (totals that
    players of the board hold), by cups.

    Raises:
        BoardUnreliable: the counts fail a check, or one of ``cups`` has no player counted.
    """
    wanted = sorted(set(cups))
    where = f"cups IN ({', '.join(['%s'] * len(wanted))})"
    rows = _query(_GROUPS_SQL, where, [season, season, *wanted])
    groups = {}
    for value, players, ahead, counted, lowest, expected in rows:
        _checked(season, counted, lowest, expected)
        groups[value] = CupsGroup(value, players, ahead)
    missing = [value for value in wanted if groups.get(value, CupsGroup(value, 0, 0)).players < 1]
    if missing:
        raise BoardUnreliable(f"no player counted on {missing[0]} cups, which a player holds")
    return groups


def group_at(season: int, position: int) -> tuple[CupsGroup | None, int]:
    """The group holding the player at 0-based ``position`` of the board of ``season`` (None
    past the end), and the board's total.

    Raises:
        BoardUnreliable: the counts fail a check.
    """
    where = "ahead + players > %s ORDER BY cups DESC LIMIT 1"
    rows = _query(_GROUPS_SQL, where, [season, season, position])
    if not rows:
        return None, board_total(season)
    ((cups, players, ahead, counted, lowest, expected),) = rows
    return CupsGroup(cups, players, ahead), _checked(season, counted, lowest, expected)
