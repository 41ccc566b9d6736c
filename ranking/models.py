"""The cups ledger (KORT_RULES §7, API.md "Leaderboard")."""

from django.db import models

from players.models import Player


class CupChange(models.Model):
    """One row of the cups ledger: the cups a finalized ranked match gave one player.
    Unique per match and player, so a match's cups are applied exactly once."""

    match = models.ForeignKey("matches.Match", on_delete=models.PROTECT, related_name="cup_changes")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="cup_changes")
    delta = models.IntegerField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["match", "player"], name="one_cup_change_per_match_player"
            )
        ]

    def __str__(self):
        return f"{self.player} {self.delta:+d} (match {self.match_id})"


class BoardCount(models.Model):
    """How many players of a season's board hold exactly ``cups`` (KORT_RULES §10; API.md
    "Leaderboard"): the counted structure that ranks and pages at any depth read instead of
    counting players. Written only through ``ranking.board.board_move`` (and rebuilt by
    ``rebuild_ladder --fix``); a count may drop to 0 and its row stay."""

    season = models.PositiveIntegerField()
    cups = models.IntegerField()
    players = models.IntegerField()

    class Meta:
        ordering = ["season", "-cups"]
        constraints = [
            models.UniqueConstraint(fields=["season", "cups"], name="one_board_count_per_cups")
        ]

    def __str__(self):
        return f"season {self.season}: {self.players} player(s) on {self.cups} cups"


class BoardTotal(models.Model):
    """The number of players on a season's board, kept beside its counts in the same
    transactions: the counts are trusted only while they add up to it, and a season with
    players on its board but no total has lost its counts (see ``ranking.board``)."""

    season = models.PositiveIntegerField(unique=True)
    players = models.IntegerField()

    def __str__(self):
        return f"season {self.season}: {self.players} player(s) on the board"
