"""The rebuild's check of the KORT_RULES §12 figures and the statistics per mode
(``ranking.rebuild``), which replays them: a ladder kept by finalizations and voids has no
difference; corrupted, lost or stray rows are reported, and fixed to what the history gives.
The same reads run on SQLite and on PostgreSQL (with ``DATABASE_URL``)."""

from itertools import product

import pytest

from matches.kort.rules import Outcome, RoundResult, Team, round_stats
from ranking.rebuild import STAT_FIELDS, ladder_rebuild
from ranking.services import match_void
from stats.models import EndedRun, ModeStats, PairFigures, PairSide, StreakFigures
from tests.api_steps import PLAYERS, ids_of, match_play, round_body

KORT = round_body(0, 7, 0, "stop")


@pytest.fixture
def ladder(service, cast):
    """Three matches (ranked, room, ranked), one more with a bot, the second one voided."""
    amir, bita, cyrus, dara = ids_of(cast)
    bot = service.post(PLAYERS, {"username": "rook", "is_bot": True}).data["id"]
    match_play(service, [amir, bita, cyrus, dara], [KORT])
    room = match_play(
        service, [amir, bita, cyrus, dara], [round_body(0, 0, 7, "stop")], mode="room"
    )
    match_play(service, [bita, amir, dara, cyrus], [KORT])
    match_play(service, [amir, bot, cyrus, dara], [KORT])
    match_void(room, "a broken table")
    return cast


def stored() -> tuple[list, list]:
    pairs = PairFigures.objects.filter(matches__gt=0).order_by("pk")
    streaks = StreakFigures.objects.exclude(last_match=None)  # rows of no match read as none
    streaks = streaks.order_by("player_id", "season", "mode")
    pair_key = ("player_id", "side", "season", "mode", "other_id")
    streak_values = ("win_current", "win_best", "loss_current", "loss_best", "last_match")
    return (
        sorted(pairs.values_list(*pair_key, "matches", "won", "cups")),
        list(streaks.values_list("player_id", "season", "mode", *streak_values)),
    )


def mode_counts() -> list:
    """The statistics per mode that hold a match (a void may leave a row of zeros)."""
    rows = ModeStats.objects.filter(matches_played__gt=0)
    return sorted(rows.values_list("player_id", "season", "mode", "matches_played", "rounds_won"))


STREAK_FIELDS = "win_current, win_best, loss_current, loss_best, last_match"


def pairs_rebuild(*, fix: bool = False, chunk: int = 2000) -> list[str]:
    """The differences the rebuild reports, as printed."""
    found: list[str] = []
    ladder_rebuild(fix=fix, chunk=chunk, report=lambda difference: found.append(str(difference)))
    return found


def test_the_figures_kept_by_the_ladder_have_no_difference(ladder):
    assert pairs_rebuild() == []


def test_corrupted_and_lost_rows_are_reported_then_fixed(ladder):
    amir, bita, cyrus, dara = ladder
    kept = stored()
    counts = mode_counts()
    PairFigures.objects.filter(
        player=amir, side=PairSide.OPPONENT, other=bita, season=0, mode="all"
    ).update(won=0)
    PairFigures.objects.filter(player=cyrus, season=0, mode="ranked").delete()
    StreakFigures.objects.filter(player=bita, season=0, mode="all").update(win_best=9)
    PairFigures.objects.create(
        player=bita, other=cyrus, side=PairSide.PARTNER, season=0, mode="room", matches=4
    )
    ModeStats.objects.filter(player=dara, season=0, mode="ranked").update(rounds_won=0)
    found = pairs_rebuild(fix=True, chunk=2)  # several chunks of players

    # Amir against Bita: won the first (+10), lost the third (-5); the room match is void.
    corrupted = f"player {amir.id}, opponent {bita.id} (all time, all): matches, won, cups"
    assert f"{corrupted} stored (2, 0, 5), recomputed (2, 1, 5)" in found
    lost = f"player {cyrus.id}, partner {amir.id} (all time, ranked): matches, won, cups"
    assert f"{lost} stored none, recomputed (3, 2, 15)" in found  # won, lost, won
    assert any(line.startswith(f"player {bita.id}, streaks (all time, all)") for line in found)
    stray = f"player {bita.id}, partner {cyrus.id} (all time, room): matches, won, cups"
    assert f"{stray} stored (4, 0, 0), recomputed none" in found
    assert any(
        line.startswith(f"player {dara.id}, statistics (all time, ranked)") for line in found
    )
    assert stored() == kept
    assert mode_counts() == counts
    assert pairs_rebuild() == []


def all_mode_counts() -> list:
    rows = ModeStats.objects.filter(matches_played__gt=0)
    return sorted(rows.values_list("player_id", "season", "mode", *STAT_FIELDS))


def pair_count_wrong(amir, bita, cyrus, dara) -> str:
    PairFigures.objects.filter(
        player=dara, side=PairSide.PARTNER, other=bita, season=0, mode="ranked"
    ).update(matches=5)
    return f"player {dara.id}, partner {bita.id} (all time, ranked): matches, won, cups stored (5,"


def streak_row_missing(amir, bita, cyrus, dara) -> str:
    StreakFigures.objects.filter(player=cyrus, season=0, mode="ranked").delete()
    return f"player {cyrus.id}, streaks (all time, ranked): {STREAK_FIELDS} stored none"


def streak_row_extra(amir, bita, cyrus, dara) -> str:
    StreakFigures.objects.create(player=amir, season=7, mode="room", win_current=2, win_best=2)
    subject = f"player {amir.id}, streaks (season 7, room)"
    return f"{subject}: {STREAK_FIELDS} stored (2, 2, 0, 0, None), recomputed none"


def mode_count_wrong(amir, bita, cyrus, dara) -> str:
    ModeStats.objects.filter(player=bita, season=1, mode="ranked").update(bavan_called=3)
    return f"player {bita.id}, statistics (season 1, ranked): counts stored {{'matches_played': "


@pytest.mark.parametrize(
    "corrupt", [pair_count_wrong, streak_row_missing, streak_row_extra, mode_count_wrong]
)
def test_each_kind_of_difference_is_found_alone_and_fixed(ladder, corrupt):
    kept, counts = stored(), all_mode_counts()
    expected = corrupt(*ladder)

    found = pairs_rebuild()
    assert len(found) == 1 and found[0].startswith(expected), found
    assert pairs_rebuild(fix=True) == found
    assert (stored(), all_mode_counts()) == (kept, counts)
    assert pairs_rebuild() == []


def test_streaks_follow_the_matches_in_order(ladder):
    amir, _, cyrus, _ = ladder
    StreakFigures.objects.filter(player=amir).delete()
    PairFigures.objects.filter(player=amir).delete()

    pairs_rebuild(fix=True)

    # Won, (the room match is void), lost, won: Cyrus his partner in all three.
    streaks = StreakFigures.objects.get(player=amir, season=0, mode="all")
    assert (streaks.win_current, streaks.win_best, streaks.loss_best) == (1, 1, 1)
    pair = PairFigures.objects.get(player=amir, side="partner", season=0, mode="all", other=cyrus)
    assert (pair.matches, pair.won, pair.cups) == (3, 2, 15)


def ended_runs() -> list:
    runs = EndedRun.objects.values_list(
        "player_id", "season", "mode", "won", "first_match", "last_match", "length"
    )
    current = StreakFigures.objects.exclude(last_match=None).values_list(
        "player_id", "season", "mode", "current_first_match", "current_first_completed_at"
    )
    return [sorted(runs), sorted(current)]


def test_the_fix_writes_the_runs_the_ladder_keeps(ladder):
    """The ladder counts a late match from the ended runs and the current run's first match
    (KORT_RULES §12): the fix writes them as the finalizations and the void left them."""
    amir = ladder[0]
    kept = ended_runs()
    assert kept[0], "the ladder has ended runs"
    EndedRun.objects.filter(player=amir).delete()
    StreakFigures.objects.filter(player=amir).update(win_best=9, current_first_match=None)

    pairs_rebuild(fix=True)

    assert ended_runs() == kept


def test_a_rounds_counts_read_its_outcome_winner_and_shutout_team_only():
    """A round's §8 counts read its outcome, winner and 7:0 team only, not its trump nor its
    wins."""
    for outcome, winner, shutout, team in product(Outcome, Team, (None, *Team), Team):
        first, *others = (
            round_stats(RoundResult(outcome, winner, wins, trump, shutout), team)
            for wins, trump in product((0, 1, 5, 13), Team)
        )
        assert all(line == first for line in others)


def test_rebuild_ladder_reports_and_fixes_them_beside_the_ladder(ladder):
    """``manage.py rebuild_ladder`` checks the §12 figures after the ladder's (every season),
    and ``--fix`` writes them back; ``--season`` checks that season's ladder figures only."""
    from contextlib import suppress
    from io import StringIO

    from django.core.management import CommandError, call_command

    amir, bita, *_ = ladder
    kept = stored()
    PairFigures.objects.filter(
        player=amir, side=PairSide.OPPONENT, other=bita, season=0, mode="all"
    ).update(won=0)
    wrong = f"player {amir.id}, opponent {bita.id} (all time, all): matches, won, cups"

    def run(*options: str) -> str:
        out = StringIO()
        with suppress(CommandError):  # a check that finds differences exits non-zero
            call_command("rebuild_ladder", *options, stdout=out, stderr=StringIO())
        return out.getvalue()

    assert wrong not in run("--season", "1")
    assert f"{wrong} stored (2, 0, 5), recomputed (2, 1, 5)" in run()
    run("--fix")
    assert stored() == kept
    assert wrong not in run()
