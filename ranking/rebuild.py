"""Rebuild the ladder from its history (KORT_RULES §7, §8, §10, §11, §12; ``manage.py
rebuild_ladder``), player by player: the players in id order a chunk at a time and, beside them,
each kind of row of theirs, one query per kind and chunk read through a cursor (server-side on
PostgreSQL), so memory holds a chunk's rows. Their events are folded with ``ranking.fold.step``
in the order the ladder's writer applied them and compared with what is stored; ``--fix``
writes a chunk's differences through ``ranking.ladder.ladder_repair``.
"""

from __future__ import annotations

from collections import Counter, namedtuple
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from itertools import groupby
from operator import add, attrgetter, itemgetter, sub
from typing import Any, NamedTuple

from django.db import connections, router, transaction
from django.db.models import BigIntegerField, QuerySet
from django.db.models.functions import Coalesce

from domain.errors import Conflict
from matches.kort.rules import Mode, StatsLine, StreakRun, Team, streaks_of_runs, team_of
from matches.models import MatchStatus, Round, RoundStatus, Seat, stored_result
from players.models import Player, may_be_on_a_board
from ranking import fold
from ranking.board import board_differences, current_season_number, stored_board
from ranking.effects import MatchFacts, match_effect
from ranking.ladder import TOTALS, LadderRepair, ladder_repair
from ranking.models import BoardTotal, CupChange, CupKind, SeasonEnd, SeasonStanding
from seasons.models import SeasonStatus
from seasons.selectors import season_end_running
from stats import models as tables
from stats import services

CHUNK = 2000
"""Players a chunk holds, and rows one read fetches at most."""
STAT_FIELDS = tuple(services.stats_values(StatsLine()))
RANKED = len(STAT_FIELDS)
"""Where ``ranked_played`` stands in a season row, after the §8 counts."""
ZEROS = (0,) * RANKED
FIELDS = {
    "totals": TOTALS,
    "stats": STAT_FIELDS,
    "board": ("board_season",),
    "seasons": (*STAT_FIELDS, "ranked_played", "ranked_won", "cups", "best_cups"),
    "ledger": ("delta", "created_at", "cups_after", "season"),
    "standings": ("rank", "cups", "best_cups", "matches_played", "matches_won"),
    "pairs": services.PAIR_COUNTS,
    "streaks": (*services.STREAK_COUNTS, "last_match"),
    "modes": STAT_FIELDS,
}
"""Each figure compared per player, in the order its differences are reported, and its fields
as read: compared one by one, a row of ``WHOLE`` as one value shown by that name. ``NAMED_BY``:
the fields that show a row found on one side only; ``KEYS``: how many key columns follow the
player's id; ``HELD``: the counts that make a row hold a figure (a void may leave zeros)."""
WHOLE = {name: ", ".join(FIELDS[name]) for name in ("pairs", "streaks")} | {"modes": "counts"}
NAMED_BY = {"seasons": ("matches_played", "ranked_played", "cups"), "standings": ("rank", "cups")}
NAMED_BY["ledger"] = ("delta", "created_at")
STREAKS = attrgetter(*services.STREAK_COUNTS)
KEYS = {"stats": 0, "seasons": 1, "ledger": 2, "standings": 1, "pairs": 4, "streaks": 2, "modes": 2}
HELD = {"pairs": 1, "streaks": 4, "modes": RANKED}
SeatRow = namedtuple(
    "SeatRow",
    "player_id match_id seat mode status winner wins_a wins_b season finalized_at void_season "
    "voided_at completed_at",
)


class Difference(NamedTuple):
    """A stored value the replay does not reach; None: a missing row (``stored``) or a row
    that should not exist (``recomputed``). ``frozen``: in standings, never rewritten."""

    subject: str
    field: str
    stored: object
    recomputed: object
    frozen: bool = False

    def __str__(self) -> str:
        was, now = (
            "none" if v is None else v.isoformat() if isinstance(v, datetime) else v
            for v in (self.stored, self.recomputed)
        )
        return f"{self.subject}: {self.field} stored {was}, recomputed {now}"


def _reads(first: int, last: int) -> dict[str, QuerySet]:
    """Each kind of row of the players ``first`` to ``last`` (ids), ordered by player id first."""

    def own(model: Any, *columns: Any, by: str = "player_id") -> QuerySet:
        rows = model.objects.filter(**{f"{by}__gte": first, f"{by}__lte": last})
        return rows.order_by(by).values_list(by, *columns)

    over = (MatchStatus.FINALIZED, MatchStatus.VOID)
    subject = Coalesce("match_id", "season", output_field=BigIntegerField())  # a reset: its season
    result = ("trump_seat", "outcome", "winner", "wins_awarded", "shutout_team")
    rounds = own(Round, "match_id", *result, by="match__seats__player_id")
    matches = (f"match__{name}" for name in SeatRow._fields[3:])
    mates = own(Seat, "match_id", "match__seats__player_id", "match__seats__seat")
    return {
        "seasons": own(tables.SeasonStats, "season", *FIELDS["seasons"]),
        "ledger": own(CupChange, "kind", subject, *FIELDS["ledger"]),
        "standings": own(SeasonStanding, "season_id", *FIELDS["standings"]),
        "seats": own(Seat, "match_id", "seat", *matches).filter(match__status__in=over),
        "rounds": rounds.filter(status=RoundStatus.FINISHED, match__status__in=over).order_by(
            "match__seats__player_id", "match_id", "number"
        ),
        "stats": own(tables.PlayerStats, *FIELDS["stats"]),
        "modes": own(tables.ModeStats, "season", "mode", *FIELDS["modes"]),
        "pairs": own(tables.PairFigures, "side", "season", "mode", "other_id", *FIELDS["pairs"]),
        "streaks": own(tables.StreakFigures, "season", "mode", *FIELDS["streaks"]),
        "mates": mates.filter(match__status=MatchStatus.FINALIZED),
    }


@lru_cache(maxsize=100_000)
def _effect(mode: str, winner: str, wins: tuple, rounds: tuple, team: Team) -> tuple:
    """What a match of that shape gives a player of ``team`` (``ranking.effects``): cups (None
    unranked) and the §8 line, in :data:`STAT_FIELDS` order (most matches repeat a few)."""
    facts = MatchFacts(mode == Mode.RANKED, Team(winner), dict(zip(Team, wins, strict=True)),
                       [stored_result(*row) for row in rounds], {0: team}, 0)  # fmt: skip
    mine = match_effect(facts)[0]
    return mine.cups, tuple(services.stats_values(mine.stats).values())


def player_replay(player: Player, rows: dict[str, list], ends: dict[int, tuple]) -> tuple:
    """Fold the player's matches, voids and season ends (``ends``: ``(reset floor, time)`` by
    finalized season) with ``ranking.fold.step`` in the writer's order (season by season: its
    reset first, stamped as its stored row is, then its events in time order), add the rows up.
    Returns the state, each figure's rows by key, the player's ``(cups, cups_changed_at,
    best_cups, ranked_played, ranked_won)`` at the end of each finalized season whose board
    they were on, and their ``services.PlayerFigures``."""
    state, figures, boards = fold.PlayerLadder(bot=player.is_bot), services.PlayerFigures(), {}
    stats, seasons, ledger = list(ZEROS), dict[tuple, list](), dict[tuple, tuple]()
    rounds, teams, games = dict[int, list](), dict[int, dict](), dict[tuple, list]()
    for row in rows["rounds"]:
        rounds.setdefault(row[1], []).append(row[2:])
    for _, match_id, other, number in rows["mates"]:
        teams.setdefault(match_id, {})[other] = team_of(number)
    events: list[tuple[tuple, fold.Event | None]] = [((season + 1, 0), None) for season in ends]
    for seat in map(SeatRow._make, rows["seats"]):
        at, number, match_id, mode = seat.finalized_at, seat.season, seat.match_id, seat.mode
        shape = (mode, seat.winner, (seat.wins_a, seat.wins_b), tuple(rounds.get(match_id, ())))
        cups, line = _effect(*shape, team_of(seat.seat))
        finalized = fold.Finalized(match_id, number, mode, line, cups, at, number)
        events.append(((number, 1, at, 0, match_id), finalized))
        if seat.status == MatchStatus.VOID:
            voided = fold.Voided(match_id, number, mode, line, cups, seat.voided_at,
                                 seat.void_season, True)  # fmt: skip
            events.append(((seat.void_season, 1, seat.voided_at, 1, match_id), voided))
        elif match_id in teams:
            facts = (seat.completed_at, number, Mode(mode), Team(seat.winner))
            table = services.MatchTable(match_id, *facts, teams[match_id], [player.pk])
            won, variants = table.won(player.pk), table.variants()
            amounts = (1, int(won), cups or 0)
            for other, side in table.others(player.pk):
                for variant in variants:
                    pair = (side, *variant, other)
                    held = figures.pairs.get(pair, (0, 0, 0))
                    figures.pairs[pair] = tuple(map(add, held, amounts))
            for variant in variants:
                games.setdefault(variant, []).append(((seat.completed_at, match_id), won))
    resets = {row[6]: row[4] for row in rows["ledger"] if row[1] == CupKind.SEASON_RESET}
    for key, event in sorted(events, key=itemgetter(0)):
        if event is None:
            ended = key[0] - 1
            if (row := seasons.get((ended,))) and tables.counts_for_the_board(row[RANKED]):
                boards[ended] = (state.cups, state.changed_at, row[-1], *row[RANKED : RANKED + 2])
            floor, at = ends[ended]
            event = fold.SeasonReset(ended + 1, floor, resets.get(ended + 1, at))
        state, steps = fold.step(state, event)
        for step in steps:
            if isinstance(step, fold.Ledger):
                row = (step.delta, step.at, step.cups_after, step.season)
                ledger[step.kind, step.subject] = row
            elif isinstance(step, fold.SeasonOpened):
                seasons.setdefault((step.season,), [*ZEROS, 0, 0, step.cups, step.cups])
            elif isinstance(step, fold.SeasonCups):
                season = seasons[step.season,]
                season[-2:] = [step.cups, max(season[-1], step.cups)]
            elif isinstance(step, fold.StatsAdded):  # its season is open (SeasonOpened)
                season, combine = seasons[step.season,], add if step.sign > 0 else sub
                stats = list(map(combine, stats, step.line))
                season[:RANKED] = map(combine, season[:RANKED], step.line)
                for variant in ((tables.ALL_SEASONS, step.mode), (step.season, step.mode)):
                    counts = figures.modes.get(variant, ZEROS)
                    figures.modes[variant] = tuple(map(combine, counts, step.line))
                if step.ranked:
                    season[RANKED] += step.sign * step.line[0]
                    season[RANKED + 1] += step.sign * step.line[1]
    streak_rows = {}
    for variant, played in games.items():  # a run: matches of one result in completion order
        runs = []
        for won, group in groupby(sorted(played), key=itemgetter(1)):
            keys = [key for key, _ in group]
            runs.append(StreakRun(won, keys[0], keys[-1], len(keys)))
        current = runs.pop()
        streaks = streaks_of_runs(runs, current)
        figures.streaks[variant] = services.StreakState(streaks, current, runs)
        streak_rows[variant] = (*STREAKS(streaks), current.last[1])
    replayed = {"stats": {(): tuple(stats)}, "ledger": ledger, "modes": figures.modes}
    replayed["seasons"] = {key: tuple(row) for key, row in seasons.items()}
    return state, replayed | {"pairs": figures.pairs, "streaks": streak_rows}, boards, figures


def _subject(name: str, player: Player, key: tuple) -> str:
    """What a difference of figure ``name`` of ``player`` names, by its key."""
    label = f"player {player.username} (id {player.pk})"
    if name in WHOLE:
        season, mode = key[1:3] if name == "pairs" else key
        variant = f"{'all time' if season == tables.ALL_SEASONS else f'season {season}'}, {mode}"
        what = f"{key[0]} {key[3]}" if name == "pairs" else {"modes": "statistics"}.get(name, name)
        return f"player {player.pk}, {what} ({variant})"
    if name == "ledger":
        kind = {CupKind.MATCH: "match", CupKind.VOID: "void of match"}.get(key[0])
        return f"ledger {kind or 'reset opening season'} {key[1]}, {label}"
    if name == "seasons":
        return f"{label}, season {key[0]}"
    return f"standings of season {key[0]}, {label}" if name == "standings" else label


def _compared(name: str, subject: str, was: tuple | None, now: tuple | None) -> list[Difference]:
    """The differences of one row of figure ``name`` (``was`` stored, ``now`` replayed; None:
    no row): field by field (a row on one side only by its ``NAMED_BY``), or whole."""
    fields = FIELDS[name]
    if name in WHOLE:
        shown = [None if v is None else dict(zip(fields, v, strict=True)) if name == "modes"
                 else tuple(v) for v in (was, now)]  # fmt: skip
        return [Difference(subject, WHOLE[name], shown[0], shown[1])]
    named = fields if was is not None and now is not None else NAMED_BY[name]
    empty = (None,) * len(fields)
    return [
        Difference(subject, field, old, new, name == "standings")
        for field, old, new in zip(fields, was or empty, now or empty, strict=True)
        if old != new and field in named
    ]


RANK_BITS = 32
RANK_MASK = (1 << RANK_BITS) - 1
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
KIND_ORDER = {CupKind.MATCH: 0, CupKind.VOID: 1, CupKind.SEASON_RESET: 2}


class LadderCheck:
    """Compares each replayed player with their stored rows, then the frozen standings' ranks
    and the current board, handing each difference to ``found`` and counting them (``frozen``:
    those in standings). ``only``: a season checked alone."""

    def __init__(self, only: int | None, found: Callable) -> None:
        ended = SeasonEnd.objects.filter(season__status=SeasonStatus.FINALIZED)
        rows = ended.values_list("season_id", "reset_floor", "season__finalized_at")
        self.ends = {number: (floor, at) for number, floor, at in rows}
        self.current, self.only, self.found = current_season_number(), only, found
        self.differences = self.frozen = 0
        self.counted: Counter[int] = Counter()
        # The board's counts as stored before any chunk is read (``--fix`` moves them).
        self.stored_board = stored_board(self.current) if self._in(self.current) else None
        # Per finalized season, an int per player on its board at its end that sorts in
        # leaderboard order (more cups, earlier change, lower id), with the stored rank.
        self.boards: dict[int, list[int]] = {n: [] for n in self.ends if self._in(n)}

    def _in(self, season: int) -> bool:
        return self.only is None or self.only == season

    def report(self, difference: Difference) -> None:
        self.differences += 1
        self.frozen += difference.frozen
        self.found(difference)

    def player(self, player: Player, rows: dict[str, list], repair: LadderRepair | None) -> None:
        """Report the player's differences; add what to write to ``repair`` (``--fix``)."""
        state, replayed, boards, figures = player_replay(player, rows, self.ends)
        pid = player.pk
        ranked = replayed["seasons"].get((self.current,), (0,) * (RANKED + 1))[RANKED]
        on_board = tables.counts_for_the_board(ranked) and may_be_on_a_board(player)
        board = self.current if on_board else player.board_season
        board = None if not on_board and board == self.current else board
        self.counted.update([state.cups] if on_board and self._in(self.current) else [])
        stored = {name: {tuple(r[1 : 1 + n]): r[1 + n :] for r in rows[name]}
                  for name, n in KEYS.items()}  # fmt: skip
        stored["stats"] = stored["stats"] or {(): ZEROS}
        stored["totals"] = {(): (player.cups, player.best_cups, player.cups_changed_at)}
        stored["board"] = {(): (player.board_season,)}
        replayed["totals"] = {(): (state.cups, state.best_cups, state.changed_at)}
        replayed["board"], replayed["standings"] = {(): (board,)}, {}
        # The standings hold the players on the board at its end, but those banned now who
        # are not in them (a ban is not part of the history); their ranks are checked last.
        for number, (cups, at, *ended) in boards.items():
            rank = stored["standings"].get((number,), (None,))[0]
            if number in self.boards and (rank is not None or not player.is_banned):
                micros = 0 if at is None else (at - EPOCH) // timedelta(microseconds=1) + (1 << 62)
                key = ((((1 << 31) - cups) << 64) | micros) << RANK_BITS | pid
                self.boards[number].append(key << RANK_BITS | (rank or 0))
                replayed["standings"][number,] = (rank, cups, *ended)
        state = replace(state, board_season=board, banned=player.is_banned)
        for name, fields in FIELDS.items():
            if stored[name] == replayed[name]:  # then so are the rows checked
                continue
            was_all, now_all = (self._kept(name, player, side[name]) for side in (stored, replayed))
            ordered = (lambda key: (KIND_ORDER[key[0]], key[1])) if name == "ledger" else None
            for key in sorted(was_all.keys() | now_all.keys(), key=ordered):
                was, now = was_all.get(key), now_all.get(key)
                if was == now:
                    continue
                for difference in _compared(name, _subject(name, player, key), was, now):
                    self.report(difference)
                if repair is None or name == "standings":
                    continue
                if name in ("totals", "board"):
                    repair.players[pid] = state
                elif name in WHOLE:
                    repair.figures[pid] = figures
                else:  # stats, seasons, ledger: a row None is removed
                    values = None if now is None else dict(zip(fields, now, strict=True))
                    where = {"seasons": (pid, *key), "ledger": (*key, pid)}.get(name, pid)
                    getattr(repair, name)[where] = values

    def _kept(self, name: str, player: Player, rows: dict[tuple, Any]) -> dict[tuple, Any]:
        """The rows of figure ``name`` of ``player`` that the check reads and hold a figure."""
        if name in ("totals", "board"):
            on = self._in(self.current) and (name == "totals" or may_be_on_a_board(player))
            return rows if on else {}
        if name == "standings":
            return {key: row for key, row in rows.items() if key[0] in self.boards}
        if name in ("seasons", "ledger"):
            return {k: v for k, v in rows.items() if self._in(v[3] if name == "ledger" else k[0])}
        if self.only is not None or (name != "stats" and player.is_bot):
            return {}
        return rows if name == "stats" else {k: v for k, v in rows.items() if any(v[: HELD[name]])}

    def finish(self) -> None:
        """Report the standings' ranks that differ, then the current board's counts."""
        for number, keys in sorted(self.boards.items()):
            keys.sort()
            wrong = [
                ((key >> RANK_BITS) & RANK_MASK, key & RANK_MASK or None, rank)
                for rank, key in enumerate(keys, start=1)
                if key & RANK_MASK != rank
            ]
            keys.clear()
            for start in range(0, len(wrong), CHUNK):
                batch = wrong[start : start + CHUNK]
                named = Player.objects.in_bulk([pid for pid, _, _ in batch])
                for pid, was, rank in batch:
                    subject = _subject("standings", named[pid], (number,))
                    self.report(Difference(subject, "rank", was, rank, frozen=True))
        if self._in(self.current):
            found = board_differences(self.current, self.counted, self.stored_board)
            for cups, stored, recomputed in found:
                subject = f"board of season {self.current}"
                subject += "" if cups is None else f", {cups} cups"
                field = "total" if cups is None else "players"
                self.report(Difference(subject, field, stored, recomputed))


def ladder_rebuild(
    *,
    fix: bool,
    report: Callable[[Difference], Any],
    season: int | None = None,
    chunk: int = CHUNK,
    progress: Callable[[int], Callable[[int], Any]] | None = None,
) -> LadderCheck:
    """Replay the history, hand every difference to ``report`` as it is found and return the
    check that counted them; with ``fix``, write the replay, one transaction per chunk of
    ``chunk`` players (standings excepted), then count the current board again. ``season``:
    only that season's figures. ``progress(total)`` may return a function called with the
    players of each chunk done.

    Raises:
        Conflict: a season's end is running; its resets are half written.
    """
    check = LadderCheck(season, report)
    current = check.current
    connection = connections[router.db_for_write(Player)]
    done = progress(Player.objects.count()) if progress else None
    after = 0
    while True:
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            if season_end_running():
                raise Conflict("season", "a season's end is running; rebuild once it is finalized")
            chunked = Player.objects.filter(pk__gt=after).order_by("pk")
            players = list((chunked.select_for_update(no_key=True) if fix else chunked)[:chunk])
            if not players:
                break
            first, last = players[0].pk, players[-1].pk
            if connection.vendor == "postgresql":
                # Plan a chunk's reads on indexes (at the default, 4, whole tables are read).
                cursor.execute("SET LOCAL random_page_cost = 1.1")
            if fix:
                stats = tables.PlayerStats.objects.filter(pk__gte=first, pk__lte=last)
                list(stats.order_by("pk").select_for_update().values_list("pk"))
            repair = LadderRepair(current) if fix else None
            chunk_rows = {}  # each kind's rows by player id
            for name, query in _reads(first, last).items():
                grouped = groupby(query.iterator(chunk_size=chunk), itemgetter(0))
                chunk_rows[name] = {pid: list(taken) for pid, taken in grouped}
            for player in players:
                taken = {name: rows.get(player.pk, []) for name, rows in chunk_rows.items()}
                check.player(player, taken, repair)
            if repair:
                ladder_repair(repair)
        after = last
        if done:
            done(len(players))
    check.finish()
    if fix and check.differences:
        with transaction.atomic(using=connection.alias):
            list(BoardTotal.objects.select_for_update().filter(season=current).values_list("pk"))
            ladder_repair(LadderRepair(current, recount=True))
    return check
