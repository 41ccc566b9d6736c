"""Match endpoints (API.md "Matches"): thin views over services and selectors."""

import django_filters
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from domain.ids import ID_PATTERN
from matches import details, history, selectors, services
from matches.api.serializers import (
    HistoryMatchSerializer,
    MatchCreateSerializer,
    MatchSerializer,
    RoundReportedSerializer,
    RoundReportSerializer,
    match_answer,
)
from matches.cups import cups_of
from matches.kort.rules import next_trump_seat
from matches.live_vote import selectors as vote_selectors
from matches.live_vote.serializers import BavanVoteSerializer
from matches.models import Match, Round, RoundStatus
from matches.reports import RoundReport
from pagination import CursorPages
from players.auth import IsServiceKey
from players.models import Player

OWNER_ONLY = OpenApiResponse(
    description="not the service key that created the match (API.md: Ownership), or not a "
    "service key"
)


class MatchFilter(django_filters.FilterSet):
    class Meta:
        model = Match
        fields = ["mode", "status"]


class PlayerMatchFilter(django_filters.FilterSet):
    result = django_filters.ChoiceFilter(
        choices=[("won", "won"), ("lost", "lost")], method="filter_result"
    )

    class Meta:
        model = Match
        fields = ["mode", "status", "result"]

    def filter_result(self, queryset, name, value):
        return queryset.filter(selectors.player_result_q(value))


def matches_listed(view: generics.GenericAPIView) -> Response:
    """The view's page of matches, the cups of its finalized ranked matches read together."""
    page = view.paginate_queryset(view.filter_queryset(view.get_queryset())) or []
    context = {**view.get_serializer_context(), "cups": cups_of(page)}
    return view.get_paginated_response(view.get_serializer(page, many=True, context=context).data)


class HistoryPagination(CursorPages):
    """Pages of a player's history through cursors (``next`` / ``previous``), newest first:
    each page is read from where the last one ended, so page 2,000 costs what page 1 costs.
    ``page_size`` picks the number of matches per page (default 50, at most 100). The pages
    (plain values, each match with its rounds) and their cursors are ``matches.history``'s,
    which the players' pages read too; this class gives them the API's links and schema. A
    cursor that is none is a 400 on ``cursor``, as on every cursor pagination."""

    page_size = history.DEFAULT_PAGE_SIZE
    page_size_query_param = "page_size"
    max_page_size = history.MAX_PAGE_SIZE

    def paginate_queryset(self, queryset, request, view=None):
        self.page_url = request.build_absolute_uri()
        self.read = history.history_page(
            queryset,
            request.query_params.get(self.cursor_query_param),
            history.page_size(request.query_params.get(self.page_size_query_param)),
            rounds=True,
        )
        return self.read.matches

    def get_next_link(self) -> str | None:
        return self._link(self.read.older)

    def get_previous_link(self) -> str | None:
        return self._link(self.read.newer)

    def _link(self, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        return replace_query_param(self.page_url, self.cursor_query_param, cursor)


class PlayerMatchesView(generics.ListAPIView):
    """A player's matches, newest first: the "My games" history (API.md "Players")."""

    serializer_class = HistoryMatchSerializer
    filterset_class = PlayerMatchFilter
    pagination_class = HistoryPagination

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # the schema generator has no player
            return Match.objects.none()
        player_id = self.kwargs["player_id"]
        if not Player.objects.filter(pk=player_id).exists():
            raise NotFound(f"player {player_id} does not exist")
        return selectors.player_matches(player_id)

    def list(self, request, *args, **kwargs):
        return matches_listed(self)


class MatchViewSet(
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.ListModelMixin,
    viewsets.GenericViewSet,
):
    """Matches: create (service key), read (public), report rounds (service key)."""

    serializer_class = MatchSerializer
    filterset_class = MatchFilter
    lookup_value_regex = ID_PATTERN

    def get_queryset(self):
        return selectors.matches_with_details()

    def retrieve(self, request, pk=None):
        # A match as everyone sees it now (``matches.details.match_detail``), with what is due
        # in the live vote of its last round shown (a refusal due shows its round finished);
        # nothing is written. No docstring: the schema describes the read by the class's.
        return Response(match_answer(details.match_detail(int(pk), timezone.now())))

    def list(self, request, *args, **kwargs):
        return matches_listed(self)

    def get_permissions(self):
        if self.action in ("create", "rounds"):
            return [IsServiceKey()]
        return [AllowAny()]

    @extend_schema(
        request=MatchCreateSerializer,
        responses={
            200: OpenApiResponse(MatchSerializer, "this key created the match already"),
            201: MatchSerializer,
            409: OpenApiResponse(
                description="a round of `rounds` after the match ended, or an `external_id` "
                "this key created a match with from another body (the fields that differ named)"
            ),
        },
    )
    def create(self, request):
        """Create a match (service key); the same ``external_id`` and body again returns it
        (200), with another body it is a 409."""
        given = MatchCreateSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        fields = dict(given.validated_data)
        rounds = [RoundReport.from_wire(report) for report in fields.pop("rounds", ())]
        match, created = services.match_create(service_key=request.auth, rounds=rounds, **fields)
        if not created:  # the match stored before, read with its details
            match = self.get_queryset().get(pk=match.pk)
        body = match_answer(match)
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        request=RoundReportSerializer,
        responses={
            200: OpenApiResponse(RoundReportedSerializer, "a resend of a stored round"),
            201: RoundReportedSerializer,
            403: OWNER_ONLY,
            409: OpenApiResponse(
                description="the match ended, a round is still open, or `number` names a "
                "round stored with another body"
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def rounds(self, request, pk=None):
        """Report the next round of the match: its summary, its full record (play), or both."""
        given = RoundReportSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        round_, created = services.round_report(
            match_id=int(pk), report=given.to_report(), service_key=request.auth
        )
        return round_answer(round_, created, round_.match)


def _trump_seat_after(match: Match, round_: Round) -> int:
    """The trump caller of the round after ``round_`` (KORT_RULES §5), so that a resend of an
    earlier round answers as that round did; while the round is open, the match's next one."""
    if round_.status != RoundStatus.FINISHED:
        return match.next_trump_seat
    return next_trump_seat(round_.trump_seat, round_.result)


def round_answer(round_: Round, created: bool, match: Match | None = None) -> Response:
    """The answer to a round report or finish: 201 when the round was stored now, 200 for a
    resend (API.md "Matches"). ``match`` is the round's match as the report left it, with its
    seats and rounds (the new one too) in hand; without it (or for a resend) the match is read
    again. A round has a live vote while it is open, and after it when a Bavan decision was
    taken; a round reported finished now had none."""
    if match is None or not created:
        round_.refresh_from_db()
        match = selectors.matches_with_details().get(pk=round_.match_id)
        voted = round_.status != RoundStatus.FINISHED or round_.bavan is not None
    else:
        voted = round_.status != RoundStatus.FINISHED
    vote = None
    if voted:
        vote = vote_selectors.bavan_vote(round=round_)
    body = {
        "number": round_.number,
        "status": round_.status,
        "outcome": round_.outcome,
        "winner": round_.winner,
        "wins_awarded": round_.wins_awarded,
        "next_trump_seat": _trump_seat_after(match, round_),
        "vote": None
        if vote is None
        else BavanVoteSerializer(vote_selectors.vote_seen(vote, timezone.now())).data,
        "match": match_answer(match),
    }
    return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
