"""The one path by which a player's cup total changes (KORT_RULES §7, §10, §11): a finalized
ranked match, the soft reset that opens a season, a void. Each change is a ledger row with the
running total, and the players' totals, best totals and last cup change move with it, in the
caller's transaction: the leaderboard's order changes here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from django.db.models import QuerySet

from bulk.compiled import CompiledRead
from bulk.updates import by_key, field_value, insert_rows, update_rows
from players.models import Player
from ranking.models import CupChange, CupKind
from stats.services import season_cups_record, season_stats_open

UPDATE_BATCH = 1000
"""Players whose totals one statement writes (a season's reset moves thousands)."""


def players_locked(player_ids: Iterable[int]) -> list[Player]:
    """The players' rows, locked in id order (so concurrent writers cannot deadlock) and read
    once locked, so their totals are current.

    The lock is ``FOR NO KEY UPDATE`` (PostgreSQL; SQLite locks the whole database): it keeps
    other writers of the rows out but lets rows that refer to the players be written (a new
    match's seats, tokens), whose foreign keys take ``KEY SHARE`` locks; with ``FOR UPDATE``
    a match seating the players would wait, and could deadlock with the holder.

    The players are a match's (at most four): the read is compiled once for each number of
    players (``bulk.compiled``)."""
    ids = sorted(set(player_ids))
    if not ids:
        return []
    read = _LOCKED.get(len(ids))
    if read is None:
        read = _LOCKED[len(ids)] = CompiledRead(Player, _lock, *[int] * len(ids), for_write=True)
    return read(*ids)


def _lock(*ids: int) -> QuerySet[Player]:
    return Player.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk")


_LOCKED: dict[int, CompiledRead[Player]] = {}
"""The compiled :func:`players_locked` reads, by number of players."""


def cups_move(
    players: Sequence[Player],
    deltas: Mapping[int, int],
    *,
    kind: CupKind,
    season: int,
    at: datetime,
    match_id: int | None = None,
) -> None:
    """Move each player's cups by ``deltas[player id]``: one ledger row each (``kind``, the
    ``season`` it belongs to, the running total ``cups_after``, stamped ``at``, the match
    ``match_id`` of a match's cups or a void), and the player's ``cups``, ``best_cups`` and
    ``cups_changed_at`` (the leaderboard's tie-break).

    ``players`` are rows locked by the caller (:func:`players_locked`). ``best_cups`` is the
    highest total ever reached (§10): a change that lifts the total above it lifts it, and
    nothing lowers it (a void is a new change, stamped now, not a rewrite of the past, §11).
    A match's cups and a void also move the player's cups of ``season`` (statistics); a reset
    opens its season with the new total, which that season's rows start from.
    """
    before = {player.pk: player.cups for player in players}
    rows = []
    for player in players:
        player.cups += deltas[player.pk]
        player.best_cups = max(player.best_cups, player.cups)
        player.cups_changed_at = at
        rows.append(
            {
                "kind": kind,
                "match_id": match_id,
                "player_id": player.pk,
                "season": season,
                "delta": deltas[player.pk],
                "cups_after": player.cups,
                "created_at": at,
            }
        )
    insert_rows(CupChange, rows)
    changed_at = field_value(Player, "cups_changed_at", at)
    for start in range(0, len(players), UPDATE_BATCH):
        batch = players[start : start + UPDATE_BATCH]
        update_rows(
            Player,
            "id",
            [player.pk for player in batch],
            {
                "cups": by_key("id", {player.pk: player.cups for player in batch}),
                "best_cups": by_key("id", {player.pk: player.best_cups for player in batch}),
                "cups_changed_at": changed_at,
            },
        )
    if kind != CupKind.SEASON_RESET:
        season_stats_open(season, before)
        season_cups_record(season, {player.pk: player.cups for player in players})
