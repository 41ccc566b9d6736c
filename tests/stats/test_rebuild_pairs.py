"""The streaming checker of the KORT_RULES §12 figures (``stats.rebuild_pairs``): a ladder kept
by finalizations and voids has no difference; corrupted, lost or stray rows are reported, and
fixed to what the history gives."""

import pytest

from ranking.services import match_void
from stats import rebuild_pairs
from stats.models import ModeStats, PairFigures, PairSide, StreakFigures
from stats.rebuild_pairs import pairs_rebuild
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


def test_the_figures_kept_by_the_ladder_have_no_difference(ladder):
    assert pairs_rebuild() == []


def test_corrupted_and_lost_rows_are_reported_then_fixed(ladder, monkeypatch):
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
    monkeypatch.setattr(rebuild_pairs, "CHUNK", 2)  # several chunks of players

    found = [str(difference) for difference in pairs_rebuild(fix=True)]

    # Amir against Bita: won the first (+10), lost the third (-5); the room match is void.
    corrupted = f"player {amir.id}, opponent {bita.id} (all time, all): matches, won, cups"
    assert f"{corrupted} stored (2, 0, 5), recomputed (2, 1, 5)" in found
    lost = f"player {cyrus.id}, partner {amir.id} (all time, ranked): matches, won, cups"
    assert f"{lost} stored None, recomputed (3, 2, 15)" in found  # won, lost, won
    assert any(line.startswith(f"player {bita.id}, streaks (all time, all)") for line in found)
    stray = f"player {bita.id}, partner {cyrus.id} (all time, room): matches, won, cups"
    assert f"{stray} stored (4, 0, 0), recomputed None" in found
    assert any(
        line.startswith(f"player {dara.id}, statistics (all time, ranked)") for line in found
    )
    assert stored() == kept
    assert mode_counts() == counts
    assert pairs_rebuild() == []


def test_expected_rows_fold_a_players_matches_in_order(ladder):
    amir = ladder[0]
    ((player_id, tables),) = rebuild_pairs.chunk_tables([amir.id])

    rows = rebuild_pairs.expected_rows(player_id, tables)

    # Won, (the room match is void), lost, won: Cyrus his partner in all three.
    streaks, _ = rows.streaks[(0, "all")]
    assert (streaks.win_current, streaks.win_best, streaks.loss_best) == (1, 1, 1)
    assert rows.pairs[("partner", 0, "all", ladder[2].id)] == (3, 2, 15)


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
