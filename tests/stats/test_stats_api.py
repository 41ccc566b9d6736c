"""The "My games" statistics through the API (KORT_RULES §8, API.md "Players"): every 7:0
outcome for either team, sums over ranked and room matches, best cups, bots, and the player's
own view with a token."""

import pytest

from ranking.models import CupChange
from stats.models import PlayerStats
from tests.api_steps import PLAYERS, ids_of, match_play, match_read, player_read, round_body

OUTCOMES = ("kort", "at_kort", "bavan", "at_bavan", "bavan_failed")


def stats(
    *, played=0, won=0, rounds=0, rounds_won=0, called=0, made=0, cups=0, best=0, streaks=None,
    **seen,
):  # fmt: skip
    """The full statistics body; ``seen`` gives outcome counts as ``kort=(team, opponents)``;
    ``streaks`` as ``((win current, best), (loss current, best))`` (KORT_RULES §12), which
    matches all won or all lost need not give."""
    if streaks is None:
        assert won in (0, played), "matches won and lost: give their streaks"
        run = (played, played)
        streaks = (run, (0, 0)) if won else ((0, 0), run)
    (win_current, win_best), (loss_current, loss_best) = streaks
    return {
        "matches_played": played,
        "matches_won": won,
        "matches_lost": played - won,
        "rounds_played": rounds,
        "rounds_won": rounds_won,
        "cups": cups,
        "best_cups": best,
        "outcomes": {
            outcome: dict(zip(("team", "opponents"), seen.get(outcome, (0, 0)), strict=True))
            for outcome in OUTCOMES
        },
        "bavan_called": called,
        "bavan_made": made,
        "streaks": {
            "win": {"current": win_current, "best": win_best},
            "loss": {"current": loss_current, "best": loss_best},
        },
    }


# --- one ranked match whose only round is a 7:0, for either team ------------------------------

SHUTOUT_CUPS = {
    # outcome: (cups of the 7:0 team, cups of the others), KORT_RULES §7 table
    "kort": (10, -5),
    "at_kort": (12, -7),
    "bavan": (15, -10),
    "at_bavan": (18, -13),
    "bavan_failed": (-5, 10),
}

SHUTOUTS = [
    # caller, tricks A:B, decision, outcome; the 7:0 team is the one with more tricks
    pytest.param(0, 7, 0, "stop", "kort", id="A-kort"),
    pytest.param(1, 7, 0, "stop", "at_kort", id="A-at_kort"),
    pytest.param(2, 13, 0, "go", "bavan", id="A-bavan"),
    pytest.param(1, 13, 0, "go", "at_bavan", id="A-at_bavan"),
    pytest.param(0, 8, 1, "go", "bavan_failed", id="A-bavan-failed-after-kort"),
    pytest.param(3, 11, 1, "go", "bavan_failed", id="A-bavan-failed-after-at_kort"),
    pytest.param(3, 0, 7, "stop", "kort", id="B-kort"),
    pytest.param(0, 0, 7, "stop", "at_kort", id="B-at_kort"),
    pytest.param(1, 0, 13, "go", "bavan", id="B-bavan"),
    pytest.param(2, 0, 13, "go", "at_bavan", id="B-at_bavan"),
    pytest.param(1, 1, 12, "go", "bavan_failed", id="B-bavan-failed-after-kort"),
    pytest.param(0, 1, 7, "go", "bavan_failed", id="B-bavan-failed-after-at_kort"),
]


@pytest.mark.parametrize(("caller", "tricks_a", "tricks_b", "bavan", "outcome"), SHUTOUTS)
def test_a_shutout_round_counts_for_both_teams(
    service, api, cast, caller, tricks_a, tricks_b, bavan, outcome
):
    seats = ids_of(cast)
    match_play(
        service, seats, [round_body(caller, tricks_a, tricks_b, bavan)], first_trump_seat=caller
    )
    shutout_seat, other_seat = (0, 1) if tricks_a > tricks_b else (1, 0)
    shutout_won = outcome != "bavan_failed"  # a failed Bavan gives the round and match away
    called = bavan == "go"
    made = max(tricks_a, tricks_b) == 13
    shutout_cups, other_cups = SHUTOUT_CUPS[outcome]

    assert player_read(api, seats[shutout_seat], "stats/") == stats(
        played=1,
        won=int(shutout_won),
        rounds=1,
        rounds_won=int(shutout_won),
        called=int(called),
        made=int(made),
        cups=shutout_cups,
        best=max(shutout_cups, 0),
        **{outcome: (1, 0)},
    )
    assert player_read(api, seats[other_seat], "stats/") == stats(
        played=1,
        won=int(not shutout_won),
        rounds=1,
        rounds_won=int(not shutout_won),
        cups=other_cups,
        best=max(other_cups, 0),
        **{outcome: (0, 1)},
    )


# --- several matches, ranked and room ---------------------------------------------------------


def test_statistics_sum_over_ranked_and_room_matches(service, api, cast):
    seats = ids_of(cast)
    assert player_read(api, seats[0], "stats/") == stats()  # best_cups starts at 0

    # Ranked, A 3:0 by plain wins: A +8, B -3 (B's best stays 0).
    match_play(service, seats, [round_body(0, 7, 3)] * 3)
    # Ranked, B's Kort from seat 1: B +10 (Bita -3 + 10 = 7), A -5 (Amir 8 - 5 = 3, best 8).
    match_play(service, seats, [round_body(1, 0, 7, "stop")], first_trump_seat=1)
    cups_before_room = [player_read(api, pid)["cups"] for pid in seats]
    # Room: A's Kort (5 wins, the caller's partner calls next), then B, the defenders, go for
    # Bavan after their At-kort and fail at 1:9: A +5, 10 wins. No cups.
    room = match_play(
        service, seats, [round_body(0, 7, 0, "stop"), round_body(2, 1, 9, "go")], mode="room"
    )

    assert match_read(api, room)["cups"] is None
    assert not CupChange.objects.filter(match_id=room).exists()
    assert [player_read(api, pid)["cups"] for pid in seats] == cups_before_room == [3, 7, 3, 7]
    # Amir: won the first and the room match; rounds 3 + 1 + 2, won 3 + 0 + 2.
    amir_stats = stats(
        played=3,
        won=2,
        rounds=6,
        rounds_won=5,
        cups=3,
        best=8,
        kort=(1, 1),
        bavan_failed=(0, 1),
        streaks=((1, 1), (0, 1)),  # won, lost, won (KORT_RULES §12)
    )
    # Bita: won the Kort match; called one Bavan and failed it.
    bita_stats = stats(
        played=3,
        won=1,
        rounds=6,
        rounds_won=1,
        called=1,
        made=0,
        cups=7,
        best=7,
        kort=(1, 1),
        bavan_failed=(1, 0),
        streaks=((0, 1), (1, 1)),  # lost, won, lost
    )
    assert [player_read(api, pid, "stats/") for pid in seats] == [
        amir_stats,
        bita_stats,
        amir_stats,
        bita_stats,
    ]


# --- a new player and bots ---------------------------------------------------------------------


def test_a_new_player_reads_zeros_before_they_have_a_statistics_row(service, api):
    nima = service.post(PLAYERS, {"username": "nima"}).data["id"]

    assert not PlayerStats.objects.filter(player_id=nima).exists()
    assert player_read(api, nima, "stats/") == stats()


def test_bots_carry_no_cups_and_no_statistics(service, api, cast):
    bot = service.post("/api/v1/players/", {"username": "bot-1", "is_bot": True}).data["id"]
    amir, _, cyrus, dara = ids_of(cast)
    seats = [amir, bot, cyrus, dara]

    # Ranked, A 3:0 by plain wins: A +8, Dara -3, the bot nothing.
    ranked = match_play(service, seats, [round_body(0, 7, 2)] * 3)
    match_play(service, seats, [round_body(0, 0, 7, "stop")], mode="room")  # B's At-kort

    assert match_read(api, ranked)["cups"] == {str(amir): 8, str(cyrus): 8, str(dara): -3}
    assert not CupChange.objects.filter(player_id=bot).exists()
    assert player_read(api, bot)["cups"] == 0
    assert player_read(api, bot, "stats/") == stats()
    assert player_read(api, dara, "stats/") == stats(
        played=2,
        won=1,
        rounds=4,
        rounds_won=1,
        cups=-3,
        at_kort=(1, 0),
        streaks=((1, 1), (0, 1)),  # lost the ranked match, then won the room one
    )


def test_a_bot_cannot_get_a_token(service, api):
    bot = service.post("/api/v1/players/", {"username": "bot-2", "is_bot": True}).data["id"]
    response = service.post(f"/api/v1/players/{bot}/token/")
    assert 400 <= response.status_code < 500
    assert "bot" in str(response.data)


# --- the player's own view (player token) ------------------------------------------------------


def test_my_stats_with_a_player_token(service, api, cast):
    seats = ids_of(cast)
    # Ranked, A's At-bavan from seat 3: A +18, B -13 (their best stays 0).
    match_play(service, seats, [round_body(3, 13, 0, "go")], first_trump_seat=3)

    for pid in seats:
        response = service.post(f"/api/v1/players/{pid}/token/")
        assert response.status_code == 201, response.data
        mine = api.as_player(response.data["token"]).get("/api/v1/players/me/stats/")
        assert mine.status_code == 200, mine.data
        assert mine.data == player_read(api, pid, "stats/")
    assert player_read(api, seats[3], "stats/") == stats(
        played=1, rounds=1, cups=-13, at_bavan=(0, 1)
    )


@pytest.mark.parametrize(("who", "status"), [("anonymous", 401), ("service", 403)])
def test_my_stats_need_a_player_token(api, service, who, status):
    client = api if who == "anonymous" else service
    assert client.get("/api/v1/players/me/stats/").status_code == status
