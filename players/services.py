"""Writes of players: creating players and minting their tokens (API.md "Players")."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from domain.errors import RuleError
from players.models import Player


class BotLoginError(RuleError):
    """Bots cannot log in, so they get no player token."""

    def __init__(self, message: str) -> None:
        super().__init__("player", message)


def player_create(*, username: str, display_name: str = "", is_bot: bool = False) -> Player:
    """Create a player; a human also gets a login (a user with no password, reached through
    player tokens). No statistics row is made: statistics read as zeros until a finalized
    match adds to them (KORT_RULES §8).

    Raises:
        RuleError: the username is taken, ignoring case (field ``username``), also when a
            concurrent request takes it first (the unique constraint decides).
    """
    if Player.objects.filter(username__iexact=username).exists():
        raise _username_taken(username)
    try:
        with transaction.atomic():
            user = None
            if not is_bot:
                user = _login_create(username)
            return Player.objects.create(
                username=username, display_name=display_name or username, is_bot=is_bot, user=user
            )
    except IntegrityError:
        raise _username_taken(username) from None


def _username_taken(username: str) -> RuleError:
    return RuleError("username", f"a player named {username!r} exists already (names ignore case)")


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


def player_token(player: Player) -> str:
    """The player's API token (``Authorization: Token <key>``), created on first request.

    Raises:
        BotLoginError: the player is a bot.
    """
    if player.user_id is None:
        raise BotLoginError(f"player {player.pk} is a bot; bots cannot log in")
    token, _ = Token.objects.get_or_create(user_id=player.user_id)
    return token.key
