"""Voiding a match (KORT_RULES §11; API.md "Match cups explained and voided matches"): every
player's cups and statistics as if the match had not counted, the board reordered at once,
exactly once; a match of a finalized season voided into the current one."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from matches.models import Match
from players.services import player_create
from ranking.models import CupChange, SeasonStanding
from ranking.services import match_void
from stats.models import PairFigures, PlayerStats, SeasonStats
from tests.api_steps import PLAYERS, match_play, match_read, match_start, player_read, round_body
from tests.concurrency import at_once
from tests.ranking.season_steps import SEASONS, board, season_end, season_one_play


@pytest.fixture
def ladder(service):
    return season_one_play(service)


def void_match(*args) -> str:
    out = StringIO()
    call_command("void_match", *[str(arg) for arg in args], stdout=out)
    return out.getvalue()


def seen(api, ladder) -> dict:
    """What a client reads of every player: cups, rank, statistics (all time, season 1)."""
    return {
        name: (
            player_read(api, pid),
            player_read(api, pid, "stats/"),
            player_read(api, pid, "stats/?season=1"),
        )
        for name, pid in ladder.items()
    }


def rows(api, path="/api/v1/leaderboard/") -> list[tuple]:
    return [(row["rank"], row["player"]["username"], row["cups"]) for row in board(api, path)]


def test_voiding_a_match_gives_back_what_it_moved(service, api, ladder):
    before = seen(api, ladder)
    board_before = rows(api)
    seats = [ladder[name] for name in ("hamid", "gita", "dara", "elham")]
    match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])  # hamid, dara +10
    assert rows(api) != board_before

    output = void_match(match_id, "--reason", "a cheater at the table")

    assert f"Match {match_id} is void (a cheater at the table): 4 cup change(s)" in output
    after = seen(api, ladder)
    for name in ladder:
        player, stats, season = after[name]
        old_player, old_stats, old_season = before[name]
        assert player == old_player, name
        # Best cups stay: the highest total ever reached (§10); hamid reached 5 with the match.
        assert stats | {"best_cups": 0} == old_stats | {"best_cups": 0}, name
        assert season | {"best_cups": 0} == old_season | {"best_cups": 0}, name
    assert after["hamid"][1]["best_cups"] == after["hamid"][2]["best_cups"] == 5
    assert rows(api) == board_before


def test_the_voided_match_reads_void_and_still_shows_what_it_gave(service, api, ladder):
    seats = [ladder[name] for name in ("hamid", "gita", "dara", "elham")]
    match_id = match_play(service, seats, [round_body(0, 7, 0, "stop")])
    given = match_read(api, match_id)

    match_void(match_id, "a broken table")

    match = match_read(api, match_id)
    assert (match["status"], match["void_reason"]) == ("void", "a broken table")
    assert match["cups"] == given["cups"]
    assert match["cups_breakdown"] == given["cups_breakdown"]
    assert match_id in [m["id"] for m in player_read(api, ladder["hamid"], "matches/")["results"]]
    ledger = api.get(f"{PLAYERS}{ladder['hamid']}/cups/").data["results"]
    assert [(r["kind"], r["delta"], r["cups_after"], r["match"]) for r in ledger[:2]] == [
        ("void", -10, -5, match_id),
        ("match", 10, 5, match_id),
    ]
    assert ledger[0]["season"] == 1


def test_a_void_reorders_the_board_and_takes_players_off_it(api, ladder):
    at_bavan = Match.objects.get(seats__player_id=ladder["farid"])

    match_void(at_bavan.pk, "a broken table")

    # elham 22 - 18 = 4; farid's only ranked match is gone: off the board; bita and dara
    # -18 + 13 = -5, their last change after hamid's.
    assert rows(api) == [
        (1, "amir", 14),
        (2, "cyrus", 10),
        (3, "gita", 8),
        (4, "iman", 6),
        (5, "elham", 4),
        (6, "hamid", -5),
        (7, "bita", -5),
        (8, "dara", -5),
    ]
    assert player_read(api, ladder["farid"])["rank"] is None
    assert player_read(api, ladder["farid"], "seasons/")["results"] == []
    elham = player_read(api, ladder["elham"], "stats/")
    assert (elham["cups"], elham["best_cups"], elham["matches_played"]) == (4, 22, 1)


def test_a_second_void_changes_nothing(api, ladder):
    match_id = Match.objects.filter(mode="ranked").order_by("pk").values_list("pk", flat=True)[0]
    void_match(match_id, "--reason", "a broken table")
    state = (list(CupChange.objects.values()), list(PlayerStats.objects.values()))

    with pytest.raises(CommandError, match=f"match {match_id} is already void"):
        void_match(match_id, "--reason", "again")

    assert (list(CupChange.objects.values()), list(PlayerStats.objects.values())) == state
    assert Match.objects.get(pk=match_id).void_reason == "a broken table"


def stored() -> tuple:
    return (
        list(CupChange.objects.order_by("pk").values()),
        list(PlayerStats.objects.order_by("pk").values()),
        list(SeasonStats.objects.order_by("pk").values()),
        list(Match.objects.order_by("pk").values("status", "void_reason")),
    )


def test_an_unknown_or_unfinalized_match_is_refused(service, ladder, monkeypatch):
    on = match_start(service, [ladder[name] for name in ("amir", "bita", "cyrus", "dara")])
    monkeypatch.setattr("matches.rounds.queue_on_commit", lambda *args, **kwargs: None)
    completed = match_play(
        service,
        [ladder[n] for n in ("elham", "farid", "gita", "hamid")],
        [round_body(0, 7, 0, "stop")],
    )
    before = stored()

    for match_id, why in (
        (999_999, "match 999999 does not exist"),
        (on, f"match {on} is in_progress; only a finalized match is voided"),
        (completed, f"match {completed} is completed; only a finalized match is voided"),
    ):
        with pytest.raises(CommandError, match=why):
            void_match(match_id, "--reason", "a broken table")
    with pytest.raises(CommandError, match="a void needs a reason"):
        finalized = Match.objects.filter(status="finalized").first()
        assert finalized is not None
        void_match(finalized.pk, "--reason", "  ")

    assert stored() == before


def test_a_void_of_a_finalized_season_lands_in_the_current_one(service, api, ladder):
    season_end()  # amir 14 -> 7
    standings = board(api, f"{SEASONS}1/leaderboard/")
    amir = ladder["amir"]
    kort = Match.objects.get(seats__player_id=ladder["cyrus"])  # season 1: amir, cyrus +10

    match_void(kort.pk, "a cheater at the table")

    assert board(api, f"{SEASONS}1/leaderboard/") == standings
    assert player_read(api, amir)["cups"] == -3
    void_row = api.get(f"{PLAYERS}{amir}/cups/").data["results"][0]
    assert (void_row["kind"], void_row["delta"], void_row["season"]) == ("void", -10, 2)
    season_one = player_read(api, amir, "stats/?season=1")
    assert (season_one["matches_played"], season_one["matches_won"]) == (2, 1)
    season_two = player_read(api, amir, "stats/?season=2")
    assert (season_two["matches_played"], season_two["cups"], season_two["best_cups"]) == (0, -3, 7)
    assert player_read(api, amir, "seasons/")["results"][0]["season"] == 1  # frozen, as it was
    assert player_read(api, amir, "seasons/")["results"][0]["rank"] == 3
    assert board(api) == []
    assert SeasonStanding.objects.filter(season=1).count() == 9


def test_voiding_a_room_match_removes_it_from_statistics_only(api, ladder):
    room = Match.objects.get(mode="room")
    jaleh = ladder["jaleh"]
    ledger = CupChange.objects.count()

    match_void(room.pk, "a broken table")

    assert CupChange.objects.count() == ledger
    assert player_read(api, jaleh, "stats/")["matches_played"] == 0
    assert player_read(api, ladder["amir"], "stats/")["matches_played"] == 2


def test_voiding_a_match_of_four_bots_moves_nothing(service):
    """A match of bots alone moves no cups, statistics nor §12 figures; its void has nothing
    to take back (KORT_RULES §11, §12)."""
    bots = [player_create(username=f"bot-{seat}", is_bot=True).id for seat in range(4)]
    match_id = match_play(service, bots, [round_body(0, 7, 0, "stop")])

    match_void(match_id, "a test table")

    assert Match.objects.get(pk=match_id).status == "void"
    assert not PairFigures.objects.filter(player_id__in=bots).exists()
    assert not PlayerStats.objects.filter(player_id__in=bots).exists()


# --- the admin ------------------------------------------------------------------------------


def test_the_admin_voids_the_selected_matches_with_a_reason(staff, ladder):
    first, second = (
        Match.objects.filter(mode="ranked").order_by("pk").values_list("pk", flat=True)[:2]
    )
    selected = {"action": "void", "_selected_action": [first, second]}

    asked = staff.post("/admin/matches/match/", selected)
    assert asked.status_code == 200
    assert "Void these matches" in asked.content.decode()
    assert Match.objects.get(pk=first).status == "finalized"

    done = staff.post("/admin/matches/match/", {**selected, "apply": "1", "reason": "broken"})

    assert done.status_code == 302
    assert set(Match.objects.filter(pk__in=[first, second]).values_list("status", flat=True)) == {
        "void"
    }
    again = staff.post(
        "/admin/matches/match/", {**selected, "apply": "1", "reason": "x"}, follow=True
    )
    assert f"match {first} is already void" in again.content.decode()


def test_only_those_allowed_to_void_see_the_action(client, ladder, django_user_model):
    from django.contrib.auth.models import Permission

    viewer = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_match"))
    client.force_login(viewer)

    page = client.get("/admin/matches/match/")

    assert page.status_code == 200
    assert 'value="void"' not in page.content.decode()


# --- at once, on PostgreSQL -----------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_voids_at_once_void_once(api, ladder):
    match_id = Match.objects.get(seats__player_id=ladder["farid"]).pk

    def void():
        try:
            return match_void(match_id, "a broken table").status
        except Exception as error:
            return str(error)

    results = at_once([void, void])

    assert sorted(results) == [f"match {match_id} is already void", "void"]
    assert CupChange.objects.filter(match_id=match_id, kind="void").count() == 4
    assert player_read(api, ladder["elham"])["cups"] == 4
