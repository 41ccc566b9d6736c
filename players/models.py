"""Players: the seat-holders of matches and the ladder (API.md "Players", KORT_RULES §7)."""

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from players.usernames import (
    DISPLAY_NAME_MAX_LENGTH,
    USERNAME_STORED_LENGTH,
    DisplayNameError,
    UsernameError,
    display_name_normal,
    username_key,
    username_normal,
)

LEADERBOARD_ORDER = ("-cups", "cups_changed_at", "id")
"""The leaderboard's order (API.md "Leaderboard"), as ``order_by`` field names: more cups
first, then who reached their total earlier, then the older player. The index of that name,
the leaderboard's rows and every rank derive from it."""

BOARD_ELIGIBLE = {"is_bot": False, "is_banned": False}
"""Who may be on a season's board at all: humans without a ban (KORT_RULES §10), as field
values. The board of season ``n`` is these players with ``board_season == n``."""
ON_A_BOARD = Q(**BOARD_ELIGIBLE)
""":data:`BOARD_ELIGIBLE` as a condition: the leaderboard index holds only these players."""


def may_be_on_a_board(player: object) -> bool:
    """Whether ``player``, as loaded (a ``Player`` or a row with its fields), is one of
    :data:`BOARD_ELIGIBLE`."""
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


def validate_username(value: str) -> None:
    """The username rule (players.usernames) as a field validator, for the API's serializer
    and the admin's form."""
    try:
        username_normal(value)
    except UsernameError as refused:
        raise ValidationError(refused.message, code="invalid") from refused


def validate_display_name(value: str) -> None:
    """The display name's rule (players.usernames) as a field validator, for the API's
    serializer and the admin's form."""
    try:
        display_name_normal(value)
    except DisplayNameError as refused:
        raise ValidationError(refused.message, code="invalid") from refused


class UsernameKeyField(models.CharField):
    """The case-folded form of the row's ``username`` (players.usernames.username_key),
    written from it whenever the row is saved or bulk-created, as ``auto_now`` writes a
    time: a row cannot be stored with a stale or missing key."""

    def pre_save(self, model_instance, add):
        key = username_key(model_instance.username)
        setattr(model_instance, self.attname, key)
        return key


class DisplayNameKeyField(models.CharField):
    """The case-folded form of the row's ``display_name`` (folded as usernames are), written
    from it whenever the row is saved or bulk-created: what a search by display name
    compares, in any script."""

    def pre_save(self, model_instance, add):
        key = username_key(model_instance.display_name)
        setattr(model_instance, self.attname, key)
        return key


NAME_PREFIX_OPCLASS = "varchar_pattern_ops"
"""PostgreSQL's operator class that lets a B-tree index answer ``LIKE 'prefix%'`` whatever
the database's collation (other databases ignore it): the searches by prefix."""


class Player(models.Model):
    """A seat-holder of the ladder. Humans may log in (a linked user, a player token); bots
    cannot. ``cups`` is the sum of the player's ledger rows; ``cups_changed_at`` is the time of
    their last cup change: a ranked match's finalization, a season's soft reset or a void (the
    leaderboard's tie-break, KORT_RULES §10); ``board_season`` the number of the season whose
    board they are on (KORT_RULES §10: a finalized, not voided ranked match in it; a ban keeps
    them off every board while it lasts)."""

    username = models.CharField(
        max_length=USERNAME_STORED_LENGTH,
        validators=[validate_username],
        help_text="30 letters at most (players.usernames), each with its marks.",
    )
    username_key = UsernameKeyField(
        max_length=USERNAME_STORED_LENGTH,
        editable=False,
        help_text="The username case-folded (players.usernames.username_key): unique, and what "
        "lookups and searches by username compare.",
    )
    display_name = models.CharField(
        max_length=DISPLAY_NAME_MAX_LENGTH, validators=[validate_display_name]
    )
    display_name_key = DisplayNameKeyField(
        max_length=4 * DISPLAY_NAME_MAX_LENGTH,
        editable=False,
        default="",
        help_text="The display name case-folded (as usernames are): what a search by display "
        "name compares.",
    )
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
    reset_season = models.PositiveIntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The season whose opening soft reset was last written to the player's cups "
        "(none yet): while a season's reset is being written, a player with an older one has it "
        "still to come (stats.totals).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(is_bot=False) | Q(user__isnull=True), name="bot_has_no_login"
            ),
            models.CheckConstraint(condition=Q(best_cups__gte=0), name="best_cups_not_negative"),
            models.UniqueConstraint(fields=["username_key"], name="username_unique_ignoring_case"),
            models.CheckConstraint(
                condition=Q(best_cups__gte=models.F("cups")), name="best_cups_is_best"
            ),
        ]
        indexes = [
            models.Index(
                fields=["board_season", *LEADERBOARD_ORDER],
                condition=ON_A_BOARD,
                name="leaderboard_order",
            ),
            models.Index(
                fields=["username_key"],
                opclasses=[NAME_PREFIX_OPCLASS],
                name="username_key_prefix",
            ),
            models.Index(
                fields=["display_name_key"],
                opclasses=[NAME_PREFIX_OPCLASS],
                name="display_name_key_prefix",
            ),
        ]

    def __str__(self):
        return self.username


class PlayerToken(models.Model):
    """A player's API token (``Authorization: Token <key>``, API.md "Conventions"), stored as
    service keys are: its SHA-512 hash and its first characters (the prefix, which the admin
    shows), never the token itself. A player may hold several; each one works until
    ``expires_at`` or until it is revoked."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="tokens")
    prefix = models.CharField(max_length=8, editable=False)
    hashed_key = models.CharField(max_length=150, unique=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    expires_at = models.DateTimeField(editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.prefix}… of {self.player}"

    @property
    def has_expired(self) -> bool:
        return self.expires_at <= timezone.now()
