"""Wire shapes of the live Bavan vote (API.md "Live Bavan vote"). Shapes only: the rules are
checked by the services and the pure rules module."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from matches.kort.rules import TRICKS_IN_ROUND, Team, Vote
from matches.live_vote.models import BavanVote
from matches.live_vote.services import FINISH_NEEDS_TRICKS
from matches.models import Seat

CARDS = {"type": "array", "items": {"type": "string", "description": "a card: 10H, AS, ..."}}


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "trump_suit": {"type": "string"},
            "hands": {"type": "array", "items": CARDS},
            "tricks": {"type": "array", "items": CARDS},
            "declarations": {"type": "array", "items": {"type": "object"}},
        },
    }
)
class PlayRecordField(serializers.JSONField):
    """A round's full record (API.md "Matches": ``play``), an object in the schema; its shape
    (an object at all) and its legality are checked by the replay (KORT_RULES §1, §3), not
    here."""


class TricksSerializer(serializers.Serializer):
    """A round's tricks by team: ``{"A": n, "B": m}``, no other key (KORT_RULES §1: two
    teams)."""

    A = serializers.IntegerField(min_value=0, max_value=TRICKS_IN_ROUND)
    B = serializers.IntegerField(min_value=0, max_value=TRICKS_IN_ROUND)

    def to_internal_value(self, data):
        values = super().to_internal_value(data)
        unknown = sorted(str(key) for key in data if key not in self.fields)
        if unknown:
            raise serializers.ValidationError(
                {
                    key: ["not a team: tricks are counted for teams A and B (KORT_RULES §1)"]
                    for key in unknown
                }
            )
        return values


class BavanVoteSerializer(serializers.ModelSerializer):
    """A live Bavan vote as everyone sees it (API.md "Live Bavan vote"), shown from
    ``matches.live_vote.selectors.VoteSeen``: as stored plus what is due at the moment read.
    ``revealed_hands`` comes from the record the vote was opened with; a vote opened in summary
    form has none."""

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
            for cast in vote.votes
        }

    def get_revealed_hands(self, vote) -> dict[str, list[str]] | None:
        # Set by matches.live_vote.selectors.vote_seen: the hands shown at the moment read.
        return vote.revealed_hands


class VoteCastSerializer(serializers.Serializer):
    vote = serializers.ChoiceField(choices=[v.value for v in Vote])


class RoundFinishSerializer(serializers.Serializer):
    """How a round that went for Bavan ended: its final tricks, 13:0 or (7+j):1, or its
    complete record (``play``), or both (they must agree)."""

    tricks = TricksSerializer(required=False)
    play = PlayRecordField(required=False, help_text="the complete record of the round")

    def validate(self, attrs):
        if "tricks" not in attrs and "play" not in attrs:
            raise serializers.ValidationError({"tricks": [FINISH_NEEDS_TRICKS]})
        if "tricks" in attrs:
            attrs["tricks"] = {Team(team): n for team, n in attrs["tricks"].items()}
        return attrs


class SeatLeftSerializer(serializers.ModelSerializer):
    """A seat whose player left the match: a bot plays and votes for it (KORT_RULES §4)."""

    class Meta:
        model = Seat
        fields = ["seat", "player", "left_at"]
