"""The figures of KORT_RULES §12 (partners, opponents, streaks) counted again from the history,
compared with the stored ones and, on request, written over them (``manage.py rebuild_ladder``).

Streaming, in bounded memory: the human players are taken in id order, a chunk at a time; for
each chunk, their finalized, not void, matches are read in completion order (then by id) with
every seat and the player's cups (:func:`chunk_tables`), each player's expected rows folded
from them (:func:`expected_rows`, the same steps as ``stats.services``), and the stored rows of
the chunk read once and compared (:func:`figures_differences`). With ``fix``, a player whose
rows differ has them deleted and written again from the expected ones, in the caller's
transaction (call it where the players' rows are held, as the ladder's writers hold them).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from matches.cups import matches_cups
from matches.kort.rules import Mode, Streaks, Team, team_of
from matches.models import Match, MatchStatus, Seat
from players.models import Player
from stats.models import PairFigures, PairSide, StreakFigures
from stats.services import MatchTable

CHUNK = 500
"""Players counted and compared together: one read of their matches and stored rows."""

PairKey = tuple[str, int, str, int]
"""A pair row's identity for one player: ``(side, season, mode, other id)``."""
StreakKey = tuple[int, str]
"""A streak row's identity for one player: ``(season, mode)``."""


@dataclass(frozen=True)
class ExpectedRows:
    """One player's §12 rows as the history gives them: ``pairs`` ``{PairKey: (matches, won,
    cups)}`` (only pairs with matches) and ``streaks`` ``{StreakKey: (Streaks, last match's
    (completed_at, id))}``."""

    player_id: int
    pairs: Mapping[PairKey, tuple[int, int, int]]
    streaks: Mapping[StreakKey, tuple[Streaks, tuple[datetime, int]]]


@dataclass(frozen=True)
class FigureDifference:
    """A stored §12 value the history does not give: ``subject`` names the player and the
    row, ``stored`` / ``recomputed`` the values (None: no such row)."""

    subject: str
    field: str
    stored: object
    recomputed: object

    def __str__(self) -> str:
        return f"{self.subject}: {self.field} stored {self.stored}, recomputed {self.recomputed}"


def expected_rows(player_id: int, tables: Iterable[MatchTable]) -> ExpectedRows:
    """Fold the player's finalized, not void, matches (``tables``, in completion order, then
    by id) into their expected pair and streak rows (KORT_RULES §12)."""
    pairs: dict[PairKey, tuple[int, int, int]] = defaultdict(lambda: (0, 0, 0))
    streaks: dict[StreakKey, tuple[Streaks, tuple[datetime, int]]] = {}
    for table in tables:
        won = table.won(player_id)
        cups = table.cups.get(player_id, 0)
        own = table.teams[player_id]
        for season, mode in table.variants():
            before = streaks.get((season, mode), (Streaks(), None))[0]
            streaks[(season, mode)] = (before.after(won), (table.completed_at, table.match_id))
            for other, team in table.teams.items():
                if other == player_id:
                    continue
                side = PairSide.PARTNER if team is own else PairSide.OPPONENT
                matches, wins, total = pairs[(str(side), season, mode, other)]
                pairs[(str(side), season, mode, other)] = (matches + 1, wins + won, total + cups)
    return ExpectedRows(player_id, dict(pairs), streaks)


def chunk_tables(player_ids: Sequence[int]) -> Iterator[tuple[int, list[MatchTable]]]:
    """Each player of ``player_ids`` (humans, increasing ids) with their finalized, not void,
    matches in completion order, then by id, as :class:`MatchTable` values: three reads for
    the chunk (the players' seats, every seat of those matches, their cups)."""
    own = (
        Seat.objects.filter(player_id__in=player_ids, match__status=MatchStatus.FINALIZED)
        .order_by("player_id", "match__completed_at", "match_id")
        .values_list("player_id", "match_id")
    )
    by_player: dict[int, list[int]] = defaultdict(list)
    for player_id, match_id in own.iterator(chunk_size=5000):
        by_player[player_id].append(match_id)
    match_ids = {match_id for ids in by_player.values() for match_id in ids}
    matches: dict[int, Any] = {
        m["id"]: m
        for m in Match.objects.filter(pk__in=match_ids).values(
            "id", "completed_at", "season", "mode", "winner"
        )
    }
    teams: dict[int, dict[int, Team]] = defaultdict(dict)
    seats = Seat.objects.filter(match_id__in=match_ids).values_list("match_id", "player_id", "seat")
    for match_id, player_id, seat in seats.iterator(chunk_size=5000):
        teams[match_id][player_id] = team_of(seat)
    ranked = sorted(m for m, row in matches.items() if row["mode"] == Mode.RANKED)
    cups: dict[int, dict[int, int]] = {}
    for start in range(0, len(ranked), CUPS_READ):
        cups |= matches_cups(ranked[start : start + CUPS_READ])
    humans = set(player_ids)
    for player_id in player_ids:
        yield (
            player_id,
            [
                MatchTable(
                    match_id=match_id,
                    completed_at=matches[match_id]["completed_at"],
                    season=matches[match_id]["season"],
                    mode=Mode(matches[match_id]["mode"]),
                    winner=Team(matches[match_id]["winner"]),
                    teams=teams[match_id],
                    humans=sorted(humans & teams[match_id].keys()),
                    cups=cups.get(match_id, {}),
                )
                for match_id in by_player.get(player_id, [])
            ],
        )


CUPS_READ = 5000
"""Matches whose cups one read asks for."""


def figures_differences(
    expected: Iterable[ExpectedRows], *, fix: bool = False
) -> Iterator[FigureDifference]:
    """Compare each player's expected rows with the stored ones, a chunk of :data:`CHUNK`
    players at a time (one read of their stored rows per table), yielding every difference;
    with ``fix``, write the expected rows of each player that differs over theirs."""
    chunk: list[ExpectedRows] = []
    for rows in expected:
        chunk.append(rows)
        if len(chunk) == CHUNK:
            yield from _chunk_compared(chunk, fix=fix)
            chunk = []
    if chunk:
        yield from _chunk_compared(chunk, fix=fix)


def _chunk_compared(chunk: Sequence[ExpectedRows], *, fix: bool) -> Iterator[FigureDifference]:
    ids = [rows.player_id for rows in chunk]
    pairs: dict[int, dict[PairKey, tuple[int, int, int]]] = defaultdict(dict)
    stored_pairs = PairFigures.objects.filter(player_id__in=ids, matches__gt=0).values_list(
        "player_id", "side", "season", "mode", "other_id", "matches", "won", "cups"
    )
    for player_id, side, season, mode, other, matches, won, cups in stored_pairs:
        pairs[player_id][(side, season, mode, other)] = (matches, won, cups)
    streaks: dict[int, dict[StreakKey, tuple]] = defaultdict(dict)
    for row in StreakFigures.objects.filter(player_id__in=ids):
        streaks[row.player_id][(row.season, row.mode)] = _streak_values(
            Streaks(row.win_current, row.win_best, row.loss_current, row.loss_best),
            None if row.last_match is None else (row.last_completed_at, row.last_match),
        )
    wrong = []
    for rows in chunk:
        found = list(_player_differences(rows, pairs[rows.player_id], streaks[rows.player_id]))
        if found:
            wrong.append(rows)
        yield from found
    if fix and wrong:
        figures_write(wrong)


def _streak_values(streaks: Streaks, last: tuple | None) -> tuple:
    return (
        streaks.win_current,
        streaks.win_best,
        streaks.loss_current,
        streaks.loss_best,
        None if last is None else last[1],
    )


STREAK_NAMES = ("win_current", "win_best", "loss_current", "loss_best", "last_match")


def _player_differences(
    rows: ExpectedRows,
    pairs: Mapping[PairKey, tuple[int, int, int]],
    streaks: Mapping[StreakKey, tuple],
) -> Iterator[FigureDifference]:
    for key in sorted(pairs.keys() | rows.pairs.keys()):
        side, season, mode, other = key
        subject = f"player {rows.player_id}, {side} {other} ({_variant_label(season, mode)})"
        stored, recomputed = pairs.get(key), rows.pairs.get(key)
        if stored != recomputed:
            yield FigureDifference(subject, "matches, won, cups", stored, recomputed)
    expected = {key: _streak_values(*value) for key, value in rows.streaks.items()}
    for variant in sorted(streaks.keys() | expected.keys()):
        stored_row, recomputed_row = streaks.get(variant), expected.get(variant)
        if stored_row == recomputed_row:
            continue
        if recomputed_row is None and stored_row is not None and not any(stored_row[:4]):
            continue  # a row of zeros left by voids is no streak
        subject = f"player {rows.player_id}, streaks ({_variant_label(*variant)})"
        yield FigureDifference(subject, ", ".join(STREAK_NAMES), stored_row, recomputed_row)


def _variant_label(season: int, mode: str) -> str:
    return f"{'all time' if season == 0 else f'season {season}'}, {mode}"


def figures_write(players: Sequence[ExpectedRows]) -> None:
    """Write each player's expected §12 rows over their stored ones (deleted, then made)."""
    ids = [rows.player_id for rows in players]
    PairFigures.objects.filter(player_id__in=ids).delete()
    StreakFigures.objects.filter(player_id__in=ids).delete()
    PairFigures.objects.bulk_create(
        [
            PairFigures(
                player_id=rows.player_id,
                side=side,
                season=season,
                mode=mode,
                other_id=other,
                matches=matches,
                won=won,
                cups=cups,
            )
            for rows in players
            for (side, season, mode, other), (matches, won, cups) in sorted(rows.pairs.items())
        ],
        batch_size=2000,
    )
    StreakFigures.objects.bulk_create(
        [
            StreakFigures(
                player_id=rows.player_id,
                season=season,
                mode=mode,
                win_current=streaks.win_current,
                win_best=streaks.win_best,
                loss_current=streaks.loss_current,
                loss_best=streaks.loss_best,
                last_completed_at=last[0],
                last_match=last[1],
            )
            for rows in players
            for (season, mode), (streaks, last) in sorted(rows.streaks.items())
        ],
        batch_size=2000,
    )


def pairs_rebuild(*, fix: bool = False) -> list[FigureDifference]:
    """Count every human player's §12 figures again from the history, a chunk of players at a
    time, and return the differences from the stored rows (with ``fix``, written over them):
    the one call ``rebuild_ladder`` makes, inside its transaction."""
    humans = Player.objects.filter(is_bot=False).order_by("pk").values_list("pk", flat=True)

    def expected() -> Iterator[ExpectedRows]:
        ids = list(humans)
        for start in range(0, len(ids), CHUNK):
            for player_id, tables in chunk_tables(ids[start : start + CHUNK]):
                yield expected_rows(player_id, tables)

    return list(figures_differences(expected(), fix=fix))
