"""Wire shapes of players, the leaderboard, the seasons' boards and a player's seasons and cups
ledger (API.md "Players", "Leaderboard", "Seasons")."""

from rest_framework import serializers

from players.models import Player
from ranking.models import CupChange
from ranking.selectors import player_rank


class PlayerSerializer(serializers.ModelSerializer):
    """A player with their rank on the current leaderboard (null when not on it), as
    ``ranking.selectors.players_ranked`` reads them now."""

    # A read passes the ranks of its players in the context ({"ranks": {player id: rank}},
    # from selectors.players_ranked), so a page costs the few queries that one player costs;
    # a player just created is on no board.
    cups = serializers.IntegerField(read_only=True)
    rank = serializers.SerializerMethodField()

    class Meta:
        model = Player
        fields = ["id", "username", "display_name", "is_bot", "cups", "rank"]
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


class SeasonBoardRowSerializer(LeaderboardRowSerializer):
    # Serializes a ``selectors.SeasonRow``: cups at the season's end, or now.
    cups = serializers.IntegerField()
    best_cups = serializers.IntegerField()
    matches_played = serializers.IntegerField()


class SeasonBoardPageSerializer(serializers.Serializer):
    """A page of a season's board (API.md "Leaderboard": pages)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = SeasonBoardRowSerializer(many=True)


class PlayerSeasonSerializer(serializers.Serializer):
    # Serializes a ``selectors.PlayerSeason``.
    season = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True)
    cups = serializers.IntegerField()
    best_cups = serializers.IntegerField()
    matches_played = serializers.IntegerField()
    matches_won = serializers.IntegerField()


class CupChangeSerializer(serializers.ModelSerializer):
    at = serializers.DateTimeField(source="created_at")

    class Meta:
        model = CupChange
        fields = ["at", "delta", "cups_after", "kind", "match", "season"]


class TokenSerializer(serializers.Serializer):
    """A token just minted: the key, shown only in this answer, and its end."""

    token = serializers.CharField()
    expires_at = serializers.DateTimeField()
