"""KORT round and match rules: pure functions over round summaries.

Nothing here imports Django. Every rule cites its section of the product rulebook
(``KORT_RULES.md``): round outcomes (§2), the Bavan vote (§4), the next trump caller (§5),
the end of a match (§1), cups (§7), the "My games" statistics fold (§8) and the soft reset
that opens a season (§10).

Seats are ints 0..3 in order of play; team A holds seats 0 and 2, team B seats 1 and 3 (§1).
Errors are :class:`InvalidRoundError` (a ``ValueError``) whose ``field`` names the wire field
the problem concerns, so the API can answer ``{field: [message]}``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from enum import StrEnum
from typing import NamedTuple

from domain.errors import RuleError

SEATS = (0, 1, 2, 3)
TRICKS_TO_WIN = 7
TRICKS_IN_ROUND = 13
VOTE_LENGTH_MS = 30_000
"""The Bavan vote lasts 30 s; a vote at exactly 30 000 ms is in time (KORT_RULES §4)."""
HANDS_SHOWN_MS = 15_000
"""The 7:0 team's hands stay shown at least 15 s after the vote started (KORT_RULES §4)."""
BOT_VOTE_DELAY_MS = 2_000
"""Bots vote 2 s after the vote starts (KORT_RULES §4)."""


class Team(StrEnum):
    """The two partnerships: A (seats 0 and 2) and B (seats 1 and 3) (KORT_RULES §1)."""

    A = "A"
    B = "B"

    @property
    def other(self) -> Team:
        """The opposing team."""
        return Team.B if self is Team.A else Team.A

    @property
    def seats(self) -> tuple[int, int]:
        """The team's two seats, lower first."""
        return (0, 2) if self is Team.A else (1, 3)


def team_of(seat: int) -> Team:
    """The team of ``seat`` (0..3): even seats are team A, odd seats team B (KORT_RULES §1)."""
    return Team.A if seat % 2 == 0 else Team.B


class Mode(StrEnum):
    """Ranked matches play to 3 wins and carry cups; room matches play to 7 (§1, §7)."""

    RANKED = "ranked"
    ROOM = "room"


TARGET_WINS = {Mode.RANKED: 3, Mode.ROOM: 7}
"""Match wins that end a match, by mode (KORT_RULES §1)."""


class Outcome(StrEnum):
    """What a finished round counts as (KORT_RULES §2 table)."""

    WIN = "win"
    KORT = "kort"
    AT_KORT = "at_kort"
    BAVAN = "bavan"
    AT_BAVAN = "at_bavan"
    BAVAN_FAILED = "bavan_failed"


SHUTOUT_OUTCOMES = (
    Outcome.KORT,
    Outcome.AT_KORT,
    Outcome.BAVAN,
    Outcome.AT_BAVAN,
    Outcome.BAVAN_FAILED,
)
"""Outcomes of a round that reached 7:0; the "My games" outcome counts (KORT_RULES §8)."""


class BavanDecision(StrEnum):
    """The decision at 7:0: go for Bavan or stop with the Kort / At-kort (KORT_RULES §2, §4)."""

    GO = "go"
    STOP = "stop"


class Vote(StrEnum):
    """One voter's choice in the Bavan vote (KORT_RULES §4)."""

    BAVAN = "bavan"
    STOP = "stop"


class InvalidRoundError(RuleError):
    """A round report breaks a rule. ``field`` is the wire field it concerns."""


@dataclass(frozen=True)
class RoundResult:
    """What a finished round counts for (KORT_RULES §2).

    ``winner`` is the team awarded ``wins_awarded`` match wins; ``shutout_team`` is the team
    that reached 7:0 (the Kort / At-kort / Bavan team) or None for a plain win.
    """

    outcome: Outcome
    winner: Team
    wins_awarded: int
    trump_team: Team
    shutout_team: Team | None = None

    @property
    def bavan_called(self) -> bool:
        """Whether the 7:0 team went for Bavan, made or failed (KORT_RULES §8)."""
        return self.outcome in (Outcome.BAVAN, Outcome.AT_BAVAN, Outcome.BAVAN_FAILED)


_WINS = {
    Outcome.WIN: 1,
    Outcome.KORT: 5,
    Outcome.AT_KORT: 7,
    Outcome.BAVAN: 10,
    Outcome.AT_BAVAN: 13,
    Outcome.BAVAN_FAILED: 5,
}


def _check_tricks(tricks: Mapping[Team, int]) -> tuple[int, int]:
    return _trick_count(tricks, Team.A), _trick_count(tricks, Team.B)


def _trick_count(tricks: Mapping[Team, int], team: Team) -> int:
    value = tricks.get(team)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRoundError("tricks", f"tricks of team {team} must be a whole number")
    if value < 0:
        raise InvalidRoundError("tricks", f"tricks cannot be negative; got {value}")
    return value


def round_outcome(
    trump_seat: int, tricks: Mapping[Team, int], bavan: BavanDecision | None
) -> RoundResult:
    """The outcome of a finished round from its summary (KORT_RULES §2).

    ``tricks`` maps each team to its final trick count; ``bavan`` is the Bavan decision taken at
    7:0 (None when no 7:0 was reached).

    Final tricks and decision must form one of: 7:1..7:6 with no decision (``win``); 7:0 with
    ``stop`` (``kort`` for the trump team, ``at_kort`` for the defenders); 13:0 with ``go``
    (``bavan`` / ``at_bavan``); (7+j):1, j = 0..5, with ``go`` (``bavan_failed``: the opponents
    of the Bavan team get 5 wins).

    Raises:
        InvalidRoundError: on ``trump_seat`` outside 0..3, bad trick counts, or a combination
            the rules do not allow (the message names the rule).
    """
    if type(trump_seat) is not int or trump_seat not in SEATS:
        raise InvalidRoundError("trump_seat", f"a seat is 0, 1, 2 or 3; got {trump_seat!r}")
    a, b = _check_tricks(tricks)
    trump_team = team_of(trump_seat)
    leader = Team.A if a >= b else Team.B
    high, low = max(a, b), min(a, b)

    def result(outcome: Outcome, winner: Team, shutout: Team | None = None) -> RoundResult:
        return RoundResult(outcome, winner, _WINS[outcome], trump_team, shutout)

    if high == TRICKS_TO_WIN and 1 <= low <= 6 and bavan is None:
        return result(Outcome.WIN, leader)
    if low == 0 and high in (TRICKS_TO_WIN, TRICKS_IN_ROUND):
        return _shutout(high, leader, trump_team, bavan, result)
    if low == 1 and TRICKS_TO_WIN <= high <= TRICKS_IN_ROUND - 1 and bavan is BavanDecision.GO:
        return result(Outcome.BAVAN_FAILED, leader.other, leader)
    if high == TRICKS_TO_WIN and 1 <= low <= 6 and bavan is BavanDecision.STOP:
        raise InvalidRoundError(
            "bavan",
            f"a Bavan decision is taken only at 7:0 (KORT_RULES §4); got {a}:{b} with 'stop'",
        )
    if bavan is BavanDecision.GO:
        raise InvalidRoundError(
            "tricks",
            "a Bavan ends at 13:0 or when the opponents take their first trick, (7+j):1 "
            f"(KORT_RULES §2); got {a}:{b}",
        )
    raise InvalidRoundError(
        "tricks",
        f"a round ends when a team reaches 7 tricks, 7:0 to 7:6 (KORT_RULES §1); got {a}:{b}",
    )


def _shutout(
    high: int,
    leader: Team,
    trump_team: Team,
    bavan: BavanDecision | None,
    result: Callable[[Outcome, Team, Team | None], RoundResult],
) -> RoundResult:
    trump_side = leader is trump_team
    if high == TRICKS_TO_WIN:
        if bavan is None:
            raise InvalidRoundError(
                "bavan",
                "a 7:0 needs the Bavan decision first: 'stop' or 'go', or 'vote' to hold the vote "
                "live (KORT_RULES §4)",
            )
        if bavan is BavanDecision.GO:
            raise InvalidRoundError(
                "tricks",
                "a Bavan ends at 13:0 or when the opponents take their first trick (KORT_RULES "
                "§3); got 7:0 with 'go'",
            )
        return result(Outcome.KORT if trump_side else Outcome.AT_KORT, leader, leader)
    if bavan is not BavanDecision.GO:
        raise InvalidRoundError(
            "bavan", "13:0 is reached only by going for Bavan: the decision must be 'go' (§3)"
        )
    return result(Outcome.BAVAN if trump_side else Outcome.AT_BAVAN, leader, leader)


def next_trump_seat(trump_seat: int, result: RoundResult) -> int:
    """The trump caller of the next round (KORT_RULES §5).

    ``kort`` or ``bavan`` (the trump team's shutouts): the caller's partner. Any other round the
    trump team won: the same caller. A round the defenders won: the next seat in play order.
    """
    if result.outcome in (Outcome.KORT, Outcome.BAVAN):
        return (trump_seat + 2) % 4
    if result.winner is result.trump_team:
        return trump_seat
    return (trump_seat + 1) % 4


def match_winner(wins: Mapping[Team, int], target_wins: int) -> Team | None:
    """The team whose match wins reached ``target_wins``, or None while the match is on (§1)."""
    for team in Team:
        if wins.get(team, 0) >= target_wins:
            return team
    return None


# --- The Bavan vote (KORT_RULES §4) --------------------------------------------------------


@dataclass(frozen=True)
class CastVote:
    """One vote as cast: the voter's seat, ``bavan`` or ``stop``, and milliseconds after the
    vote opened."""

    seat: int
    vote: Vote
    at_ms: int


@dataclass(frozen=True)
class VoteTally:
    """The state of one Bavan vote of ``team``; fold votes in with :meth:`cast`.

    ``decision`` and ``resolved_at_ms`` are set once the votes alone settle it (a ``stop``, or
    the second ``bavan``); :meth:`at_deadline` settles the rest (KORT_RULES §4 table).
    ``length_ms`` is the vote's length: 30 000 ms by the rules, shorter only where a deployment
    shortens its live votes.
    """

    team: Team
    votes: tuple[CastVote, ...] = ()
    decision: BavanDecision | None = None
    resolved_at_ms: int | None = None
    length_ms: int = VOTE_LENGTH_MS

    def cast(self, vote: CastVote, field: str = "bavan_votes") -> VoteTally:
        """The tally after ``vote``.

        Raises:
            InvalidRoundError: a voter not on the 7:0 team, a second vote by a seat, a vote after
                the vote is resolved, or one after ``length_ms`` (``field`` names where it came
                from).
        """
        if vote.seat not in self.team.seats:
            raise InvalidRoundError(
                field,
                f"seat {vote.seat} cannot vote: only seats {self.team.seats[0]} and "
                f"{self.team.seats[1]} of the 7:0 team vote (KORT_RULES §4)",
            )
        if any(v.seat == vote.seat for v in self.votes):
            raise InvalidRoundError(
                field, f"seat {vote.seat} already voted; a vote cannot be changed (KORT_RULES §4)"
            )
        if self.decision is not None:
            raise InvalidRoundError(
                field,
                f"seat {vote.seat} voted after the vote was resolved at {self.resolved_at_ms} ms "
                "(KORT_RULES §4)",
            )
        if vote.at_ms < 0 or past_deadline(vote.at_ms, self.length_ms):
            raise InvalidRoundError(
                field,
                f"seat {vote.seat} voted at {vote.at_ms} ms; votes count from 0 to "
                f"{self.length_ms} ms (KORT_RULES §4)",
            )
        votes = (*self.votes, vote)
        decision = None
        if vote.vote is Vote.STOP:
            decision = BavanDecision.STOP
        elif len(votes) == 2:
            decision = BavanDecision.GO
        resolved_at = vote.at_ms if decision else None
        return replace(self, votes=votes, decision=decision, resolved_at_ms=resolved_at)

    def at_deadline(self) -> VoteTally:
        """The tally once the vote's time has passed: one ``bavan`` and silence is ``go``; both
        silent is a refusal (KORT_RULES §4)."""
        if self.decision is not None:
            return self
        decision = BavanDecision.GO if self.votes else BavanDecision.STOP
        return replace(self, decision=decision, resolved_at_ms=self.length_ms)


def shutout_team(tricks: Mapping[Team, int]) -> Team | None:
    """The team leading 7:0 with ``tricks``, or None at any other score: the Bavan is decided
    at 7:0 only, and a live vote opens only then (KORT_RULES §2, §4)."""
    a, b = tricks[Team.A], tricks[Team.B]
    if sorted((a, b)) != [0, TRICKS_TO_WIN]:
        return None
    return Team.A if a else Team.B


def team_past_7_0(tricks: Mapping[Team, int]) -> Team | None:
    """The team that may have led 7:0 in a round ending with ``tricks``: the leader, when it
    has at least 7 tricks and the other team at most 1 (a refusal ends at 7:0, a Bavan at 13:0,
    a failed one at (7+j):1; KORT_RULES §2, §4), else None: no Bavan vote was held."""
    leader = Team.A if tricks[Team.A] >= tricks[Team.B] else Team.B
    if tricks[leader] < TRICKS_TO_WIN or tricks[leader.other] > 1:
        return None
    return leader


def past_deadline(at_ms: int, length_ms: int = VOTE_LENGTH_MS) -> bool:
    """Whether ``at_ms`` (milliseconds after the vote opened) is past the vote's deadline: the
    one boundary of KORT_RULES §4. A vote at exactly ``length_ms`` is in time; the silence rows
    of the §4 table resolve only once the time is strictly past it."""
    return at_ms > length_ms


def bot_votes_due(at_ms: int) -> bool:
    """Whether the bots' votes are due ``at_ms`` after the vote opened (2 s, KORT_RULES §4)."""
    return at_ms >= BOT_VOTE_DELAY_MS


def counts_as_bot(is_bot: bool, has_left: bool) -> bool:
    """A voter seat counts as a bot when its player is a bot or has left the match (KORT_RULES
    §4; §9: a bot plays and votes for a leaver)."""
    return is_bot or has_left


def bot_vote(partner_is_bot: bool, bavan_guaranteed: bool) -> Vote:
    """A bot's vote (KORT_RULES §4): ``bavan`` beside a human partner; beside another bot,
    ``bavan`` only when the Bavan is guaranteed (§6), else ``stop``."""
    return Vote.BAVAN if not partner_is_bot or bavan_guaranteed else Vote.STOP


def resolve_votes(
    team: Team,
    votes: Iterable[CastVote],
    length_ms: int = VOTE_LENGTH_MS,
    *,
    until_deadline: bool = True,
) -> VoteTally:
    """Resolve a vote of ``team`` lasting ``length_ms`` from every vote as cast.

    Votes are taken in order of ``at_ms`` (ties keep the listed order). With ``until_deadline``
    (a finished vote) the tally is settled at the deadline, so ``decision`` is never None;
    without it, ``decision`` is None while the votes so far settle nothing (KORT_RULES §4).

    Raises:
        InvalidRoundError: (field ``bavan_votes``) for any vote §4 would reject.
    """
    tally = VoteTally(team, length_ms=length_ms)
    for vote in sorted(votes, key=lambda v: v.at_ms):
        tally = tally.cast(vote)
    return tally.at_deadline() if until_deadline else tally


def hands_shown(at_ms: int, resolved_at_ms: int | None) -> bool:
    """Whether the 7:0 team's hands are shown ``at_ms`` after the vote started: from the start
    until at least 15 000 ms, and until the decision if that comes later (``resolved_at_ms``
    None: not decided yet). The opponents' hands are never shown (KORT_RULES §4)."""
    if at_ms < 0:
        return False
    return resolved_at_ms is None or at_ms <= max(HANDS_SHOWN_MS, resolved_at_ms)


# --- Cups (KORT_RULES §7) ------------------------------------------------------------------

MATCH_BONUS = 2
CLEAN_SWEEP_BONUS = 3


@dataclass(frozen=True)
class TeamCups:
    """The cup change of one team's human players for a ranked match, explained (KORT_RULES
    §7; API.md "Match cups explained"): ``rounds`` the signed value of each round in order
    (+v won, -v lost), ``match_bonus`` +2 for the match winners, ``sweep_bonus`` +3 more when
    the losers ended on 0 wins."""

    rounds: tuple[int, ...]
    match_bonus: int
    sweep_bonus: int

    @property
    def total(self) -> int:
        """The team's cup change: the rounds plus the bonuses."""
        return sum(self.rounds) + self.match_bonus + self.sweep_bonus


def cups_breakdown(
    results: Sequence[RoundResult], winner: Team, wins: Mapping[Team, int]
) -> dict[Team, TeamCups]:
    """Each team's cup change for a finished ranked match, round by round and its bonuses
    (KORT_RULES §7).

    ``results`` are the match's rounds in order, ``winner`` the match winner and ``wins`` the
    final match wins. Per round +v to the round's winners and -v to its losers (v = the match
    wins the round awarded), then +2 to the match winners and +3 more when the losers ended on
    0 wins; the losers get no bonus.
    """
    swept = wins.get(winner.other, 0) == 0
    return {
        team: TeamCups(
            rounds=tuple(r.wins_awarded if r.winner is team else -r.wins_awarded for r in results),
            match_bonus=MATCH_BONUS if team is winner else 0,
            sweep_bonus=CLEAN_SWEEP_BONUS if team is winner and swept else 0,
        )
        for team in Team
    }


def match_cups(
    results: Sequence[RoundResult], winner: Team, wins: Mapping[Team, int]
) -> dict[Team, int]:
    """Cup change of each team's human players for a finished ranked match (KORT_RULES §7):
    ``{Team.A: delta, Team.B: delta}``, the totals of :func:`cups_breakdown`."""
    return {team: cups.total for team, cups in cups_breakdown(results, winner, wins).items()}


# --- "My games" statistics (KORT_RULES §8) -------------------------------------------------


@dataclass(frozen=True)
class StatsLine:
    """One team's "My games" counts over some rounds and matches (KORT_RULES §8).

    ``outcomes`` maps each shutout outcome to ``(team, opponents)``: rounds in which the own
    team, or the opponents, were the 7:0 team with that outcome.
    """

    matches_played: int = 0
    matches_won: int = 0
    matches_lost: int = 0
    rounds_played: int = 0
    rounds_won: int = 0
    bavan_called: int = 0
    bavan_made: int = 0
    outcomes: Mapping[Outcome, tuple[int, int]] = field(
        default_factory=lambda: dict.fromkeys(SHUTOUT_OUTCOMES, (0, 0))
    )

    def __add__(self, other: StatsLine) -> StatsLine:
        return StatsLine(
            **{name: getattr(self, name) + getattr(other, name) for name in STATS_COUNTS},
            outcomes={
                o: (
                    self.outcomes[o][0] + other.outcomes[o][0],
                    self.outcomes[o][1] + other.outcomes[o][1],
                )
                for o in SHUTOUT_OUTCOMES
            },
        )

    def __neg__(self) -> StatsLine:
        """The line that takes this one back out of a sum (a voided match, KORT_RULES §11)."""
        return StatsLine(
            **{name: -getattr(self, name) for name in STATS_COUNTS},
            outcomes={o: (-team, -opponents) for o, (team, opponents) in self.outcomes.items()},
        )


STATS_COUNTS: tuple[str, ...] = tuple(
    line_field.name for line_field in fields(StatsLine) if line_field.name != "outcomes"
)
"""The plain "My games" counts (KORT_RULES §8), in order: the fields of :class:`StatsLine`
but its ``outcomes``. The one list the statistics' columns, reads and admin derive theirs from."""
STATS_SIDES = ("team", "opponents")
"""The two counts of each shutout outcome (KORT_RULES §8): the own team's rounds, the
opponents'; the order of a :attr:`StatsLine.outcomes` pair."""


def outcome_count_names(outcome: Outcome) -> tuple[str, str]:
    """The names of ``outcome``'s (team, opponents) counts: ``"kort_team"``,
    ``"kort_opponents"``, ... (KORT_RULES §8)."""
    return (f"{outcome.value}_{STATS_SIDES[0]}", f"{outcome.value}_{STATS_SIDES[1]}")


def round_stats(result: RoundResult, team: Team) -> StatsLine:
    """What one finished round adds to the statistics of a player of ``team`` (KORT_RULES §8).

    "Bavan called" counts rounds in which the player's team went for Bavan (made or failed);
    "made" those that reached 13:0.
    """
    outcomes = dict.fromkeys(SHUTOUT_OUTCOMES, (0, 0))
    own = result.shutout_team is team
    if result.shutout_team is not None:
        outcomes[result.outcome] = (1, 0) if own else (0, 1)
    called = own and result.bavan_called
    made = called and result.outcome is not Outcome.BAVAN_FAILED
    return StatsLine(
        rounds_played=1,
        rounds_won=int(result.winner is team),
        bavan_called=int(called),
        bavan_made=int(made),
        outcomes=outcomes,
    )


def match_stats(results: Sequence[RoundResult], winner: Team, team: Team) -> StatsLine:
    """The statistics a finished match adds for a player of ``team`` (KORT_RULES §8)."""
    line = StatsLine(
        matches_played=1, matches_won=int(winner is team), matches_lost=int(winner is not team)
    )
    for result in results:
        line = line + round_stats(result, team)
    return line


# --- Streaks (KORT_RULES §12) ---------------------------------------------------------------


@dataclass(frozen=True)
class Streaks:
    """A player's win and loss streaks over some matches in completion order (KORT_RULES
    §12): the ``current`` run of each kind (the run that includes the latest match; 0 for the
    other kind) and the ``best`` (longest) run ever."""

    win_current: int = 0
    win_best: int = 0
    loss_current: int = 0
    loss_best: int = 0

    def after(self, won: bool) -> Streaks:
        """The streaks once one more match, ``won`` or lost, follows the ones counted."""
        if won:
            run = self.win_current + 1
            return Streaks(run, max(self.win_best, run), 0, self.loss_best)
        run = self.loss_current + 1
        return Streaks(0, self.win_best, run, max(self.loss_best, run))


def streaks_of(results: Iterable[bool]) -> Streaks:
    """The streaks of a player's matches, each ``True`` if won, in completion order (then
    match id), void matches left out as if never played (KORT_RULES §12)."""
    streaks = Streaks()
    for won in results:
        streaks = streaks.after(won)
    return streaks


RunKey = tuple[datetime, int]
"""Where a match stands in a player's streaks (KORT_RULES §12): its completion time, then its
id."""


@dataclass(frozen=True)
class StreakRun:
    """A run of ``length`` consecutive matches all ``won`` or all lost (KORT_RULES §12), from
    the match ``first`` to the match ``last`` (:data:`RunKey`)."""

    won: bool
    first: RunKey
    last: RunKey
    length: int

    @classmethod
    def single(cls, key: RunKey, won: bool) -> StreakRun:
        """The run of the one match ``key``."""
        return cls(won, key, key, 1)

    def spans(self, key: RunKey) -> bool:
        """Whether ``key`` lies between the run's first and last match (both included)."""
        return self.first <= key <= self.last


def runs_joined(pieces: Iterable[StreakRun]) -> list[StreakRun]:
    """The runs that ``pieces`` (runs and single matches, in completion order) make: each two
    neighbours of one kind joined into one."""
    runs: list[StreakRun] = []
    for piece in pieces:
        if runs and runs[-1].won == piece.won:
            last = runs[-1]
            runs[-1] = StreakRun(last.won, last.first, piece.last, last.length + piece.length)
        else:
            runs.append(piece)
    return runs


@dataclass(frozen=True)
class RunWindow:
    """The runs of a player next to the match ``key`` (KORT_RULES §12): ``around`` spans it
    (None: it falls between two runs), ``before`` is the run just before (``around`` or the
    key) and ``after`` the run just after. A match counted in or taken out changes these
    runs alone."""

    key: RunKey
    before: StreakRun | None = None
    around: StreakRun | None = None
    after: StreakRun | None = None

    @classmethod
    def of(cls, runs: Sequence[StreakRun], key: RunKey) -> RunWindow:
        """The window of ``key`` in ``runs``, which are in completion order and hold the run
        spanning or just before ``key``, the one before that, and the run just after."""
        earlier = [run for run in runs if run.first <= key]
        later = [run for run in runs if run.first > key]
        around = earlier[-1] if earlier and earlier[-1].spans(key) else None
        if around is not None:
            earlier.pop()
        return cls(key, earlier[-1] if earlier else None, around, later[0] if later else None)

    @property
    def runs(self) -> list[StreakRun]:
        """The window's runs, in completion order."""
        return [run for run in (self.before, self.around, self.after) if run is not None]

    def counted_in(self, won: bool, members: Sequence[tuple[RunKey, bool]] = ()) -> list[StreakRun]:
        """The runs that replace :attr:`runs` once the match ``key``, ``won`` or lost, counts:
        it extends a run next to it, joins the two around it, or splits ``around`` of the
        other kind (whose matches ``members`` are then, as ``(key, won)`` pairs; a match of
        the kind of ``around`` only lengthens it, and needs none)."""
        match = StreakRun.single(self.key, won)
        if self.around is None:
            pieces = [self.before, match, self.after]
        elif self.around.won == won:
            around = self.around
            pieces = [self.before, replace(around, length=around.length + 1), self.after]
        else:
            pieces = [self.before, *_singles(members, self.key, match), self.after]
        return runs_joined(piece for piece in pieces if piece is not None)

    def taken_out(self, members: Sequence[tuple[RunKey, bool]]) -> list[StreakRun]:
        """The runs that replace :attr:`runs` once the match ``key`` of ``around``, whose
        matches are ``members``, is taken out (a void): ``around`` shortens or splits, or goes
        and its neighbours join."""
        pieces = [self.before, *_singles(members, self.key, None), self.after]
        return runs_joined(piece for piece in pieces if piece is not None)


def _singles(
    members: Sequence[tuple[RunKey, bool]], key: RunKey, match: StreakRun | None
) -> list[StreakRun]:
    """A run of one match for each of ``members`` other than ``key``, and ``match`` in its
    place, in completion order."""
    singles = [StreakRun.single(member, won) for member, won in members if member != key]
    if match is not None:
        singles.append(match)
    return sorted(singles, key=lambda run: run.first)


def streaks_of_runs(runs: Iterable[StreakRun], current: StreakRun | None) -> Streaks:
    """The streaks (KORT_RULES §12) whose current run is ``current`` (None: no match counts)
    and whose best runs are the longest of ``runs`` and ``current``."""
    best = {True: 0, False: 0}
    for run in [*runs, *([current] if current else [])]:
        best[run.won] = max(best[run.won], run.length)
    win = current.length if current is not None and current.won else 0
    loss = current.length if current is not None and not current.won else 0
    return Streaks(win, best[True], loss, best[False])


class RunsMoved(NamedTuple):
    """What counting a match in, or taking it out, does to a player's runs (KORT_RULES §12):
    the runs next to it ``replaced`` (the current one among them, if it is) give way to the
    ended runs ``ended`` and the ``current`` run (None: no match counts), and the streaks
    become ``streaks``. Of each kind in ``shortened`` the longest run next to the match got
    shorter: its best in ``streaks`` is the longest of the runs that replace them, and an
    ended run further away may be longer."""

    replaced: Sequence[StreakRun]
    ended: Sequence[StreakRun]
    current: StreakRun | None
    streaks: Streaks
    shortened: Sequence[bool] = ()


def runs_moved(
    ended: Sequence[StreakRun],
    current: StreakRun | None,
    streaks: Streaks,
    key: RunKey,
    won: bool,
    counted: bool,
    members: Sequence[tuple[RunKey, bool]] = (),
) -> RunsMoved:
    """The runs once the match ``key``, ``won`` or lost, is counted in (``counted``) or taken
    out (a void) anywhere in completion order (KORT_RULES §12: a void match is taken out as if
    never played), from the player's ``streaks``, their ``current`` run and the ended runs
    next to ``key`` (``ended``: the two latest starting at or before it and the first starting
    after it). ``members`` are the other matches of the run that holds ``key``, as ``(key,
    won)`` pairs, when the match splits or shortens that run (a void, or a match of the other
    kind). A match counted after every one counted extends the current run, or ends it and
    starts the next: it needs no ended run."""
    if counted and (current is None or current.last < key):
        if current is not None and current.won == won:
            following = StreakRun(won, current.first, key, current.length + 1)
            return RunsMoved([current], [], following, streaks.after(won))
        replaced = [] if current is None else [current]
        return RunsMoved(replaced, replaced, StreakRun.single(key, won), streaks.after(won))
    window = RunWindow.of([*ended, *([] if current is None else [current])], key)
    runs = window.counted_in(won, members) if counted else window.taken_out(members)
    if current in window.runs:
        current = runs.pop() if runs else None
    best = {True: streaks.win_best, False: streaks.loss_best}
    shortened = []
    for kind in best:
        before = max((run.length for run in window.runs if run.won == kind), default=0)
        after = max(
            (run.length for run in [*runs, current] if run is not None and run.won == kind),
            default=0,
        )
        if after < before:
            shortened.append(kind)
            best[kind] = after
        else:
            best[kind] = max(best[kind], after)
    moved = replace(streaks_of_runs((), current), win_best=best[True], loss_best=best[False])
    return RunsMoved(window.runs, runs, current, moved, shortened)


# --- Seasons (KORT_RULES §10) ----------------------------------------------------------------


def season_reset_cups(cups: int, floor: int) -> int:
    """A player's cups after the soft reset that opens a season (KORT_RULES §10): kept when
    ``0 <= cups <= floor``, ``floor + (cups - floor) // 2`` above the floor, 0 when negative.
    ``floor`` is the setting ``KORT_SEASON_RESET_FLOOR`` (T, at least 0)."""
    if cups < 0:
        return 0
    if cups <= floor:
        return cups
    return floor + (cups - floor) // 2
