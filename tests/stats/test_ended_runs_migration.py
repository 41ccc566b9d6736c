"""The migration to stored streak runs (KORT_RULES §12: completion order, then match id; a void
match as if never played) fills each human player's ended runs and current run from the
history, per season and mode, and writes the streak rows from them; the ladder then counts a
match completed before the latest one from those runs."""

from datetime import UTC, datetime, timedelta

import pytest

from matches.models import Match
from ranking.services import match_finalize
from stats.models import EndedRun, StreakFigures
from tests.migrations import migrate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE_THE_RUNS: dict[str, str | None] = {"stats": "0005_pairs_streaks_modes"}
START = datetime(2026, 3, 1, 12, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _latest_afterwards():
    yield
    migrate({})


def test_the_runs_are_filled_from_the_history():
    apps = migrate(BEFORE_THE_RUNS)
    players = apps.get_model("players", "Player").objects
    amir, bita, robo, robi = (
        players.create(username="amir"),
        players.create(username="bita"),
        players.create(username="robo", is_bot=True),
        players.create(username="robi", is_bot=True),
    )
    matches = apps.get_model("matches", "Match").objects
    seats = apps.get_model("matches", "Seat").objects
    # Amir's matches by completion (minutes), created in another order: ranked won, won,
    # room lost, ranked lost, a void won, ranked won; two at minute 5, ordered by id.
    plan = [
        (5, "ranked", True, "finalized"),
        (1, "ranked", True, "finalized"),
        (3, "room", False, "finalized"),
        (5, "ranked", False, "finalized"),
        (6, "ranked", True, "void"),
        (9, "ranked", True, "finalized"),
        (2, "room", True, "in_progress"),
    ]
    ids = {}
    for minute, mode, won, status in plan:
        completed = status != "in_progress"
        match = matches.create(
            mode=mode,
            target_wins=3 if mode == "ranked" else 7,
            first_trump_seat=0,
            next_trump_seat=0,
            status=status,
            winner=("A" if won else "B") if completed else None,
            season=1 if completed else None,
            completed_at=START + timedelta(minutes=minute) if completed else None,
            voided_at=START if status == "void" else None,
            void_reason="a broken table" if status == "void" else "",
            void_season=1 if status == "void" else None,
        )
        ids[minute, won] = match.pk
        for seat, player in enumerate([amir, bita, robo, robi]):
            seats.create(match=match, seat=seat, player=player, match_created_at=START)
    # Rows the earlier ladder wrote, with figures the history does not give.
    streak_rows = apps.get_model("stats", "StreakFigures").objects
    streak_rows.create(player=amir, season=0, mode="all", win_current=7, win_best=7)
    streak_rows.create(
        player=amir,
        season=2,
        mode="all",
        win_current=1,
        win_best=1,
        last_match=0,
        last_completed_at=START,
    )

    migrate({})

    at = {ids[key]: START + timedelta(minutes=key[0]) for key in ids}
    first, second, lost_room, lost, last = (
        ids[1, True],
        ids[5, True],
        ids[3, False],
        ids[5, False],
        ids[9, True],
    )
    # All modes: won, lost (room), won, lost, won (minute 5: the lower id first).
    in_order = sorted([first, lost_room, second, lost, last], key=lambda pk: (at[pk], pk))
    assert in_order[0] == first
    ended = EndedRun.objects.filter(player_id=amir.pk, season=0, mode="all")
    assert sorted(ended.values_list("first_match", "last_match", "won", "length")) == sorted(
        (pk, pk, pk in (first, second, last), 1) for pk in in_order[:-1]
    )
    figures = StreakFigures.objects.get(player_id=amir.pk, season=0, mode="all")
    assert (figures.win_current, figures.win_best, figures.loss_current, figures.loss_best) == (
        1,
        1,
        0,
        1,
    )
    assert (figures.current_first_match, figures.last_match) == (last, last)
    # Ranked in season 1: won, won, lost, won (the match made first, at minute 5, has the
    # lower id).
    ranked = StreakFigures.objects.get(player_id=amir.pk, season=1, mode="ranked")
    runs = EndedRun.objects.filter(player_id=amir.pk, season=1, mode="ranked")
    assert sorted(runs.values_list("first_match", "last_match", "won", "length")) == sorted(
        [(first, second, True, 2), (lost, lost, False, 1)]
    )
    assert (ranked.win_current, ranked.win_best, ranked.current_first_match) == (1, 2, last)
    room = StreakFigures.objects.get(player_id=amir.pk, season=0, mode="room")
    assert (room.loss_current, room.loss_best, room.current_first_match) == (1, 1, lost_room)
    assert not EndedRun.objects.filter(player_id=amir.pk, mode="room").exists()
    gone = StreakFigures.objects.get(player_id=amir.pk, season=2, mode="all")
    assert (gone.win_current, gone.win_best, gone.last_match) == (0, 0, None)
    # Bita lost every match Amir won; the bot has no runs.
    bita_all = StreakFigures.objects.get(player_id=bita.pk, season=0, mode="all")
    assert (bita_all.loss_current, bita_all.win_best, bita_all.loss_best) == (1, 1, 1)
    assert not EndedRun.objects.filter(player_id=robo.pk).exists()
    assert not StreakFigures.objects.filter(player_id=robo.pk).exists()

    # A room match won at minute 2, finalized now, joins the run of the win at minute 1.
    Match.objects.filter(pk=ids[2, True]).update(
        status="completed", winner="A", season=1, completed_at=START + timedelta(minutes=2)
    )
    assert match_finalize(ids[2, True])
    figures = StreakFigures.objects.get(player_id=amir.pk, season=0, mode="all")
    assert (figures.win_current, figures.win_best, figures.loss_best) == (1, 2, 1)
