"""How a season end runs (KORT_RULES §10): exactly once, whoever starts it and however often;
after the season's pending matches; before any match of the next season; step by step, each
step one transaction, so a run stopped half-way resumes at the step it stopped in."""

import logging
from datetime import timedelta

import pytest
import time_machine
from django.db import router
from django.utils import timezone

from bulk.reads import RequestReads, request_started
from kort_site.db_router import ReplicaRouter
from matches.models import Match
from players.models import Player
from ranking import season_end as season_end_module
from ranking import tasks
from ranking.models import CupChange, SeasonEnd, SeasonStanding
from ranking.season_end import end_due_seasons
from ranking.selectors import player_ledger
from ranking.services import SeasonNotOpen, match_finalize, match_void
from seasons.models import Season
from seasons.selectors import seasons_due
from tests.api_steps import match_play, match_read, player_read, round_body
from tests.concurrency import at_once
from tests.ranking.season_steps import SEASON_ONE, SEASONS, board, season_end, season_one_play


@pytest.fixture
def ladder(service):
    return season_one_play(service)


def four(ladder, *names) -> list[int]:
    return [ladder[name] for name in names or ("amir", "bita", "cyrus", "dara")]


def frozen_standings() -> list[tuple]:
    return list(
        SeasonStanding.objects.filter(season=1)
        .order_by("rank")
        .values_list("rank", "player__username", "cups", "best_cups", "matches_played")
    )


EXPECTED_STANDINGS = [
    (rank, name, cups, best, played)
    for rank, (name, (cups, best, played, _)) in enumerate(SEASON_ONE.items(), start=1)
]


def test_a_due_end_is_done_before_the_next_ranked_match_is_finalized(service, api, ladder):
    """The embedded default has no beat: the match completed after the end waits for it."""
    past_the_end = Season.objects.get(number=1).ends_at + timedelta(hours=1)

    with time_machine.travel(past_the_end):
        match_id = match_play(service, four(ladder), [round_body(0, 7, 0, "stop")])

    match = match_read(api, match_id)
    assert (match["status"], match["season"]) == ("finalized", 2)
    assert api.get(f"{SEASONS}1/").data["status"] == "finalized"
    assert frozen_standings() == EXPECTED_STANDINGS
    # amir: 14, reset to 7 in season 2, then the Kort's +10.
    ledger = api.get(f"/api/v1/players/{ladder['amir']}/cups/").data["results"]
    assert [(row["kind"], row["delta"], row["cups_after"]) for row in ledger[:2]] == [
        ("match", 10, 17),
        ("season_reset", -7, 7),
    ]


def test_a_match_completed_after_the_end_waits_for_the_next_season(service, ladder):
    past_the_end = Season.objects.get(number=1).ends_at + timedelta(hours=1)
    with time_machine.travel(past_the_end), pytest.MonkeyPatch.context() as patch:
        patch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
        match_id = match_play(service, four(ladder), [round_body(0, 7, 0, "stop")])
        ledger = CupChange.objects.count()

        with pytest.raises(SeasonNotOpen):
            match_finalize(match_id)
        requeued = []
        patch.setattr(tasks.finalize_match, "apply_async", lambda *a, **kw: requeued.append(kw))
        assert tasks.finalize_match.run(match_id) is False  # as a worker runs it

        assert requeued == [{"countdown": 60}]
        assert Match.objects.get(pk=match_id).status == "completed"
        assert CupChange.objects.count() == ledger
        assert [season.number for season in seasons_due()] == [1]

        assert end_due_seasons() == [1]  # the end finalizes it once the season opens
        assert Match.objects.get(pk=match_id).status == "finalized"
        assert match_finalize(match_id) is False
    assert Match.objects.get(pk=match_id).season == 2


def test_the_end_finalizes_the_seasons_matches_whose_task_has_not_run(service, api, ladder):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
        seats = four(ladder, "jaleh", "amir", "bita", "cyrus")
        # A's Kort: jaleh 0 + 10, bita -18 + 10; amir 14 - 5, cyrus 10 - 5.
        match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])
    assert match_read(api, match_id)["status"] == "completed"

    season_end()

    assert match_read(api, match_id)["status"] == "finalized"
    ranks = [name for _, name, *_ in frozen_standings()]
    assert ranks == [
        "elham", "farid", "jaleh", "amir", "gita", "iman", "cyrus", "hamid", "bita", "dara"
    ]  # fmt: skip


def test_a_void_waits_while_the_end_runs(ladder, monkeypatch):
    match_id = Match.objects.filter(mode="ranked").order_by("pk").values_list("pk", flat=True)[0]
    monkeypatch.setattr(season_end_module, "ladder_close", stopping("ladder_close"))
    with pytest.raises(Stopped):
        season_end()

    with pytest.raises(Exception, match="the end of season 1 is running"):
        match_void(match_id, "a broken table")
    assert Match.objects.get(pk=match_id).status == "finalized"


# --- stopped runs resume --------------------------------------------------------------------


class Stopped(Exception):
    """The run is stopped here, as a killed worker would be."""


def stopping(name: str):
    """A stand-in for the season end's ``name`` that does its work, then stops the run before
    the step's transaction commits."""
    real = getattr(season_end_module, name)

    def stopped(*args, **kwargs):
        real(*args, **kwargs)
        raise Stopped

    return stopped


def lease_runs_out():
    SeasonEnd.objects.update(lease_until=timezone.now() - timedelta(seconds=1))


def test_a_run_stopped_while_freezing_resumes_where_it_stopped(api, ladder, monkeypatch, caplog):
    monkeypatch.setattr(season_end_module, "standings_freeze", stopping("standings_freeze"))
    caplog.set_level(logging.INFO, logger="ranking.season_end")

    with pytest.raises(Stopped):
        season_end()

    assert frozen_standings() == []  # the step is one transaction: nothing of it is kept
    assert api.get(f"{SEASONS}current/").data["status"] == "finalizing"
    assert [season.number for season in seasons_due()] == [1]
    assert SeasonEnd.objects.get().step == "standings"

    monkeypatch.undo()
    lease_runs_out()
    assert "was already ending; that end is done now" in season_end("--season", "1")

    assert f"season 1: standings frozen through rank {len(EXPECTED_STANDINGS)}" in caplog.text
    assert frozen_standings() == EXPECTED_STANDINGS
    assert CupChange.objects.filter(kind="season_reset").count() == 9
    assert api.get(f"{SEASONS}1/").data["status"] == "finalized"


def test_a_run_stopped_while_switching_resumes_with_the_board_as_the_season_ended(
    api, ladder, monkeypatch
):
    board_before = board(api)
    monkeypatch.setattr(season_end_module, "ladder_close", stopping("ladder_close"))
    with pytest.raises(Stopped):
        season_end()
    assert SeasonEnd.objects.get().step == "open"
    assert api.get(f"{SEASONS}current/").data["number"] == 1
    assert board(api) == board_before  # the switch is one transaction: nothing of it is kept

    monkeypatch.undo()
    lease_runs_out()
    assert end_due_seasons() == [1]
    assert api.get(f"{SEASONS}current/").data["number"] == 2
    assert CupChange.objects.filter(kind="season_reset").count() == 9
    assert frozen_standings() == EXPECTED_STANDINGS


RESET_TOTALS = {name: max(cups, 0) // 2 for name, (cups, *_) in SEASON_ONE.items()} | {"jaleh": 0}
"""Each human's total after season 1's reset (floor 0): half of what is above 0."""


def stopped_while_resetting(monkeypatch) -> None:
    """End season 1 and stop the run in the first batch of the reset, before it commits:
    season 2 is open, its reset written to no player's row."""
    monkeypatch.setattr(season_end_module, "ladder_reset", stopping("ladder_reset"))
    with pytest.raises(Stopped):
        season_end()
    monkeypatch.undo()
    assert SeasonEnd.objects.get().step == "reset"
    assert CupChange.objects.filter(kind="season_reset").count() == 0


def test_a_run_stopped_while_resetting_resets_each_player_once(api, ladder, monkeypatch):
    stored = dict(Player.objects.filter(is_bot=False).values_list("username", "cups"))
    stopped_while_resetting(monkeypatch)

    # Season 2 is open; every read gives the totals as the reset makes them.
    assert dict(Player.objects.filter(is_bot=False).values_list("username", "cups")) == stored
    assert api.get(f"{SEASONS}current/").data["number"] == 2
    assert board(api) == []
    for name, total in RESET_TOTALS.items():
        assert (player_read(api, ladder[name])["cups"], name) == (total, name)
    assert [season.number for season in seasons_due()] == [1]  # the end is not done

    lease_runs_out()
    assert end_due_seasons() == [1]

    assert CupChange.objects.filter(kind="season_reset").count() == 9
    assert dict(Player.objects.filter(is_bot=False).values_list("username", "cups")) == (
        RESET_TOTALS
    )
    assert seasons_due() == []
    assert frozen_standings() == EXPECTED_STANDINGS


def test_a_players_reads_show_the_reset_still_to_be_written(api, ladder, monkeypatch):
    amir = ladder["amir"]
    stored = api.get(f"/api/v1/players/{amir}/cups/").data
    stopped_while_resetting(monkeypatch)

    ledger = api.get(f"/api/v1/players/{amir}/cups/").data
    first = ledger["results"][0]
    assert (first["kind"], first["season"], first["delta"], first["cups_after"]) == (
        "season_reset", 2, -7, 7
    )  # fmt: skip
    assert first["match"] is None
    assert ledger["count"] == stored["count"] + 1
    assert ledger["results"][1:] == stored["results"][: len(ledger["results"]) - 1]
    assert api.get(f"/api/v1/players/{amir}/stats/").data["cups"] == 7
    listed = api.get("/api/v1/players/", {"search": "amir"}).data["results"]
    assert [(row["username"], row["cups"]) for row in listed] == [("amir", 7)]

    lease_runs_out()
    end_due_seasons()
    assert api.get(f"/api/v1/players/{amir}/cups/").data["results"][0] == first


def test_a_ledger_read_writes_the_players_pending_reset_once(api, ladder, monkeypatch):
    """The reset's row a ledger read shows is stored, with the reset's stamp, and only for the
    player read; reading again, or a total the reset keeps, writes nothing."""
    stopped_while_resetting(monkeypatch)
    amir, jaleh = ladder["amir"], ladder["jaleh"]
    opened_at = Season.objects.get(number=2).reset_at

    first = api.get(f"/api/v1/players/{amir}/cups/").data
    again = api.get(f"/api/v1/players/{amir}/cups/").data
    api.get(f"/api/v1/players/{jaleh}/cups/")

    assert again == first
    resets = CupChange.objects.filter(kind="season_reset")
    assert list(resets.values_list("player_id", "season", "delta", "cups_after", "created_at")) == [
        (amir, 2, -7, 7, opened_at)
    ]
    stored = Player.objects.get(pk=amir)
    assert (stored.cups, stored.reset_season, stored.cups_changed_at) == (7, 2, opened_at)
    assert Player.objects.get(pk=jaleh).reset_season is None  # 0 cups: a total the reset keeps


@pytest.mark.django_db(transaction=True)
def test_a_ledger_read_writes_the_pending_reset_on_the_primary_and_reads_it_there(
    ladder, monkeypatch
):
    """With a replica serving the request, the reset is written on the primary and the
    ledger read from there; once written, a ledger read is a replica's read again."""
    stopped_while_resetting(monkeypatch)
    chosen: list[tuple[str, str]] = []

    class Recorded(ReplicaRouter):
        def db_for_read(self, model, **hints):
            chosen.append((model.__name__, super().db_for_read(model, **hints)))
            return "default"  # the test's one database

    monkeypatch.setattr(router, "routers", [Recorded()])
    amir = Player.objects.get(pk=ladder["amir"])

    for expected in ("default", "replica"):
        chosen.clear()
        with request_started(RequestReads(replica_ready=True)):
            rows = list(player_ledger(amir)[:1])
        assert [(row.kind, row.cups_after) for row in rows] == [("season_reset", 7)]
        assert chosen[-1] == ("CupChange", expected)
        amir = Player.objects.get(pk=amir.pk)


def test_a_match_finalized_while_the_reset_is_written_starts_from_the_reset_total(
    service, api, ladder, monkeypatch
):
    """The players' reset is written with their first change of season 2, before it; the end
    then writes it to the others only."""
    stopped_while_resetting(monkeypatch)

    match_id = match_play(service, four(ladder), [round_body(0, 7, 0, "stop")])

    assert match_read(api, match_id)["status"] == "finalized"
    amir = ladder["amir"]
    ledger = api.get(f"/api/v1/players/{amir}/cups/").data["results"]
    assert [(row["kind"], row["delta"], row["cups_after"]) for row in ledger[:2]] == [
        ("match", 10, 17),
        ("season_reset", -7, 7),
    ]
    assert CupChange.objects.filter(kind="season_reset").count() == 4  # bita and dara too
    # A's Kort: amir 7 + 10, cyrus 5 + 10; bita and dara 0 - 5.
    rows = [(row["player"]["username"], row["cups"]) for row in board(api)]
    assert rows == [("amir", 17), ("cyrus", 15), ("bita", -5), ("dara", -5)]

    lease_runs_out()
    assert end_due_seasons() == [1]
    assert CupChange.objects.filter(kind="season_reset").count() == 9  # once each
    totals = dict(Player.objects.filter(is_bot=False).values_list("username", "cups"))
    assert totals == RESET_TOTALS | {"amir": 17, "cyrus": 15, "bita": -5, "dara": -5}


def test_a_total_the_reset_keeps_is_not_reset_again_after_a_match_of_the_season(
    service, api, ladder, monkeypatch
):
    """jaleh's 0 cups are a total the reset keeps (§10); her first match of season 2 lifts
    them to 10 while the reset is still being written, and the rest of the reset leaves them
    there: it is folded once, before her match."""
    stopped_while_resetting(monkeypatch)
    jaleh = ladder["jaleh"]
    # A's Kort: jaleh 0 + 10, bita reset to 0, then + 10.
    match_play(
        service, four(ladder, "jaleh", "amir", "bita", "cyrus"), [round_body(0, 7, 0, "stop")]
    )

    lease_runs_out()
    assert end_due_seasons() == [1]

    assert player_read(api, jaleh)["cups"] == 10
    ledger = api.get(f"/api/v1/players/{jaleh}/cups/").data["results"]
    assert [(row["kind"], row["cups_after"]) for row in ledger] == [("match", 10)]
    assert {row["player"]["id"]: row["cups"] for row in board(api)}[jaleh] == 10


def test_a_run_leaves_an_end_another_run_holds(ladder, monkeypatch):
    monkeypatch.setattr(season_end_module, "standings_freeze", stopping("standings_freeze"))
    with pytest.raises(Stopped):
        season_end()
    monkeypatch.undo()

    assert end_due_seasons() == []  # the stopped run's lease has not run out
    assert SeasonEnd.objects.get().step == "standings"
    lease_runs_out()
    assert end_due_seasons() == [1]
    assert frozen_standings() == EXPECTED_STANDINGS


def test_a_season_opened_past_its_end_is_ended_in_turn(service, ladder):
    """The service down for more than a month: the next season is over when it opens."""
    two_months_on = Season.objects.get(number=1).ends_at + timedelta(days=40)

    with time_machine.travel(two_months_on):
        assert end_due_seasons() == [1, 2]
        match_id = match_play(service, four(ladder), [round_body(0, 7, 0, "stop")])

    assert Match.objects.get(pk=match_id).season == 3
    assert Season.objects.get(number=3).status == "current"
    # amir 14 -> 7 -> 3, then +10.
    assert Player.objects.get(username="amir").cups == 13


# --- at once, on PostgreSQL -----------------------------------------------------------------


def ended_once(api):
    assert frozen_standings() == EXPECTED_STANDINGS
    assert CupChange.objects.filter(kind="season_reset").count() == 9
    assert list(Season.objects.order_by("number").values_list("number", "status")) == [
        (1, "finalized"),
        (2, "current"),
    ]
    assert board(api) == []
    assert player_read(api, Player.objects.get(username="elham").pk)["cups"] == 11


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_season_end_runs_at_once_end_it_once(api, ladder):
    results = at_once([lambda: season_end_module.season_end(1)] * 2)

    assert sorted(results) == [False, True]
    ended_once(api)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_beat_ticks_at_once_end_it_once(api, ladder, monkeypatch):
    Season.objects.filter(number=1).update(
        starts_at=timezone.now() - timedelta(days=2), ends_at=timezone.now() - timedelta(days=1)
    )

    results = at_once([end_due_seasons] * 3)

    assert [1] in results
    assert all(result in ([], [1]) for result in results)
    for _ in range(100):  # a tick that found the end held by another left it to that one
        if not seasons_due():
            break
        end_due_seasons(wait=True)
    ended_once(api)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_matches_completing_at_the_end_belong_to_one_side_of_it(service, api, ladder, monkeypatch):
    """A match completed while the end is claimed: in season 1, finalized by the end, or in
    season 2, finalized after it; never left behind. (The threads only queue finalization:
    in-process tasks are not meant to run in several threads at once.)"""
    queued = []
    monkeypatch.setattr(
        "matches.rounds.queue_on_commit", lambda task, match_id, **kwargs: queued.append(match_id)
    )
    seats = [four(ladder), four(ladder, "elham", "farid", "gita", "hamid")]
    starts = [
        service.post("/api/v1/matches/", {"mode": "ranked", "seats": s}).data["id"] for s in seats
    ]

    def complete(match_id):
        return lambda: (
            service.post(
                f"/api/v1/matches/{match_id}/rounds/", {"number": 1, **round_body(0, 7, 0, "stop")}
            ).status_code
        )

    results = at_once(
        [complete(starts[0]), lambda: season_end_module.season_end(1), complete(starts[1])]
    )
    for match_id in queued:
        tasks.finalize_match.delay(match_id)

    assert results[0] == results[2] == 201
    assert sorted(queued) == sorted(starts)
    for match_id in starts:
        match = match_read(api, match_id)
        assert match["status"] == "finalized"
        first_seat = Player.objects.get(pk=match["seats"][0])
        in_standings = SeasonStanding.objects.get(season=1, player=first_seat).matches_played
        played_before = SEASON_ONE[first_seat.username][2]
        assert in_standings == played_before + (match["season"] == 1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_matches_finalized_while_the_reset_is_written_reset_each_player_once(
    service, api, ladder, monkeypatch
):
    """The reset written a player per batch while two season-2 matches of eight of its
    players are finalized: each player's reset written once, each match's cups on top of it,
    every total the sum of its ledger."""
    stopped_while_resetting(monkeypatch)
    queued: list[int] = []
    monkeypatch.setattr(
        "matches.rounds.queue_on_commit", lambda task, match_id, **kwargs: queued.append(match_id)
    )
    for seats in (four(ladder), four(ladder, "elham", "farid", "gita", "hamid")):
        match_play(service, seats, [round_body(0, 7, 0, "stop")])  # A's Kort: +10, -5
    monkeypatch.setattr(season_end_module, "RESET_BATCH", 1)
    lease_runs_out()

    results = at_once([end_due_seasons, *[lambda m=m: match_finalize(m) for m in queued]])

    assert results == [[1], True, True]
    assert CupChange.objects.filter(kind="season_reset").count() == 9
    won = {"amir": 10, "cyrus": 10, "elham": 10, "gita": 10}
    lost = {"bita": -5, "dara": -5, "farid": -5, "hamid": -5}
    expected = {
        name: RESET_TOTALS[name] + won.get(name, lost.get(name, 0)) for name in RESET_TOTALS
    }
    humans = Player.objects.filter(is_bot=False)
    assert dict(humans.values_list("username", "cups")) == expected
    for player in humans:
        deltas = CupChange.objects.filter(player=player).values_list("delta", flat=True)
        assert (player.username, sum(deltas)) == (player.username, player.cups)
