"""A ban with a refund (KORT_RULES §11): every finalized, not void, ranked match of the player
completed in the current season is voided, each once, and the player is banned, in one step
that a second run does not repeat; partners and opponents get their cups back."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from matches.models import Match
from players.models import Player
from players.services import player_create
from ranking.models import CupChange
from ranking.services import match_void, player_ban, player_ban_refund
from tests.api_steps import match_play, player_read, round_body
from tests.concurrency import at_once
from tests.ranking.season_steps import board, season_end, season_one_play


@pytest.fixture
def ladder(service):
    return season_one_play(service)


def ban_player(*args) -> str:
    out = StringIO()
    call_command("ban_player", *[str(arg) for arg in args], stdout=out)
    return out.getvalue()


def rows(api) -> list[tuple]:
    return [(row["rank"], row["player"]["username"], row["cups"]) for row in board(api)]


def rebuild_check() -> str:
    out = StringIO()
    call_command("rebuild_ladder", stdout=out)
    return out.getvalue()


def bita_matches(ladder) -> list[int]:
    """bita's two ranked matches of season 1 (1: amir, cyrus +10 / bita, dara -5; 2: elham,
    farid +18 / bita, dara -13), and not her room match."""
    ranked = Match.objects.filter(seats__player_id=ladder["bita"], mode="ranked")
    return list(ranked.order_by("pk").values_list("pk", flat=True))


def test_a_ban_with_refund_voids_the_seasons_ranked_matches_and_bans(api, ladder):
    first, second = bita_matches(ladder)

    output = ban_player(ladder["bita"], "--refund", "--reason", "a cheater")

    assert f"voided 2 match(es): {first}, {second}." in output
    assert {m.status for m in Match.objects.filter(pk__in=[first, second])} == {"void"}
    assert {m.void_reason for m in Match.objects.filter(pk__in=[first, second])} == {"a cheater"}
    assert Player.objects.get(pk=ladder["bita"]).is_banned
    cups = {name: player_read(api, pid)["cups"] for name, pid in ladder.items()}
    # §11: everyone's cups as if the two matches had not counted; the room match stays.
    assert cups == {
        "amir": 4,
        "bita": 0,
        "cyrus": 0,
        "dara": 0,
        "elham": 4,
        "farid": 0,
        "gita": 8,
        "hamid": -5,
        "iman": 6,
        "jaleh": 0,
        "robo": 0,
    }
    # cyrus, farid and dara have no ranked match of the season left; bita is banned. amir and
    # elham reached 4 in the same step: the lower id first.
    assert rows(api) == [
        (1, "gita", 8),
        (2, "iman", 6),
        (3, "amir", 4),
        (4, "elham", 4),
        (5, "hamid", -5),
    ]
    assert player_read(api, ladder["bita"], "stats/")["matches_played"] == 1  # the room match
    assert "No difference" in rebuild_check()


def test_a_second_ban_with_refund_changes_nothing_and_says_so(api, ladder):
    ban_player(ladder["bita"], "--refund", "--reason", "a cheater")
    ledger = CupChange.objects.count()
    board_before = rows(api)

    output = ban_player(ladder["bita"], "--refund", "--reason", "again")

    assert output.strip() == f"Player {ladder['bita']} is banned already; nothing changed."
    assert CupChange.objects.count() == ledger
    assert rows(api) == board_before
    assert set(Match.objects.filter(status="void").values_list("void_reason", flat=True)) == {
        "a cheater"
    }


def test_a_banned_player_is_refunded_once_without_a_second_ban(api, ladder):
    Player.objects.filter(pk=ladder["bita"]).update(is_banned=True)

    output = ban_player(ladder["bita"], "--refund", "--reason", "late refund")

    assert "is banned (was banned already); voided 2 match(es)" in output
    assert Match.objects.filter(status="void").count() == 2


def test_only_the_current_seasons_matches_are_refunded(service, api, ladder):
    season_end()
    seats = [ladder[name] for name in ("bita", "amir", "dara", "cyrus")]
    this_season = match_play(service, seats, [round_body(0, 7, 0, "stop")])  # bita, dara +10
    before = {name: player_read(api, ladder[name])["cups"] for name in ("amir", "cyrus")}

    output = ban_player(ladder["bita"], "--refund", "--reason", "a cheater")

    assert f"voided 1 match(es): {this_season}." in output
    assert list(Match.objects.filter(status="void").values_list("pk", flat=True)) == [this_season]
    after = {name: player_read(api, ladder[name])["cups"] for name in ("amir", "cyrus")}
    assert after == {name: cups + 5 for name, cups in before.items()}  # their -5 given back
    assert "No difference" in rebuild_check()


def test_a_plain_ban_voids_nothing(api, ladder):
    output = ban_player(ladder["bita"])

    assert output.strip() == f"Player {ladder['bita']} is banned."
    assert not Match.objects.filter(status="void").exists()
    assert "bita" not in [name for _, name, _ in rows(api)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--refund"], "a void needs a reason"),
        (["--refund", "--reason", "  "], "a void needs a reason"),
    ],
)
def test_a_refund_needs_a_reason(ladder, args, message):
    with pytest.raises(CommandError, match=message):
        ban_player(ladder["bita"], *args)
    assert not Player.objects.get(pk=ladder["bita"]).is_banned
    assert not Match.objects.filter(status="void").exists()


def test_an_unknown_player_is_refused(ladder):
    for args in ([], ["--refund", "--reason", "x"]):
        with pytest.raises(CommandError, match="player 999999 does not exist"):
            ban_player(999999, *args)


def test_the_admin_bans_with_a_refund(staff, api, ladder):
    selected = {"action": "ban_with_refund", "_selected_action": [ladder["bita"]]}

    asked = staff.post("/admin/players/player/", selected)
    assert asked.status_code == 200
    assert "Ban with refund" in asked.content.decode()
    assert not Player.objects.get(pk=ladder["bita"]).is_banned

    done = staff.post(
        "/admin/players/player/", {**selected, "apply": "1", "reason": "a cheater"}, follow=True
    )
    assert "1 player(s) banned with a refund." in done.content.decode()
    assert Player.objects.get(pk=ladder["bita"]).is_banned
    assert Match.objects.filter(status="void").count() == 2
    again = staff.post(
        "/admin/players/player/", {**selected, "apply": "1", "reason": "x"}, follow=True
    )
    assert "0 player(s) banned with a refund." in again.content.decode()
    assert Match.objects.filter(status="void").count() == 2


# --- at once, on PostgreSQL -----------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_refunds_a_void_and_a_ban_at_once_refund_once(api, ladder):
    """The refund locks the matches, the season, then every player in id order, as a void
    and a ban do: run together, none deadlocks and each match is voided once."""
    first, second = bita_matches(ladder)

    def calling(call):
        def run():
            try:
                return call()
            except Exception as error:
                return type(error).__name__

        return run

    results = at_once(
        [
            calling(lambda: player_ban_refund(ladder["bita"], "a cheater").voided),
            calling(lambda: player_ban_refund(ladder["bita"], "a cheater").voided),
            calling(lambda: match_void(second, "a broken table").status),
            calling(lambda: player_ban(Player.objects.get(pk=ladder["dara"]), True)),
        ]
    )

    assert "OperationalError" not in results  # a deadlock
    assert {m.status for m in Match.objects.filter(pk__in=[first, second])} == {"void"}
    for match_id in (first, second):
        assert CupChange.objects.filter(match_id=match_id, kind="void").count() == 4
    assert Player.objects.get(pk=ladder["bita"]).is_banned
    assert player_read(api, ladder["amir"])["cups"] == 4
    assert player_read(api, ladder["elham"])["cups"] == 4
    assert "No difference" in rebuild_check()


def test_a_bot_is_banned_and_can_no_longer_be_seated(service, ladder):
    """API.md "Banned players": a ban holds for a bot as for a human, so the bot cannot sit at
    a new match; it moves no cups (§7)."""
    bot = player_create(username="pawn", is_bot=True)

    output = ban_player(bot.pk)

    assert output.strip() == f"Player {bot.pk} is banned."
    assert Player.objects.get(pk=bot.pk).is_banned
    seats = [ladder["amir"], ladder["bita"], ladder["cyrus"], bot.pk]
    refused = service.post(
        "/api/v1/matches/", {"mode": "ranked", "seats": seats, "first_trump_seat": 0}
    )
    assert refused.status_code == 400, refused.data
    assert "banned" in str(refused.data["seats"])
    assert "No difference" in rebuild_check()
