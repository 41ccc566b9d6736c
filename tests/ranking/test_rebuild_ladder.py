"""``manage.py rebuild_ladder``: the replay of the stored rounds reaches the stored ladder, and a
corrupted cup total, statistic or ledger row is reported exactly and restored by ``--fix``
(KORT_RULES §7, §8). Expected figures are worked out by hand from the rulebook."""

from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.conf import settings
from django.core.management import CommandError, call_command

from matches.models import Match
from players.models import Player
from players.services import player_create
from ranking.models import BoardCount, BoardTotal, CupChange
from stats.models import PlayerStats
from tests.worker import broker_unreachable


def report(service, mode, seats, first_trump_seat, rounds):
    created = service.post(
        "/api/v1/matches/",
        {"mode": mode, "seats": seats, "first_trump_seat": first_trump_seat},
    )
    assert created.status_code == 201, created.data
    for number, body in enumerate(rounds, start=1):
        reported = service.post(
            f"/api/v1/matches/{created.data['id']}/rounds/", {"number": number, **body}
        )
        assert reported.status_code == 201, reported.data
    return created.data["id"]


@pytest.fixture
def history(service, cast):
    """Three finalized matches of the cast (Amir, Cyrus = team A; Bita, Dara = team B).

    1. ranked: A wins 7:3 (A +1), then B makes an At-kort (B +7), 1:7. Cups per round +v / -v:
       A +1 -7 = -6, B -1 +7 = +6, then B +2 for the match (A has a win): A -6, B +8.
    2. ranked: A calls, makes a Kort and stops: A +5 +2 +3 = +10, B -5.
    3. room, a bot in Dara's place: B goes for Bavan after an At-kort and takes all 13 (B +13).
    Totals: Amir, Cyrus -6 +10 = 4 (best 4); Bita 8 -5 = 3 (best 8, the running maximum);
    Dara 8 -5 = 3 (best 8).
    """
    ids = [p.id for p in cast]
    bot = player_create(username="robo", is_bot=True)
    first = report(
        service,
        "ranked",
        ids,
        0,
        [
            {"trump_seat": 0, "tricks": {"A": 7, "B": 3}},
            {"trump_seat": 0, "tricks": {"A": 0, "B": 7}, "bavan": "stop"},
        ],
    )
    second = report(
        service,
        "ranked",
        ids,
        2,
        [{"trump_seat": 2, "tricks": {"A": 7, "B": 0}, "bavan": "stop"}],
    )
    report(
        service,
        "room",
        [*ids[:3], bot.id],
        0,
        [{"trump_seat": 0, "tricks": {"A": 0, "B": 13}, "bavan": "go"}],
    )
    return {"players": {p.username: p for p in cast}, "matches": (first, second)}


def rebuild(*args) -> str:
    out = StringIO()
    call_command("rebuild_ladder", *args, stdout=out)
    return out.getvalue()


def rebuild_reports() -> list[str]:
    """The differences a plain run prints; it must fail with exit status 1."""
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("rebuild_ladder", stdout=out)
    assert failed.value.returncode == 1
    return out.getvalue().splitlines()


def test_a_consistent_ladder_reports_no_difference(history):
    players = {p.username: p for p in Player.objects.all()}
    assert (players["amir"].cups, players["amir"].best_cups) == (4, 4)
    assert (players["bita"].cups, players["bita"].best_cups) == (3, 8)
    assert rebuild() == "No difference: the stored ladder is what the rounds give.\n"


def test_a_corrupted_cup_total_is_reported_then_fixed(history):
    bita = history["players"]["bita"]
    Player.objects.filter(pk=bita.pk).update(cups=5)

    assert rebuild_reports() == [f"player bita (id {bita.pk}): cups stored 5, recomputed 3"]

    assert rebuild("--fix").endswith("Fixed 1 difference(s).\n")
    assert Player.objects.get(pk=bita.pk).cups == 3
    assert rebuild().startswith("No difference")


def test_a_corrupted_best_cups_and_statistic_are_reported_then_fixed(history):
    amir = history["players"]["amir"]
    cyrus = history["players"]["cyrus"]
    Player.objects.filter(pk=amir.pk).update(best_cups=9)
    # Cyrus's team A was the opponents of one At-kort (match 1) and one At-bavan (match 3).
    PlayerStats.objects.update_or_create(
        player=cyrus, defaults=dict(at_bavan_opponents=0, rounds_played=7)
    )

    assert rebuild_reports() == [
        f"player amir (id {amir.pk}): best_cups stored 9, recomputed 4",
        f"player cyrus (id {cyrus.pk}): rounds_played stored 7, recomputed 4",
        f"player cyrus (id {cyrus.pk}): at_bavan_opponents stored 0, recomputed 1",
    ]

    rebuild("--fix")
    stats = PlayerStats.objects.get(player=cyrus)
    assert (stats.rounds_played, stats.at_bavan_opponents) == (4, 1)
    assert Player.objects.get(pk=amir.pk).best_cups == 4
    assert rebuild().startswith("No difference")


def test_corrupted_ledger_rows_are_reported_then_restored(history):
    first, second = history["matches"]
    dara = history["players"]["dara"]
    bita = history["players"]["bita"]
    CupChange.objects.filter(match_id=second, player=dara).update(delta=0)
    lost = CupChange.objects.get(match_id=first, player=bita)
    lost.delete()

    stamp = lost.created_at.isoformat()
    assert rebuild_reports() == [
        f"ledger match {first}, player bita (id {bita.pk}): delta stored none, recomputed 8",
        f"ledger match {first}, player bita (id {bita.pk}): created_at stored none, "
        f"recomputed {stamp}",
        f"ledger match {second}, player dara (id {dara.pk}): delta stored 0, recomputed -5",
    ]

    rebuild("--fix")
    assert CupChange.objects.get(match_id=first, player=bita).delta == 8
    assert CupChange.objects.get(match_id=second, player=dara).delta == -5
    assert rebuild().startswith("No difference")


def test_a_ledger_row_of_a_bot_is_reported_as_one_to_remove(history):
    robo = Player.objects.get(username="robo")
    first, _ = history["matches"]
    change = CupChange.objects.filter(match_id=first).first()
    assert change is not None
    stamp = change.created_at
    CupChange.objects.create(
        match_id=first, player=robo, delta=3, cups_after=3, season=1, created_at=stamp
    )

    assert rebuild_reports() == [
        f"ledger match {first}, player robo (id {robo.pk}): delta stored 3, recomputed none",
        f"ledger match {first}, player robo (id {robo.pk}): created_at stored "
        f"{stamp.isoformat()}, recomputed none",
    ]
    rebuild("--fix")
    assert not CupChange.objects.filter(player=robo).exists()


# --- stuck matches (API.md "Nothing is lost") ----------------------------------------------


def test_a_match_stuck_before_finalization_is_listed_and_fails_the_run(history, service, cast):
    """A completed match whose finalization was lost is missing from the ladder: the replay
    cannot see it (it replays finalized matches), so the run lists it and fails, --fix too."""
    with broker_unreachable():
        stuck = report(
            service,
            "ranked",
            [p.id for p in cast],
            0,
            [{"trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "stop"}],
        )
    completed_at = Match.objects.get(pk=stuck).completed_at
    assert completed_at is not None

    overdue = completed_at + timedelta(seconds=settings.KORT_SWEEP_GRACE_SECONDS + 0.5)
    with time_machine.travel(overdue):
        for args in ((), ("--fix",)):
            out = StringIO()
            with pytest.raises(CommandError) as failed:
                call_command("rebuild_ladder", *args, stdout=out)
            assert failed.value.returncode == 1
            assert out.getvalue().splitlines() == [
                "No difference: the stored ladder is what the rounds give.",
                f"match {stuck}: completed {completed_at}, not finalized",
            ]
            assert str(failed.value) == (
                "1 match(es) completed more than 5 s ago and not finalized; the sweeper queues "
                "their finalization again (manage.py sweep does it now)"
            )


def test_a_match_completed_within_the_sweep_grace_is_not_stuck(history, service, cast):
    with broker_unreachable():
        report(
            service,
            "ranked",
            [p.id for p in cast],
            0,
            [{"trump_seat": 0, "tricks": {"A": 7, "B": 0}, "bavan": "stop"}],
        )

    assert rebuild() == "No difference: the stored ladder is what the rounds give.\n"


# --- the leaderboard's counts (ranking.board) ---------------------------------------------------


def test_corrupted_board_counts_are_reported_then_rebuilt(history):
    # The board: Amir and Cyrus on 4 cups, Bita and Dara on 3 (KORT_RULES §10: all in season 1).
    BoardCount.objects.filter(cups=4).update(players=1)
    BoardCount.objects.filter(cups=3).delete()
    BoardCount.objects.create(season=1, cups=99, players=1)

    assert rebuild_reports() == [
        "board of season 1, 3 cups: players stored none, recomputed 2",
        "board of season 1, 4 cups: players stored 1, recomputed 2",
        "board of season 1, 99 cups: players stored 1, recomputed 0",
    ]

    assert rebuild("--fix").endswith("Fixed 3 difference(s).\n")
    assert dict(BoardCount.objects.values_list("cups", "players")) == {4: 2, 3: 2}
    assert BoardTotal.objects.get(season=1).players == 4
    assert rebuild().startswith("No difference")


def test_a_lost_board_total_is_reported_then_rebuilt(history):
    BoardTotal.objects.all().delete()

    assert rebuild_reports() == ["board of season 1: total stored none, recomputed 4"]

    rebuild("--fix")
    assert BoardTotal.objects.get(season=1).players == 4
    assert rebuild().startswith("No difference")


def test_a_wrong_board_season_is_reported_then_fixed(history):
    amir = history["players"]["amir"]
    Player.objects.filter(pk=amir.pk).update(board_season=None)

    assert rebuild_reports() == [
        f"player amir (id {amir.pk}): board_season stored none, recomputed 1"
    ]

    rebuild("--fix")
    assert Player.objects.get(pk=amir.pk).board_season == 1
    assert rebuild().startswith("No difference")
