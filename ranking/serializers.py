"""Wire shapes of players and the leaderboard (API.md "Players", "Leaderboard")."""

from rest_framework import serializers

from players.models import Player
from ranking.selectors import player_rank


class PlayerSerializer(serializers.ModelSerializer):
    """A player with their rank on the current leaderboard (null when not on it)."""

    # A list passes the ranks of its page in the context ({"ranks": {player id: rank}}, from
    # selectors.ranks_of), so ranking a page costs the few queries that ranking one costs.
    rank = serializers.SerializerMethodField()

    class Meta:
        model = Player
        fields = ["id", "username", "display_name", "is_bot", "cups", "rank"]
        read_only_fields = ["cups"]
        extra_kwargs = {"display_name": {"required": False, "allow_blank": True}}

    def get_rank(self, player) -> int | None:
        ranks = self.context.get("ranks")
        return player_rank(player) if ranks is None else ranks[player.pk]


class LeaderboardRowSerializer(serializers.Serializer):
    # Serializes a ``selectors.RankedPlayer``.
    rank = serializers.IntegerField()
    player = serializers.SerializerMethodField()
    cups = serializers.IntegerField(source="player.cups")

    def get_player(self, row) -> dict:
        player = row.player
        return {"id": player.id, "username": player.username, "display_name": player.display_name}


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
