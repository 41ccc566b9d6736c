"""The migrations to the counted leaderboard keep the board it had (KORT_RULES §10): every human
with a finalized ranked match is on the board of season 1, bots and players who never played
one are not, the counts are built from them, and each seat gets its match's creation time."""

import pytest
from django.utils import timezone

from matches.models import Seat
from players.models import Player
from ranking.board import board_differences, counted_board
from ranking.models import BoardCount, BoardTotal
from ranking.selectors import board_page, player_rank
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_THE_BOARD = {
    "players": "0002_player_table_and_content_type",
    "ranking": "0004_player_moved_to_players_app",
    "matches": "0008_seat_player_in_players_app",
    "stats": "0002_playerstats_player_in_players_app",
    "seasons": None,
}


@pytest.fixture(autouse=True)
def _latest_afterwards():
    yield
    migrate({})


def test_the_board_is_kept_and_counted():
    apps = migrate(BEFORE_THE_BOARD)
    players = apps.get_model("players", "Player").objects
    now = timezone.now()
    rows = {
        "amir": players.create(username="amir", cups=8, best_cups=8, cups_changed_at=now),
        "bita": players.create(username="bita", cups=-3, cups_changed_at=now),
        "cyrus": players.create(username="cyrus", cups=8, best_cups=8, cups_changed_at=now),
        "banned": players.create(
            username="banned", cups=9, best_cups=9, cups_changed_at=now, is_banned=True
        ),
        "robo": players.create(username="robo", is_bot=True, cups_changed_at=now),
        "new": players.create(username="new"),
    }
    match = apps.get_model("matches", "Match").objects.create(
        mode="room", target_wins=7, first_trump_seat=0, next_trump_seat=0
    )
    for seat, name in enumerate(["amir", "bita", "cyrus", "robo"]):
        apps.get_model("matches", "Seat").objects.create(match=match, seat=seat, player=rows[name])

    migrate({})

    seasons = dict(Player.objects.values_list("username", "board_season"))
    assert seasons == {"amir": 1, "bita": 1, "cyrus": 1, "banned": 1, "robo": None, "new": None}
    assert dict(BoardCount.objects.values_list("cups", "players")) == {8: 2, -3: 1}
    assert BoardTotal.objects.get(season=1).players == 3
    assert board_differences(1, counted_board(1)) == []
    ranks = [(row.rank, row.player.username) for row in board_page(0, 10).rows]
    assert ranks == [(1, "amir"), (2, "cyrus"), (3, "bita")]
    assert player_rank(Player.objects.get(username="banned")) is None
    assert set(Seat.objects.values_list("match_created_at", flat=True)) == {match.created_at}
