"""``rebuild_ladder`` over seasons and voids (KORT_RULES §10, §11): the replay of matches,
resets and voids in time order reaches the stored totals, running totals, statistics (all time
and per season) and frozen standings; a corrupted one is reported, and fixed unless frozen."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from matches.models import Match
from players.models import Player
from ranking.models import CupChange, SeasonStanding
from ranking.services import match_void
from stats.models import SeasonStats
from tests.api_steps import match_play, round_body
from tests.ranking.season_steps import season_end, season_one_play


def rebuild(*args) -> str:
    out = StringIO()
    call_command("rebuild_ladder", *args, stdout=out)
    return out.getvalue()


def rebuild_fails(*args) -> list[str]:
    out = StringIO()
    with pytest.raises(CommandError) as failed:
        call_command("rebuild_ladder", *args, stdout=out)
    assert failed.value.returncode == 1
    return out.getvalue().splitlines()


@pytest.fixture
def seasons(service):
    """Season 1 (``season_one_play``) with its At-bavan voided in it; its end with T = 10; in
    season 2 a Kort, then the void of season 1's Kort and of season 2's Kort."""
    ids = season_one_play(service)
    at_bavan = Match.objects.get(seats__player_id=ids["farid"])
    match_void(at_bavan.pk, "a broken table")
    with override_settings(KORT_SEASON_RESET_FLOOR=10):
        season_end()
    seats = [ids[name] for name in ("elham", "amir", "gita", "cyrus")]
    kort = match_play(service, seats, [round_body(0, 7, 0, "stop")])
    old_kort = Match.objects.get(seats__player_id=ids["cyrus"], season=1)
    match_void(old_kort.pk, "a cheater at the table")
    match_play(service, seats, [round_body(0, 0, 7, "stop")])  # B's At-kort
    match_void(kort, "a cheater at the table")
    return ids


def test_seasons_and_voids_replay_to_what_is_stored(seasons):
    assert CupChange.objects.filter(kind="void").count() == 12
    assert CupChange.objects.filter(kind="season_reset").exists()
    with override_settings(KORT_SEASON_RESET_FLOOR=0):  # the end's own floor counts: 10
        assert rebuild() == "No difference: the stored ladder is what the rounds give.\n"


def test_a_corrupted_reset_row_and_running_total_are_reported_then_fixed(seasons):
    amir = Player.objects.get(username="amir")
    reset = CupChange.objects.get(kind="season_reset", player=amir)  # 14 -> 10 + 4 // 2
    CupChange.objects.filter(pk=reset.pk).update(delta=-1)
    three_one = Match.objects.filter(seats__player=amir).get(seats__player__username="iman")
    CupChange.objects.filter(match=three_one, player=amir).update(cups_after=99)

    label = f"player amir (id {amir.pk})"
    assert rebuild_fails() == [
        f"ledger match {three_one.pk}, {label}: cups_after stored 99, recomputed 14",
        f"ledger reset opening season 2, {label}: delta stored -1, recomputed -2",
    ]

    assert rebuild("--fix").endswith("Fixed 2 difference(s).\n")
    assert rebuild().startswith("No difference")


def test_a_missing_reset_row_is_reported_by_its_delta_and_time(seasons):
    bita = Player.objects.get(username="bita")
    reset = CupChange.objects.get(kind="season_reset", player=bita)  # -5 -> 0
    reset.delete()

    lines = rebuild_fails()

    label = f"ledger reset opening season 2, player bita (id {bita.pk})"
    assert f"{label}: delta stored none, recomputed {reset.delta}" in lines
    assert any(line.startswith(f"{label}: created_at stored none, recomputed ") for line in lines)
    rebuild("--fix")
    assert CupChange.objects.get(kind="season_reset", player=bita).delta == 5
    assert rebuild().startswith("No difference")


def test_a_corrupted_season_row_is_reported_then_fixed(seasons):
    iman = Player.objects.get(username="iman")
    SeasonStats.objects.filter(player=iman, season=1).update(best_cups=40, ranked_won=0)

    assert rebuild_fails() == [
        f"player iman (id {iman.pk}), season 1: ranked_won stored 0, recomputed 1",
        f"player iman (id {iman.pk}), season 1: best_cups stored 40, recomputed 8",
    ]
    rebuild("--fix")
    assert rebuild().startswith("No difference")


def test_frozen_standings_are_checked_and_never_rewritten(seasons):
    gita = Player.objects.get(username="gita")
    SeasonStanding.objects.filter(season=1, player=gita).update(cups=7)

    expected = [f"standings of season 1, player gita (id {gita.pk}): cups stored 7, recomputed 8"]
    assert rebuild_fails() == expected
    assert rebuild_fails("--fix") == [*expected, "Fixed 0 difference(s)."]
    assert SeasonStanding.objects.get(season=1, player=gita).cups == 7


def test_a_rebuild_waits_for_a_running_season_end(seasons):
    from seasons.models import Season

    Season.objects.filter(number=2).update(status="finalizing")
    with pytest.raises(CommandError, match="a season's end is running"):
        rebuild()
