"""Banned players cannot vote (API.md "Banned players"), not even in a vote opened before the
ban; the match goes on and the vote resolves as §4 says without them."""

from players.models import Player
from tests.matches.live_vote.conftest import at


def test_a_player_banned_after_the_vote_opened_cannot_vote(clock, table):
    table.open_vote()
    Player.objects.filter(pk=table.players[0].pk).update(is_banned=True)
    clock.move_to(at(1))

    refused = table.vote(0, "bavan")

    assert refused.status_code == 403, refused.data
    assert "banned" in refused.data["detail"]
    assert table.state()["votes"] == {}


def test_the_partner_of_a_banned_player_still_votes(clock, table):
    table.open_vote()
    Player.objects.filter(pk=table.players[0].pk).update(is_banned=True)
    clock.move_to(at(1))

    cast = table.vote(2, "stop")

    assert cast.status_code == 201, cast.data
    assert cast.data["status"] == "refused"
    assert table.match()["rounds"][0]["outcome"] == "kort"
