"""Seasons of the ranked ladder (KORT_RULES §10; API.md "Seasons").

A season is numbered 1, 2, 3, ... (its number is its primary key, so every row that names a
season holds the number itself), runs from ``starts_at`` to ``ends_at`` (UTC) and goes
current -> finalizing (its end is under way: the ladder's final standings) -> finalized, when
the next season opens with the soft reset of every total (written to the players' rows after
the opening, ``reset_floor`` meanwhile: ``stats.totals``).
"""

from django.db import models
from django.db.models import F, Q


class SeasonStatus(models.TextChoices):
    CURRENT = "current"
    FINALIZING = "finalizing"
    FINALIZED = "finalized"


def season_name(number: int) -> str:
    """The name a season gets when it opens; the admin may rename the current season."""
    return f"Season {number}"


class Season(models.Model):
    """One season. The newest season is the current one (finalizing while its end runs); a
    match belongs to the season in which it was completed (``Match.season``)."""

    number = models.PositiveIntegerField(primary_key=True)
    name = models.CharField(max_length=80)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(
        help_text="UTC. Matches completed from this moment on belong to the next season."
    )
    status = models.CharField(
        max_length=10, choices=SeasonStatus.choices, default=SeasonStatus.CURRENT
    )
    finalized_at = models.DateTimeField(null=True, blank=True)
    reset_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the soft reset that opened the season took effect (KORT_RULES §10): the "
        "moment the season before it was finalized. None for the first season.",
    )
    reset_floor = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="While that reset is still being written to the players' rows, its floor T; "
        "None once every player has it.",
    )

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.CheckConstraint(condition=Q(number__gte=1), name="season_number_from_one"),
            models.CheckConstraint(
                condition=Q(ends_at__gt=F("starts_at")), name="season_ends_after_start"
            ),
            models.CheckConstraint(
                condition=Q(status="finalized", finalized_at__isnull=False)
                | (~Q(status="finalized") & Q(finalized_at__isnull=True)),
                name="finalized_at_iff_season_finalized",
            ),
            models.CheckConstraint(
                condition=Q(reset_floor__isnull=True) | Q(reset_at__isnull=False),
                name="a_pending_reset_has_its_moment",
            ),
            models.UniqueConstraint(
                fields=["status"],
                condition=~Q(status="finalized"),
                name="one_current_and_one_finalizing_season",
            ),
        ]

    def __str__(self):
        return f"{self.name} (#{self.number})"
