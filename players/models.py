"""Players: the seat-holders of matches and the ladder (API.md "Players", KORT_RULES §7)."""

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

LEADERBOARD_ORDER = ("-cups", "cups_changed_at", "id")
"""The leaderboard's order (API.md "Leaderboard"), as ``order_by`` field names: more cups
first, then who reached their total earlier, then the older player. The index of that name,
the leaderboard's rows and every rank derive from it."""

BOARD_ELIGIBLE = {"is_bot": False, "is_banned": False}
"""Who may be on a season's board at all: humans without a ban (KORT_RULES §10), as field
values. The board of season ``n`` is these players with ``board_season == n``."""
ON_A_BOARD = Q(**BOARD_ELIGIBLE)
""":data:`BOARD_ELIGIBLE` as a condition: the leaderboard index holds only these players."""


def may_be_on_a_board(player: "Player") -> bool:
    """Whether ``player``, as loaded, is one of :data:`BOARD_ELIGIBLE`."""
    return all(getattr(player, name) == value for name, value in BOARD_ELIGIBLE.items())


T = TypeVar("T")


def in_leaderboard_order(rows: Iterable[T], value: Callable[[T, str], Any]) -> list[T]:
    """``rows`` sorted in :data:`LEADERBOARD_ORDER`, ``value(row, field name)`` giving each
    field (for rows the database does not sort: a replayed board)."""
    ordered = list(rows)
    for name in reversed(LEADERBOARD_ORDER):
        field = name.removeprefix("-")
        ordered.sort(key=lambda row: value(row, field), reverse=name.startswith("-"))
    return ordered


class Player(models.Model):
    """A seat-holder of the ladder. Humans may log in (a linked user, a player token); bots
    cannot. ``cups`` is the sum of the player's ledger rows; ``cups_changed_at`` is the time of
    their last cup change: a ranked match's finalization, a season's soft reset or a void (the
    leaderboard's tie-break, KORT_RULES §10); ``board_season`` the number of the season whose
    board they are on (KORT_RULES §10: a finalized, not voided ranked match in it; a ban keeps
    them off every board while it lasts)."""

    username = models.CharField(
        max_length=40,
        unique=True,
        validators=[RegexValidator(r"^[A-Za-z0-9_.-]+$", "letters, digits, '_', '.', '-' only")],
    )
    display_name = models.CharField(max_length=80)
    is_bot = models.BooleanField(default=False)
    is_banned = models.BooleanField(
        default=False,
        help_text="Banned players cannot join new matches and are off the leaderboard.",
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="player",
        help_text="The login of a human player; bots have none.",
    )
    cups = models.IntegerField(default=0, editable=False)
    best_cups = models.IntegerField(default=0, editable=False)
    cups_changed_at = models.DateTimeField(null=True, blank=True, editable=False)
    board_season = models.PositiveIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The season whose leaderboard the player is on: the season of their last "
        "finalized ranked match (none yet: on no board).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_bot=False) | Q(user__isnull=True), name="bot_has_no_login"
            ),
            models.CheckConstraint(condition=Q(best_cups__gte=0), name="best_cups_not_negative"),
            models.UniqueConstraint(Lower("username"), name="username_unique_ignoring_case"),
            models.CheckConstraint(
                condition=Q(best_cups__gte=models.F("cups")), name="best_cups_is_best"
            ),
        ]
        indexes = [
            models.Index(
                fields=["board_season", *LEADERBOARD_ORDER],
                condition=ON_A_BOARD,
                name="leaderboard_order",
            )
        ]

    def __str__(self):
        return self.username
