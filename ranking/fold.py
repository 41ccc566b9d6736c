"""The ladder as one fold (KORT_RULES §7, §8, §10, §11): one player's ladder state, the events
that change it, and the one step each event makes.

Nothing here imports Django. ``ranking.ladder.ladder_apply`` loads each player's
:class:`PlayerLadder` from their locked row, folds the change's events with :func:`step` and
writes the rows the step returns; ``manage.py rebuild_ladder`` folds each player's whole
history with the same step and compares what the rows add up to with what is stored.

A row is what one step adds to the stored figures, in terms both writers apply the same way:

- :class:`Ledger`: one ledger row (a cup change with the total after it);
- :class:`SeasonOpened`: the player's statistics row of a season made, if missing, starting
  from the total they have now (every cup change of a season opens it first, §10);
- :class:`SeasonCups`: that row's ``cups`` set to the new total, its ``best_cups`` lifted to it;
- :class:`StatsAdded`: a statistics line added (``sign`` 1) or taken back out (-1, a void) all
  time, in a season and in a mode; a ranked line counts in the season's ranked matches too;
- :class:`BoardMoved`: the player's move on a season's board, ``(cups before, cups after)``,
  None where they are not on it (``ranking.board.board_moves``).

The state itself is the player's row: their totals, board season, ban and last reset.
Times (``at``) are opaque ordered values: the writer passes datetimes, the rebuild integers.
Statistics lines are opaque too (``matches.kort.rules.StatsLine``, or the rebuild's tuples).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from matches.kort.rules import Mode, season_reset_cups

MATCH, VOID, SEASON_RESET = "match", "void", "season_reset"
"""The kinds of ledger row (``ranking.models.CupKind``)."""


@dataclass(frozen=True, slots=True)
class PlayerLadder:
    """One player's ladder state: ``cups`` (the sum of their ledger), ``best_cups`` (the
    highest total ever reached, §10), ``changed_at`` (their last cup change: the board's
    tie-break), ``board_season`` (the season whose board their last ranked match put them on),
    ``banned``, ``bot`` (bots get neither cups nor statistics) and ``reset_season`` (the last
    season whose soft reset their totals hold)."""

    cups: int = 0
    best_cups: int = 0
    changed_at: Any = None
    board_season: int | None = None
    banned: bool = False
    bot: bool = False
    reset_season: int | None = None

    def on_board(self, season: int) -> int | None:
        """Their total while they are on the board of ``season`` (a human without a ban whose
        board season it is, §10), else None."""
        on = self.board_season == season and not self.banned and not self.bot
        return self.cups if on else None

    def moved(self, delta: int, at: Any, board_season: int | None) -> PlayerLadder:
        """The state after a cup change of ``delta`` at ``at`` that leaves them on the board
        of ``board_season``."""
        cups = self.cups + delta
        best = max(self.best_cups, cups)
        return PlayerLadder(cups, best, at, board_season, self.banned, self.bot, self.reset_season)


@dataclass(frozen=True, slots=True)
class Finalized:
    """A finalized match, for one of its human players (§7, §8): the ``cups`` it gave them
    (None: a room match, which moves no cups) and their statistics ``line``, in ``season``
    (the season it was completed in) and ``mode``, applied ``at``; ``board`` is the current
    season, whose board a ranked match puts them on."""

    match_id: int
    season: int
    mode: str
    line: Any
    cups: int | None
    at: Any
    board: int


@dataclass(frozen=True, slots=True)
class Voided:
    """The void of a finalized match (§11), for one of its human players: minus the ``cups``
    it gave them (None: none), ledgered in ``board``, the current season, at ``at``; its
    ``line`` taken back out of the statistics of ``season`` (the one it was completed in) and
    ``mode``. ``counts``: whether a ranked match of the current season still counts for them
    without it (they stay on its board, §10)."""

    match_id: int
    season: int
    mode: str
    line: Any
    cups: int | None
    at: Any
    board: int
    counts: bool


@dataclass(frozen=True, slots=True)
class Banned:
    """A ban (``banned``) or unban, seen by the board of ``board``, the current season."""

    banned: bool
    board: int


@dataclass(frozen=True, slots=True)
class SeasonReset:
    """The soft reset with floor ``floor`` that opened ``season`` (§10), taking effect ``at``."""

    season: int
    floor: int
    at: Any


Event = Finalized | Voided | Banned | SeasonReset


class Ledger(NamedTuple):
    kind: str
    subject: int
    """The match's id; for a reset, the season it opened."""
    season: int
    delta: int
    cups_after: int
    at: Any


class SeasonOpened(NamedTuple):
    season: int
    cups: int


class SeasonCups(NamedTuple):
    season: int
    cups: int


class StatsAdded(NamedTuple):
    season: int
    mode: str
    line: Any
    sign: int

    @property
    def ranked(self) -> bool:
        return self.mode == Mode.RANKED


class BoardMoved(NamedTuple):
    season: int
    before: int | None
    after: int | None


Row = Ledger | SeasonOpened | SeasonCups | StatsAdded | BoardMoved


def step(state: PlayerLadder, event: Event) -> tuple[PlayerLadder, list[Row]]:
    """The state after ``event`` and the rows it adds (module docstring). A ban is kept for
    any player; otherwise a bot's state and rows stay as they are: bots get neither cups nor
    statistics (§7, §8)."""
    if isinstance(event, Banned):
        after = replace(state, banned=event.banned)
        return after, _board_moved(state, after, event.board)
    if state.bot:
        return state, []
    if isinstance(event, SeasonReset):
        return _reset(state, event)
    return _match(state, event)


def _match(state: PlayerLadder, event: Finalized | Voided) -> tuple[PlayerLadder, list[Row]]:
    """A finalized match counted in, or a void taking it back out (§7, §8, §10, §11)."""
    voided = isinstance(event, Voided)
    sign = -1 if voided else 1
    if event.cups is None:
        rows: list[Row] = [
            SeasonOpened(event.season, state.cups),
            StatsAdded(event.season, event.mode, event.line, sign),
        ]
        return state, rows
    # The ledger row's season: the match's for a match, the current one for its void.
    ledgered = event.board if voided else event.season
    board = state.board_season
    if not isinstance(event, Voided) or event.counts:
        board = event.board
    elif board == event.board:
        board = None
    after = state.moved(sign * event.cups, event.at, board)
    rows = [
        Ledger(VOID if voided else MATCH, event.match_id, ledgered, sign * event.cups, after.cups,
               event.at),
        SeasonOpened(ledgered, state.cups),
        SeasonCups(ledgered, after.cups),
        StatsAdded(event.season, event.mode, event.line, sign),
        *_board_moved(state, after, event.board),
    ]  # fmt: skip
    return after, rows


def _reset(state: PlayerLadder, event: SeasonReset) -> tuple[PlayerLadder, list[Row]]:
    """The soft reset (§10), once: the state records it even where it keeps the total (no
    ledger row then), so a later change of the season never folds it again."""
    if state.reset_season is not None and state.reset_season >= event.season:
        return state, []
    cups = season_reset_cups(state.cups, event.floor)
    if cups == state.cups:
        return replace(state, reset_season=event.season), []
    best, board = max(state.best_cups, cups), state.board_season
    after = PlayerLadder(cups, best, event.at, board, state.banned, False, event.season)
    return after, [
        Ledger(SEASON_RESET, event.season, event.season, cups - state.cups, cups, event.at)
    ]


def _board_moved(before: PlayerLadder, after: PlayerLadder, season: int) -> list[Row]:
    moved = BoardMoved(season, before.on_board(season), after.on_board(season))
    return [] if moved.before == moved.after else [moved]


def fold(state: PlayerLadder, events: list[Event]) -> tuple[PlayerLadder, list[Row]]:
    """The state after ``events`` in order, and every row they add, in order."""
    rows: list[Row] = []
    for event in events:
        state, added = step(state, event)
        rows += added
    return state, rows
