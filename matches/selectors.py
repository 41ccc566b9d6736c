"""Reads of matches (API.md "Matches" and the "My games" history)."""

from django.db.models import Prefetch, Q, QuerySet

from matches.models import BavanVote, Match, MatchStatus, Round, Seat


def matches_with_details() -> QuerySet[Match]:
    """Matches with seats, rounds and cup changes prefetched, newest first."""
    return Match.objects.prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("seat")),
        Prefetch("rounds", queryset=Round.objects.order_by("number")),
        "cup_changes",
    ).order_by("-created_at", "-id")


def player_matches(player_id: int) -> QuerySet[Match]:
    """A player's matches, finalized and live, newest first by creation time, then by id."""
    return matches_with_details().filter(seats__player_id=player_id)


def player_result_q(player_id: int, result: str) -> Q:
    """Matches the player's team ``won`` or ``lost`` (matches still on are neither)."""
    on_team_a = Q(pk__in=Seat.objects.filter(player_id=player_id, seat__in=(0, 2)).values("match"))
    won = (on_team_a & Q(winner="A")) | (~on_team_a & Q(winner="B"))
    return ~Q(status=MatchStatus.IN_PROGRESS) & (won if result == "won" else ~won)


def bavan_vote(**lookup) -> BavanVote | None:
    """The live Bavan vote found by ``lookup`` (``round=``, or ``round__match_id=`` and
    ``round__number=``) with its votes, or None."""
    return BavanVote.objects.prefetch_related("seat_votes").filter(**lookup).first()
