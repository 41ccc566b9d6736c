"""Live Bavan vote endpoints (API.md "Live Bavan vote"): read and cast a vote, finish a round
that went for Bavan, and let a seat's player leave. Thin views over the vote's services."""

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from matches.api.serializers import RoundReportedSerializer
from matches.api.views import OWNER_ONLY, round_answer
from matches.kort.rules import Vote
from matches.live_vote import selectors, services
from matches.live_vote.models import BavanVote
from matches.live_vote.serializers import (
    BavanVoteSerializer,
    RoundFinishSerializer,
    SeatLeftSerializer,
    VoteCastSerializer,
)
from players.auth import IsPlayer, IsServiceKey


class BavanVoteView(APIView):
    """A round's live Bavan vote: anyone reads it; the two voters cast theirs (player token)."""

    def get_permissions(self):
        return [IsPlayer()] if self.request.method == "POST" else [AllowAny()]

    @extend_schema(responses={200: BavanVoteSerializer})
    def get(self, request, match_id: int, number: int):
        """The vote as everyone sees it: as stored plus the bot votes and the resolution due by
        now, shown without writing them (``selectors.vote_seen``)."""
        return Response(_vote_body(match_id, number))

    @extend_schema(
        request=VoteCastSerializer,
        responses={
            201: BavanVoteSerializer,
            403: OpenApiResponse(
                description="not one of the two voters, left the match, banned, or not a "
                "player token"
            ),
            409: OpenApiResponse(
                description="a second vote, a vote after the resolution or past the deadline"
            ),
        },
    )
    def post(self, request, match_id: int, number: int):
        """Cast the player's vote, ``bavan`` or ``stop`` (player token; KORT_RULES §4)."""
        given = VoteCastSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        services.vote_cast(
            match_id=match_id,
            number=number,
            player=request.user.player,
            choice=Vote(given.validated_data["vote"]),
        )
        return Response(_vote_body(match_id, number), status=status.HTTP_201_CREATED)


def _vote_or_404(match_id: int, number: int) -> BavanVote:
    vote = selectors.bavan_vote(round__match_id=match_id, round__number=number)
    if vote is None:
        raise NotFound(f"round {number} of match {match_id} has no live vote")
    return vote


def _vote_body(match_id: int, number: int) -> dict:
    vote = selectors.vote_seen(_vote_or_404(match_id, number), timezone.now())
    return BavanVoteSerializer(vote).data


class RoundFinishView(APIView):
    """Finish a round that went for Bavan after its live vote (service key)."""

    permission_classes = [IsServiceKey]

    @extend_schema(
        request=RoundFinishSerializer,
        responses={
            200: OpenApiResponse(RoundReportedSerializer, "a resend of the finish"),
            201: RoundReportedSerializer,
            403: OWNER_ONLY,
            409: OpenApiResponse(
                description="the round had no live vote, is still voting, or is finished "
                "already with other tricks"
            ),
        },
    )
    def post(self, request, match_id: int, number: int):
        given = RoundFinishSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        round_, created = services.bavan_finish(
            match_id=match_id, number=number, service_key=request.auth, **given.validated_data
        )
        return round_answer(round_, created)


class SeatLeaveView(APIView):
    """Mark a seat's player as left: a bot plays and votes for the seat (service key)."""

    permission_classes = [IsServiceKey]

    @extend_schema(
        request=None,
        responses={
            200: SeatLeftSerializer,
            403: OWNER_ONLY,
            409: OpenApiResponse(description="the match is over"),
        },
    )
    def post(self, request, match_id: int, seat: int):
        left = services.seat_leave(match_id=match_id, seat=seat, service_key=request.auth)
        return Response(SeatLeftSerializer(left).data)
