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
