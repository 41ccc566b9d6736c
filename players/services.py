"""Writes of players: creating players, minting and revoking their tokens (API.md "Players",
"Conventions")."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework_api_key.crypto import KeyGenerator

from domain.errors import RuleError
from players.models import Player, PlayerToken
from players.usernames import display_name_normal, username_key, username_normal

TOKEN_KEYS = KeyGenerator()
"""Player tokens are made and hashed as service keys are (djangorestframework-api-key): an
8-character prefix, a dot and a 32-character secret, from Django's cryptographic random
strings; the database keeps the prefix and the key's SHA-512 hash."""


class BotLoginError(RuleError):
    """Bots cannot log in, so they get no player token."""

    def __init__(self, message: str) -> None:
        super().__init__("player", message)


def player_create(*, username: str, display_name: str = "", is_bot: bool = False) -> Player:
    """Create a player; a human also gets a login (a user with no password, reached through
    player tokens). No statistics row is made: statistics read as zeros until a finalized
    match adds to them (KORT_RULES §8).

    The username is stored in NFKC form (its case-folded form beside it, written by the
    model: ``players.usernames``); the display name, NFKC too, defaults to the username.

    Raises:
        UsernameError: the username breaks the rule of API.md "Players" (field ``username``).
        DisplayNameError: the display name holds control characters, direction overrides or
            a pile of marks (field ``display_name``, ``players.usernames``).
        RuleError: no display name is given and the username is longer than one may be
            (field ``display_name``).
        RuleError: the username is taken, ignoring case (field ``username``), also when a
            concurrent request takes it first (the unique constraint decides).
    """
    username = username_normal(username)
    if Player.objects.filter(username_key=username_key(username)).exists():
        raise _username_taken(username)
    display_name = display_name_normal(display_name) or _display_name_default(username)
    try:
        with transaction.atomic():
            user = None
            if not is_bot:
                user = _login_create(username)
            return Player.objects.create(
                username=username, display_name=display_name, is_bot=is_bot, user=user
            )
    except IntegrityError:
        raise _username_taken(username) from None


def _display_name_default(username: str) -> str:
    """The display name of a player created without one: the username, if a display name may
    be that long.

    Raises:
        RuleError: the username is longer than a display name (field ``display_name``: give
            one).
    """
    longest = Player._meta.get_field("display_name").max_length
    if longest is not None and len(username) > longest:
        raise RuleError(
            "display_name",
            f"required: the username is {len(username)} characters with its marks, and a "
            f"display name (the username when none is given) is at most {longest}",
        )
    return username


def _username_taken(username: str) -> RuleError:
    return RuleError("username", f"a player named {username!r} already exists (names ignore case)")


def _login_create(username: str):
    """The login user of a human player (no password: players act through tokens).

    Raises:
        RuleError: a login with that name exists already (field ``username``).
    """
    login = f"player.{username}"
    users = get_user_model().objects
    if users.filter(username__iexact=login).exists():
        raise RuleError("username", f"the username {username!r} is already taken")
    user = users.model(username=login)
    user.set_unusable_password()
    user.save()
    return user


@dataclass(frozen=True)
class MintedToken:
    """A token just minted: the key, shown this once, and when it expires."""

    key: str
    expires_at: datetime


def player_token(player: Player) -> MintedToken:
    """A new API token of the player (``Authorization: Token <key>``), valid for
    ``KORT_PLAYER_TOKEN_DAYS`` days; only its hash is stored, so the key is returned only here.
    The player's other tokens stay valid.

    Raises:
        BotLoginError: the player is a bot.
    """
    if player.user_id is None:
        raise BotLoginError(f"player {player.pk} is a bot; bots cannot log in")
    key, prefix, hashed_key = TOKEN_KEYS.generate()
    expires_at = timezone.now() + timedelta(days=settings.KORT_PLAYER_TOKEN_DAYS)
    PlayerToken.objects.create(
        player=player, prefix=prefix, hashed_key=hashed_key, expires_at=expires_at
    )
    return MintedToken(key, expires_at)


def player_tokens_revoke(player: Player) -> int:
    """Revoke every token of the player that is not revoked yet; returns how many."""
    return tokens_revoke(PlayerToken.objects.filter(player=player))


def tokens_revoke(tokens) -> int:
    """Revoke the tokens of a queryset of :class:`PlayerToken` (the admin's action) that are
    not revoked yet; returns how many were revoked."""
    return tokens.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
