"""Per-player "My games" statistics (KORT_RULES §8), folded in as matches are finalized."""

from django.db import models

from matches.kort.rules import SHUTOUT_OUTCOMES

COUNT_FIELDS = (
    "matches_played",
    "matches_won",
    "matches_lost",
    "rounds_played",
    "rounds_won",
    "bavan_called",
    "bavan_made",
)
"""Model field names of the plain counts, named as in ``rules.StatsLine``."""
OUTCOME_FIELDS = {
    outcome: (f"{outcome.value}_team", f"{outcome.value}_opponents") for outcome in SHUTOUT_OUTCOMES
}
"""Model field names of each shutout outcome's (team, opponents) counts."""


class PlayerStats(models.Model):
    player = models.OneToOneField(
        "players.Player", on_delete=models.CASCADE, primary_key=True, related_name="stats"
    )
    matches_played = models.PositiveIntegerField(default=0)
    matches_won = models.PositiveIntegerField(default=0)
    matches_lost = models.PositiveIntegerField(default=0)
    rounds_played = models.PositiveIntegerField(default=0)
    rounds_won = models.PositiveIntegerField(default=0)
    bavan_called = models.PositiveIntegerField(default=0)
    bavan_made = models.PositiveIntegerField(default=0)
    kort_team = models.PositiveIntegerField(default=0)
    kort_opponents = models.PositiveIntegerField(default=0)
    at_kort_team = models.PositiveIntegerField(default=0)
    at_kort_opponents = models.PositiveIntegerField(default=0)
    bavan_team = models.PositiveIntegerField(default=0)
    bavan_opponents = models.PositiveIntegerField(default=0)
    at_bavan_team = models.PositiveIntegerField(default=0)
    at_bavan_opponents = models.PositiveIntegerField(default=0)
    bavan_failed_team = models.PositiveIntegerField(default=0)
    bavan_failed_opponents = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "player stats"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(matches_won__lte=models.F("matches_played")),
                name="matches_won_within_played",
            ),
            models.CheckConstraint(
                condition=models.Q(rounds_won__lte=models.F("rounds_played")),
                name="rounds_won_within_played",
            ),
            models.CheckConstraint(
                condition=models.Q(bavan_made__lte=models.F("bavan_called")),
                name="bavan_made_within_called",
            ),
        ]

    def __str__(self):
        return f"stats of {self.player}"
