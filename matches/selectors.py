"""Reads of matches (API.md "Matches" and the "My games" history), and the check of stored
round records against their replay (KORT_RULES §1-§4)."""

from datetime import datetime

from django.db.models import F, Prefetch, Q, QuerySet

from matches.history import MatchValue
from matches.kort.replay import InvalidRecordError, replay_record
from matches.kort.rules import Team, TeamCups, cups_breakdown
from matches.models import Match, MatchStatus, Round, RoundStatus, Seat

SEATS_IN_ORDER = Prefetch("seats", queryset=Seat.objects.order_by("seat"))
ROUNDS_IN_ORDER = Prefetch(
    "rounds", queryset=Round.objects.select_related("bavan_vote").order_by("number")
)
"""A match's seats by seat and its rounds by number (with their live votes), read along."""


def match_cups_breakdown(match: Match | MatchValue) -> dict[Team, TeamCups] | None:
    """Each team's cups of a finalized ranked match, round by round and its bonuses (API.md
    "Match cups explained"), from its rounds in order (a model's, or a plain value's read with
    its rounds); None when it gave no cups (not finalized, a room match). A void match still
    shows what it had given."""
    if not match.gave_cups:
        return None
    assert match.winner is not None  # a finalized match has its winner
    results = [round_.result for round_ in match.rounds_in_order()]
    return cups_breakdown(results, Team(match.winner), match.wins)


def matches_with_details() -> QuerySet[Match]:
    """Matches with seats and rounds prefetched, newest first. Their cups are the ladder's
    (``matches.cups``)."""
    return Match.objects.prefetch_related(SEATS_IN_ORDER, ROUNDS_IN_ORDER).order_by(
        "-created_at", "-id"
    )


def player_matches(player_id: int) -> QuerySet[Match]:
    """A player's matches, finalized and live, newest first by creation time, then by id: what
    ``matches.history.history_page`` reads its pages of, as plain values.

    Read through the player's seats: each match carries ``history_at`` (its creation time, as
    its seat of this player holds it) and ``history_seat`` (the seat), so the rows come in
    order from the index ``seat_history_order`` and a keyset page at any depth of the history
    costs what the first page costs. Order by ``-history_at``, ``-id``.
    """
    return (
        Match.objects.filter(seats__player_id=player_id)
        .annotate(history_at=F("seats__match_created_at"), history_seat=F("seats__seat"))
        .order_by("-history_at", "-id")
    )


def player_result_q(result: str) -> Q:
    """Of :func:`player_matches`, those the player's team ``won`` or ``lost``: matches still on
    and void matches are neither (API.md "Players"; KORT_RULES §11: a void match stays in the
    history, marked ``"status": "void"``, and counts for no one)."""
    won = Q()
    for team in Team:
        won |= Q(history_seat__in=team.seats, winner=team)
    decided = ~Q(status__in=[MatchStatus.IN_PROGRESS, MatchStatus.VOID])
    return decided & (won if result == "won" else ~won)


def matches_awaiting_finalization(completed_before: datetime | None = None) -> QuerySet[Match]:
    """Matches completed and not finalized yet (their cups and statistics not applied,
    KORT_RULES §7), the earliest completed first; with ``completed_before``, only those
    completed before that moment."""
    matches = Match.objects.filter(status=MatchStatus.COMPLETED)
    if completed_before is not None:
        matches = matches.filter(completed_at__lt=completed_before)
    return matches.order_by("completed_at", "pk")


def recorded_rounds() -> QuerySet[Round]:
    """Finished rounds stored with their full record (``play``), by match and number. A round
    still voting or going for Bavan has no final tricks to check yet (KORT_RULES §4)."""
    rounds = Round.objects.filter(play__isnull=False, status=RoundStatus.FINISHED)
    return rounds.order_by("match_id", "number")


def replay_differences(round_: Round) -> list[str]:
    """How a stored round differs from the replay of its stored record; [] when they agree.

    The record is replayed with the stored trump caller and Bavan decision (KORT_RULES §1, §3,
    §4), and the stored tricks, decision, outcome, winner and match wins are compared with what
    the replay gives (§2). A record that no longer replays is one difference, naming the error.
    Each difference reads ``"<field>: stored <value>, replay <value>"``. ``round_`` has a record,
    as :func:`recorded_rounds` gives.
    """
    assert round_.play is not None
    try:
        replay = replay_record(round_.play, round_.trump_seat, round_.bavan)
    except InvalidRecordError as error:
        return [f"the record does not replay: {error.field}: {error}"]
    result = replay.outcome
    replayed = {
        "tricks": "{}:{}".format(*replay.tricks),
        "bavan": replay.bavan,
        "outcome": result and result.outcome,
        "winner": result and result.winner,
        "wins_awarded": result and result.wins_awarded,
    }
    stored = {
        "tricks": f"{round_.tricks_a}:{round_.tricks_b}",
        "bavan": round_.bavan,
        "outcome": round_.outcome,
        "winner": round_.winner,
        "wins_awarded": round_.wins_awarded,
    }
    return [
        f"{field}: stored {stored[field]}, replay {replayed[field]}"
        for field in stored
        if stored[field] != replayed[field]
    ]
