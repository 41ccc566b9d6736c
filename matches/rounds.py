"""Finishing a round: the one path by which a round gets its outcome and moves its match on
(KORT_RULES §1, §2, §5). A reported round, a live vote refused at 7:0 and a Bavan finished after
a live vote all pass through :func:`round_settle` (saved by :func:`round_finish`, or together
for a whole match).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from delivery.queue import queue_on_commit
from matches.kort.rules import (
    BavanDecision,
    RoundResult,
    Team,
    match_winner,
    next_trump_seat,
    round_outcome,
)
from matches.models import Match, MatchStatus, Round, RoundStatus
from seasons.selectors import season_of_completion

FINALIZE_TASK = "ranking.finalize_match"
"""The name of the ladder's finalization task (``ranking.tasks.finalize_match``): the ladder
builds on matches, so matches queue it by its name and do not import it."""


def round_finish(match: Match, round_: Round, decision: BavanDecision | None) -> RoundResult:
    """Give ``round_`` (trump seat and final tricks set) its outcome, save it as finished and
    add it to ``match``, whose row the caller holds locked: :func:`round_settle`, then both
    saved.

    Raises:
        InvalidRoundError: tricks and decision form no outcome of §2 (nothing is saved).
    """
    result = round_settle(match, round_, decision)
    round_.save()
    _advanced_save(match)
    return result


def round_settle(match: Match, round_: Round, decision: BavanDecision | None) -> RoundResult:
    """Give ``round_`` (trump seat and final tricks set) its outcome as finished and add it to
    ``match``, in memory: the caller saves the round and the match's :data:`ADVANCED_FIELDS`
    (a whole match reported at once saves its rounds together, and its match once).

    ``decision`` is the Bavan decision taken at 7:0 (None for a plain win). The match gains the
    round's wins, gets its next trump caller (§5) and, when a team reaches the target, is
    completed in the season of that moment (§10), with finalization queued on commit (§1, §7);
    if the broker cannot be reached then, the sweeper queues it later (``delivery.sweep``).

    Raises:
        InvalidRoundError: tricks and decision form no outcome of §2 (nothing is changed).
    """
    finish = round_finished(match, round_, decision)
    for name, value in finish.round_columns.items():
        setattr(round_, name, value)
    for name, value in finish.match_columns.items():
        setattr(match, name, value)
    if match.status == MatchStatus.COMPLETED:
        match.season, match.completed_at = season_of_completion()
        queue_on_commit(FINALIZE_TASK, match.pk)
    return finish.result


class FinishingMatch(Protocol):
    """What finishing a round reads of its match, a model instance or a plain value
    (``matches.history.MatchValue``)."""

    @property
    def wins(self) -> dict[Team, int]: ...

    @property
    def target_wins(self) -> int: ...


class FinishingRound(Protocol):
    """What finishing a round reads of it, a model instance or a plain value
    (``matches.history.HistoryRound``)."""

    @property
    def trump_seat(self) -> int: ...

    @property
    def tricks(self) -> dict[Team, int]: ...


@dataclass(frozen=True)
class RoundFinish:
    """What finishing a round makes of it and of its match (KORT_RULES §2, §5): the round's
    ``result``, and the new values of the round's and the match's columns of those names
    (``round_columns``: status, bavan, outcome, winner, wins_awarded, shutout_team;
    ``match_columns``: wins_a, wins_b, next_trump_seat and, when a team reaches the target,
    winner and status ``completed``)."""

    result: RoundResult
    round_columns: dict[str, Any]
    match_columns: dict[str, Any]


def round_finished(
    match: FinishingMatch, round_: FinishingRound, decision: BavanDecision | None
) -> RoundFinish:
    """What finishing ``round_`` (trump seat and final tricks set) with the Bavan
    ``decision`` (None for a plain win) makes of it and of ``match``; pure: nothing is
    changed. The one statement of a round's finish: the write path applies it to the models
    (:func:`round_settle`), a read shows a finish due and not written yet with it
    (``matches.details.match_seen``).

    Raises:
        InvalidRoundError: tricks and decision form no outcome of §2.
    """
    result = round_outcome(round_.trump_seat, round_.tricks, decision)
    wins = dict(match.wins)
    wins[result.winner] += result.wins_awarded
    match_columns: dict[str, Any] = {
        "wins_a": wins[Team.A],
        "wins_b": wins[Team.B],
        "next_trump_seat": next_trump_seat(round_.trump_seat, result),
    }
    winner = match_winner(wins, match.target_wins)
    if winner is not None:
        match_columns.update(winner=winner, status=MatchStatus.COMPLETED)
    round_columns = {
        "status": RoundStatus.FINISHED,
        "bavan": decision,
        "outcome": result.outcome,
        "winner": result.winner,
        "wins_awarded": result.wins_awarded,
        "shutout_team": result.shutout_team,
    }
    return RoundFinish(result, round_columns, match_columns)


def rounds_save(match: Match, rounds: Sequence[Round]) -> None:
    """Save ``rounds`` (settled by :func:`round_settle`, not saved yet) in one statement, then
    ``match`` once: a whole match reported at once."""
    Round.objects.bulk_create(rounds)
    _advanced_save(match)


def _advanced_save(match: Match) -> None:
    """Write the :data:`ADVANCED_FIELDS` of ``match`` (its row held by the caller) in one
    ``UPDATE``, without the signals of ``save``."""
    values = {name: getattr(match, name) for name in ADVANCED_FIELDS}
    Match.objects.filter(pk=match.pk).update(**values)


ADVANCED_FIELDS = [
    "wins_a",
    "wins_b",
    "next_trump_seat",
    "winner",
    "status",
    "season",
    "completed_at",
]
"""What a finished round changes on its match."""
