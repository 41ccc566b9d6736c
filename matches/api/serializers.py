"""Wire shapes of matches and rounds (API.md "Matches"). Shapes only: the rules are checked by
the services and the pure rules module; a valid round report becomes a typed
:class:`~matches.reports.RoundReport` here."""

from collections.abc import Mapping

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from matches.cups import matches_cups
from matches.history import MatchValue
from matches.kort.rules import BavanDecision, Mode, Vote
from matches.live_vote.serializers import BavanVoteSerializer, PlayRecordField, TricksSerializer
from matches.models import Match, Round
from matches.reports import LIVE_VOTE, TRICKS_REQUIRED, RoundReport
from matches.selectors import match_cups_breakdown


class CastVoteSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    vote = serializers.ChoiceField(choices=[v.value for v in Vote])
    at_ms = serializers.IntegerField(help_text="milliseconds after the vote opened")


class RoundReportSerializer(serializers.Serializer):
    """A round report: the summary, the full record (``play``), or both (then they must agree);
    ``"bavan": "vote"`` at 7:0 opens a live vote.

    ``tricks`` may be omitted only with ``play``; the record's shape and legality are checked by
    the replay (KORT_RULES §1, §3), not here.
    """

    number = serializers.IntegerField(min_value=1, required=False)
    trump_seat = serializers.IntegerField(min_value=0, max_value=3)
    tricks = TricksSerializer(required=False)
    bavan = serializers.ChoiceField(
        choices=[*(d.value for d in BavanDecision), LIVE_VOTE], required=False, allow_null=True
    )
    bavan_votes = CastVoteSerializer(many=True, required=False)
    play = PlayRecordField(
        required=False,
        allow_null=True,
        help_text='{"trump_suit", "hands": [4 x 13 cards], "tricks": [[4 cards], ...], '
        '"declarations": [{"seat", "kind", "before_trick"}]}',
    )

    def to_internal_value(self, data):
        # ``tricks`` is required without ``play``; named with the other field errors, if any.
        missing = isinstance(data, Mapping) and data.get("play") is None and "tricks" not in data
        try:
            attrs = super().to_internal_value(data)
        except serializers.ValidationError as error:
            if missing:
                assert isinstance(error.detail, dict)  # a serializer's errors are by field
                error.detail.setdefault("tricks", [ErrorDetail(TRICKS_REQUIRED, code="invalid")])
            raise
        if missing:
            raise serializers.ValidationError({"tricks": [TRICKS_REQUIRED]})
        return attrs

    def to_report(self) -> RoundReport:
        """The validated report as the services take it."""
        return RoundReport.from_wire(self.validated_data)


MAX_PLAYER_ID = 2**63 - 1
"""Player ids are 64-bit (BigAutoField): a larger number is refused here, not by the database."""


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "integer", "minimum": 1, "maximum": MAX_PLAYER_ID},
        "minItems": 4,
        "maxItems": 4,
        "uniqueItems": True,
        "description": "the player ids of seats 0..3; team A = seats 0 and 2, team B = seats 1 "
        "and 3; a player sits only once",
    }
)
class SeatsField(serializers.ListField):
    """Four distinct player ids. The count and the repeats are checked by ``match_create``,
    whose messages cite the rule; the schema states them."""

    child = serializers.IntegerField(min_value=1, max_value=MAX_PLAYER_ID)


class MatchCreateSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=[m.value for m in Mode])
    seats = SeatsField()
    first_trump_seat = serializers.IntegerField(min_value=0, max_value=3, default=0)
    external_id = serializers.CharField(
        max_length=120, required=False, allow_null=True, allow_blank=False
    )
    client_version = serializers.CharField(max_length=40, required=False, allow_blank=True)
    rounds = RoundReportSerializer(many=True, required=False)
    require_play = serializers.BooleanField(
        required=False,
        help_text="every round must carry its full record (play); default: the site setting "
        "KORT_RANKED_REQUIRE_PLAY for ranked matches, false for room matches",
    )


class RoundSerializer(serializers.ModelSerializer):
    tricks = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = [
            "number",
            "status",
            "trump_seat",
            "tricks",
            "bavan",
            "bavan_votes",
            "outcome",
            "winner",
            "wins_awarded",
            "play",
        ]

    def get_tricks(self, round_) -> dict[str, int]:
        return round_.tricks


class TeamCupsSerializer(serializers.Serializer):
    """One team's cup change explained (KORT_RULES §7): the signed value of each round in
    order, then the bonuses; ``total`` is their sum."""

    rounds = serializers.ListField(child=serializers.IntegerField())
    match_bonus = serializers.IntegerField()
    sweep_bonus = serializers.IntegerField()
    total = serializers.IntegerField()


class CupsBreakdownSerializer(serializers.Serializer):
    A = TeamCupsSerializer()
    B = TeamCupsSerializer()


class MatchSerializer(serializers.ModelSerializer):
    """A match (API.md "Matches"). ``cups`` and ``cups_breakdown`` are filled once a ranked
    match is finalized, and still show what it gave once it is void ("Match cups explained and
    voided matches")."""

    seats = serializers.SerializerMethodField()
    wins = serializers.SerializerMethodField()
    rounds = RoundSerializer(many=True, read_only=True, source="rounds_in_order")
    cups = serializers.SerializerMethodField()
    cups_breakdown = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields = [
            "id",
            "mode",
            "status",
            "target_wins",
            "seats",
            "wins",
            "winner",
            "next_trump_seat",
            "require_play",
            "rounds",
            "cups",
            "cups_breakdown",
            "season",
            "void_reason",
            "voided_at",
            "external_id",
            "client_version",
            "created_at",
            "completed_at",
            "finalized_at",
        ]

    def get_seats(self, match) -> list[int]:
        return match.seat_player_ids()

    def get_wins(self, match) -> dict[str, int]:
        return match.wins

    def get_cups(self, match) -> dict[str, int] | None:
        if not match.gave_cups:
            return None
        # The match's own rows of the ladder's ledger (a void adds reversing rows beside them):
        # those of the page's matches, read together by the view (``cups_of``), or this one's.
        listed = self.context.get("cups")
        given = listed if listed is not None else matches_cups([match.id])
        return {str(player_id): delta for player_id, delta in given.get(match.id, {}).items()}

    @extend_schema_field(CupsBreakdownSerializer(allow_null=True))
    def get_cups_breakdown(self, match) -> dict | None:
        breakdown = match_cups_breakdown(match)
        if breakdown is None:
            return None
        return {
            team.value: {
                "rounds": list(cups.rounds),
                "match_bonus": cups.match_bonus,
                "sweep_bonus": cups.sweep_bonus,
                "total": cups.total,
            }
            for team, cups in breakdown.items()
        }


class HistoryMatchSerializer(MatchSerializer):
    """A match of a player's history, as ``/matches/{id}/`` shows it. Its own name in the
    schema, since the history's pages are cursor pages (no ``count``), unlike ``/matches/``."""

    # Read from a ``matches.history.HistoryMatch``. The docstring is the schema's.


def match_answer(match: Match | MatchValue) -> dict:
    """``match`` as :class:`MatchSerializer` shows it: a model (its seats and rounds in hand or
    read along) or a plain value read with its rounds (``matches.details.match_detail``, the
    API's ``GET /matches/{id}/``). One serializer shows every answer, so its fields are built
    once, not per answer."""
    return _MATCH_ANSWER.to_representation(match)


_MATCH_ANSWER = MatchSerializer()


class RoundReportedSerializer(serializers.Serializer):
    """The answer to a round report or finish. ``outcome``, ``winner`` and ``wins_awarded`` are
    null while the round is open (``status`` voting or bavan); ``vote`` is the live vote, if any."""

    number = serializers.IntegerField()
    status = serializers.CharField()
    outcome = serializers.CharField(allow_null=True)
    winner = serializers.CharField(allow_null=True)
    wins_awarded = serializers.IntegerField(allow_null=True)
    next_trump_seat = serializers.IntegerField()
    vote = BavanVoteSerializer(allow_null=True)
    match = MatchSerializer()
