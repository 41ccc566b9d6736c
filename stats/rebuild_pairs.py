"""The figures of KORT_RULES §12 (partners, opponents, streaks) and the statistics per mode
counted again from the history,
compared with the stored ones and, on request, written over them (``manage.py rebuild_ladder``).

Streaming, in bounded memory: the human players are taken in id order, a chunk at a time; for
each chunk, their finalized, not void, matches are read in completion order (then by id) with
every seat and the player's cups (:func:`chunk_tables`), each player's expected rows folded
from them (:func:`expected_rows`, the same steps as ``stats.services``), and the stored rows of
the chunk read once and compared (:func:`pairs_rebuild`, one transaction a chunk). With
``fix``, the chunk's players are locked first, and a player whose rows differ has them deleted
and written again from the expected ones.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from django.db import router, transaction

from bulk.updates import Insert, run
from matches.cups import matches_cups
from matches.kort.rules import Mode, RoundResult, StatsLine, Streaks, Team, match_stats, team_of
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat, stored_result
from players.models import Player
from stats.models import ALL_SEASONS, ModeStats, PairFigures, PairSide, StreakFigures
from stats.services import MatchTable, stats_values

MODE_FIELDS = tuple(stats_values(StatsLine()))
"""The fields of a ``ModeStats`` row that the checker compares: the §8 counts."""

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
    modes: Mapping[StreakKey, Mapping[str, int]] = field(default_factory=dict)
    """The statistics per mode (``ModeStats``), by ``(season, mode)``: their field values."""


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


def mode_figures(
    player_id: int, tables: Iterable[MatchTable], results: Mapping[int, Sequence[RoundResult]]
) -> dict[StreakKey, dict[str, int]]:
    """The player's statistics per mode (KORT_RULES §8 over one mode's matches), over all time
    and each season, from their matches' ``tables`` and each match's round ``results``."""
    lines: dict[StreakKey, StatsLine] = defaultdict(StatsLine)
    for table in tables:
        line = match_stats(results.get(table.match_id, []), table.winner, table.teams[player_id])
        for season in (ALL_SEASONS, table.season):
            lines[(season, str(table.mode))] += line
    return {key: stats_values(line) for key, line in lines.items()}


def chunk_results(match_ids: Iterable[int]) -> dict[int, list[RoundResult]]:
    """The finished rounds' results of each match, in round order (one read)."""
    rounds = (
        Round.objects.filter(match_id__in=list(match_ids), status=RoundStatus.FINISHED)
        .order_by("match_id", "number")
        .values_list("match_id", "trump_seat", "outcome", "winner", "wins_awarded", "shutout_team")
    )
    results: dict[int, list[RoundResult]] = defaultdict(list)
    for match_id, trump_seat, outcome, winner, wins, shutout in rounds.iterator(chunk_size=5000):
        results[match_id].append(stored_result(trump_seat, outcome, winner, wins, shutout))
    return results


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
    modes: dict[int, dict[StreakKey, dict[str, int]]] = defaultdict(dict)
    for counted in ModeStats.objects.filter(player_id__in=ids):
        values = {name: getattr(counted, name) for name in MODE_FIELDS}
        if any(values.values()):  # a row of zeros left by voids is no figure
            modes[counted.player_id][(counted.season, counted.mode)] = values
    wrong = []
    for rows in chunk:
        found = list(_player_differences(rows, pairs[rows.player_id], streaks[rows.player_id]))
        for variant in sorted(modes[rows.player_id].keys() | rows.modes.keys()):
            stored_values = modes[rows.player_id].get(variant)
            recomputed_values = rows.modes.get(variant)
            if stored_values != recomputed_values:
                subject = f"player {rows.player_id}, statistics ({_variant_label(*variant)})"
                found.append(FigureDifference(subject, "counts", stored_values, recomputed_values))
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
    """Write each player's expected §12 rows over their stored ones (deleted, then made by
    ``bulk.updates.Insert``: an ``INSERT`` a table and ``INSERT_PARAMS`` values)."""
    ids = [rows.player_id for rows in players]
    PairFigures.objects.filter(player_id__in=ids).delete()
    StreakFigures.objects.filter(player_id__in=ids).delete()
    ModeStats.objects.filter(player_id__in=ids).delete()
    mode_rows = [
        {"player_id": rows.player_id, "season": season, "mode": mode, **values}
        for rows in players
        for (season, mode), values in sorted(rows.modes.items())
    ]
    pair_rows = [
        {
            "player_id": rows.player_id,
            "side": side,
            "season": season,
            "mode": mode,
            "other_id": other,
            "matches": matches,
            "won": won,
            "cups": cups,
        }
        for rows in players
        for (side, season, mode, other), (matches, won, cups) in sorted(rows.pairs.items())
    ]
    streak_rows = [
        {
            "player_id": rows.player_id,
            "season": season,
            "mode": mode,
            "win_current": streaks.win_current,
            "win_best": streaks.win_best,
            "loss_current": streaks.loss_current,
            "loss_best": streaks.loss_best,
            "last_completed_at": last[0],
            "last_match": last[1],
        }
        for rows in players
        for (season, mode), (streaks, last) in sorted(rows.streaks.items())
    ]
    run(
        [
            Insert(ModeStats, mode_rows),
            Insert(PairFigures, pair_rows),
            Insert(StreakFigures, streak_rows),
        ]
    )


def pairs_rebuild(*, fix: bool = False) -> list[FigureDifference]:
    """Count every human player's §12 figures again from the history and return the
    differences from the stored rows (with ``fix``, written over them): ``rebuild_ladder``'s
    check of them. One transaction per :data:`CHUNK` players, which with ``fix`` first locks
    them in id order, as the ladder's writers do, so a finalization running meanwhile waits or
    is read; memory holds one chunk's matches."""
    found: list[FigureDifference] = []
    after = 0
    while True:
        with transaction.atomic(using=router.db_for_write(Player)):
            humans = Player.objects.filter(is_bot=False, pk__gt=after).order_by("pk")
            if fix:
                humans = humans.select_for_update(no_key=True)
            ids = list(humans.values_list("pk", flat=True)[:CHUNK])
            if not ids:
                return found
            chunk = list(chunk_tables(ids))
            results = chunk_results({t.match_id for _, tables in chunk for t in tables})
            expected = [
                replace(
                    expected_rows(player_id, tables), modes=mode_figures(player_id, tables, results)
                )
                for player_id, tables in chunk
            ]
            found += _chunk_compared(expected, fix=fix)
        after = ids[-1]
