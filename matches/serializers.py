"""Wire shapes of matches and rounds (API.md "Matches"). Shapes only: the rules are checked by
the services and the pure rules module."""

from rest_framework import serializers

from matches.kort.rules import BavanDecision, Mode, Team, Vote
from matches.models import Match, Round


class TricksSerializer(serializers.Serializer):
    A = serializers.IntegerField(min_value=0, max_value=13)
    B = serializers.IntegerField(min_value=0, max_value=13)


class CastVoteSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    vote = serializers.ChoiceField(choices=[v.value for v in Vote])
    at_ms = serializers.IntegerField(help_text="milliseconds after the vote opened")


class RoundReportSerializer(serializers.Serializer):
    """A round report in summary form."""

    number = serializers.IntegerField(min_value=1, required=False)
    trump_seat = serializers.IntegerField(min_value=0, max_value=3)
    tricks = TricksSerializer()
    bavan = serializers.ChoiceField(
        choices=[d.value for d in BavanDecision], required=False, allow_null=True
    )
    bavan_votes = CastVoteSerializer(many=True, required=False)


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


def tricks_of(round_: Round) -> dict[str, int]:
    return {Team.A: round_.tricks_a, Team.B: round_.tricks_b}


class RoundSerializer(serializers.ModelSerializer):
    tricks = serializers.SerializerMethodField()

    class Meta:
        model = Round
        fields = [
            "number",
            "trump_seat",
            "tricks",
            "bavan",
            "bavan_votes",
            "outcome",
            "winner",
            "wins_awarded",
        ]

    def get_tricks(self, round_) -> dict[str, int]:
        return tricks_of(round_)


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
        return {Team.A: match.wins_a, Team.B: match.wins_b}

    def get_cups(self, match) -> dict[str, int] | None:
        if match.finalized_at is None or not match.is_ranked:
            return None
        return {str(change.player_id): change.delta for change in match.cup_changes.all()}


class RoundReportedSerializer(serializers.Serializer):
    """The answer to a round report."""

    number = serializers.IntegerField()
    outcome = serializers.CharField()
    winner = serializers.CharField()
    wins_awarded = serializers.IntegerField()
    next_trump_seat = serializers.IntegerField()
    match = MatchSerializer()
