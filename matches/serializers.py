"""Wire shapes of matches and rounds (API.md "Matches"). Shapes only: the rules are checked by
the services and the pure rules module."""

from collections.abc import Mapping

from django.utils import timezone
from rest_framework import serializers

from matches.kort.rules import BavanDecision, Mode, Vote
from matches.models import BavanVote, Match, Round, Seat
from matches.records import hands_at_vote
from matches.votes import LIVE_VOTE, revealed_hands


class TricksSerializer(serializers.Serializer):
    A = serializers.IntegerField(min_value=0, max_value=13)
    B = serializers.IntegerField(min_value=0, max_value=13)


class CastVoteSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    vote = serializers.ChoiceField(choices=[v.value for v in Vote])
    at_ms = serializers.IntegerField(help_text="milliseconds after the vote opened")


TRICKS_REQUIRED = "tricks are required unless the round's full record (play) is given"


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
    play = serializers.JSONField(
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
                error.detail.setdefault("tricks", [TRICKS_REQUIRED])
            raise
        if missing:
            raise serializers.ValidationError({"tricks": [TRICKS_REQUIRED]})
        return attrs


class MatchCreateSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=[m.value for m in Mode])
    # Player ids are 64-bit (BigAutoField): a larger number is refused here, not by the database.
    seats = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1))
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


class MatchSerializer(serializers.ModelSerializer):
    seats = serializers.SerializerMethodField()
    wins = serializers.SerializerMethodField()
    rounds = RoundSerializer(many=True, read_only=True)
    cups = serializers.SerializerMethodField()

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
            "external_id",
            "client_version",
            "created_at",
            "completed_at",
            "finalized_at",
        ]

    def get_seats(self, match) -> list[int]:
        return [seat.player_id for seat in sorted(match.seats.all(), key=lambda s: s.seat)]

    def get_wins(self, match) -> dict[str, int]:
        return match.wins

    def get_cups(self, match) -> dict[str, int] | None:
        if match.finalized_at is None or not match.is_ranked:
            return None
        return {str(change.player_id): change.delta for change in match.cup_changes.all()}


class BavanVoteSerializer(serializers.ModelSerializer):
    """A live Bavan vote as everyone sees it (API.md "Live Bavan vote"). ``revealed_hands``
    comes from the record the vote was opened with; a vote opened in summary form has none."""

    votes = serializers.SerializerMethodField()
    revealed_hands = serializers.SerializerMethodField()

    class Meta:
        model = BavanVote
        fields = [
            "status",
            "team",
            "opened_at",
            "deadline",
            "resolved_at",
            "votes",
            "revealed_hands",
        ]

    def get_votes(self, vote) -> dict[str, dict]:
        stamp = serializers.DateTimeField()
        return {
            str(cast.seat): {
                "vote": cast.choice,
                "at": stamp.to_representation(cast.at),
                "bot": cast.by_bot,
            }
            for cast in vote.seat_votes.all()
        }

    def get_revealed_hands(self, vote) -> dict[str, list[str]] | None:
        hands = hands_at_vote(vote.opening_play, vote.round.trump_seat)
        return revealed_hands(vote, hands, timezone.now())


class VoteCastSerializer(serializers.Serializer):
    vote = serializers.ChoiceField(choices=[v.value for v in Vote])


class RoundFinishSerializer(serializers.Serializer):
    """How a round that went for Bavan ended: its final tricks, 13:0 or (7+j):1, or its
    complete record (``play``), or both (they must agree)."""

    tricks = TricksSerializer(required=False)
    play = serializers.JSONField(required=False, help_text="the complete record of the round")

    def validate(self, attrs):
        if "tricks" not in attrs and "play" not in attrs:
            raise serializers.ValidationError(
                {"tricks": ["give the final tricks, the complete record (play), or both"]}
            )
        return attrs


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


class SeatLeftSerializer(serializers.ModelSerializer):
    """A seat whose player left the match: a bot plays and votes for it (KORT_RULES §4)."""

    class Meta:
        model = Seat
        fields = ["seat", "player", "left_at"]
