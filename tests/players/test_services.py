"""Creating players and minting their tokens (API.md "Players"): humans get a login without a
password, bots none; names are unique ignoring case; bots get no token; each mint is a new
token."""

import pytest

from domain.errors import RuleError
from players.services import BotLoginError, player_create, player_token


def test_a_human_gets_a_login_without_a_password(db):
    nima = player_create(username="Nima")

    assert (nima.display_name, nima.is_bot) == ("Nima", False)
    assert nima.user is not None
    assert nima.user.username == "player.Nima"
    assert not nima.user.has_usable_password()


def test_a_bot_gets_no_login_and_no_token(db):
    robo = player_create(username="robo", display_name="Robo", is_bot=True)

    assert robo.user is None
    with pytest.raises(BotLoginError) as refused:
        player_token(robo)
    assert refused.value.field == "player"


def test_a_name_taken_ignoring_case_is_refused(cast):
    with pytest.raises(RuleError) as refused:
        player_create(username="AMIR")
    assert refused.value.field == "username"


def test_every_mint_is_a_new_token(cast):
    keys = {player_token(cast[0]).key, player_token(cast[0]).key, player_token(cast[1]).key}
    assert len(keys) == 3
